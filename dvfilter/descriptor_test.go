package dvfilter

import (
	"bytes"
	"errors"
	"testing"

	"github.com/deltafs/deltafs/replay/action"
)

func TestLocate(t *testing.T) {
	tests := []struct {
		name    string
		dv      action.DeletionVector
		want    Location
		wantErr error
	}{
		{
			// PROTOCOL.md, JSON Example 1.
			name: "relative with prefix",
			dv:   action.DeletionVector{StorageType: "u", PathOrInlineDv: "ab^-aqEH.-t@S}K{vb[*k^", Offset: i32(4), SizeInBytes: 40, Cardinality: 6},
			want: Location{Type: StorageRelative, Path: "ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin", Offset: 4, Size: 40},
		},
		{
			// delta-rs/data/table-with-dv-small.
			name: "relative without prefix, offset 1",
			dv:   action.DeletionVector{StorageType: "u", PathOrInlineDv: "vBn[lx{q8@P<9BNH/isA", Offset: i32(1), SizeInBytes: 36, Cardinality: 2},
			want: Location{Type: StorageRelative, Path: "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin", Offset: 1, Size: 36},
		},
		{
			name: "relative, offset absent defaults to 1",
			dv:   action.DeletionVector{StorageType: "u", PathOrInlineDv: "vBn[lx{q8@P<9BNH/isA", SizeInBytes: 36, Cardinality: 2},
			want: Location{Type: StorageRelative, Path: "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin", Offset: 1, Size: 36},
		},
		{
			name: "relative with nested prefix",
			dv:   action.DeletionVector{StorageType: "u", PathOrInlineDv: "x/y" + "vBn[lx{q8@P<9BNH/isA", SizeInBytes: 36},
			want: Location{Type: StorageRelative, Path: "x/y/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin", Offset: 1, Size: 36},
		},
		{
			// PROTOCOL.md, JSON Example 2.
			name: "absolute",
			dv:   action.DeletionVector{StorageType: "p", PathOrInlineDv: "s3://mytable/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin", Offset: i32(4), SizeInBytes: 40, Cardinality: 6},
			want: Location{Type: StorageAbsolute, Path: "s3://mytable/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin", Absolute: true, Offset: 4, Size: 40},
		},
		{
			// PROTOCOL.md, JSON Example 3 (native format; 40 bytes, aligned).
			name: "inline aligned",
			dv:   action.DeletionVector{StorageType: "i", PathOrInlineDv: "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", SizeInBytes: 40, Cardinality: 6},
			want: Location{Type: StorageInline, Size: 40, Inline: mustZ85("wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L")},
		},
		{
			// delta-kernel-rs/data/cdf-table-with-dv: Rust z85 tail form.
			name: "inline rust tail",
			dv:   action.DeletionVector{StorageType: "i", PathOrInlineDv: "^Bg9^0rr910000000000iXQKl0rr91000005c8Xg##093", SizeInBytes: 34, Cardinality: 1},
			want: Location{Type: StorageInline, Size: 34, Inline: mustZ85("^Bg9^0rr910000000000iXQKl0rr91000005c8Xg##093")},
		},
		{
			name: "inline java padding is cut",
			dv:   action.DeletionVector{StorageType: "i", PathOrInlineDv: EncodeZ85([]byte{1, 2, 3, 4, 5, 6}), SizeInBytes: 6},
			want: Location{Type: StorageInline, Size: 6, Inline: []byte{1, 2, 3, 4, 5, 6}},
		},
		{name: "nil-like empty type", dv: action.DeletionVector{PathOrInlineDv: "x"}, wantErr: ErrInvalidDescriptor},
		{name: "unknown type", dv: action.DeletionVector{StorageType: "x", PathOrInlineDv: "vBn[lx{q8@P<9BNH/isA"}, wantErr: ErrInvalidDescriptor},
		{name: "two-char type", dv: action.DeletionVector{StorageType: "uu", PathOrInlineDv: "vBn[lx{q8@P<9BNH/isA"}, wantErr: ErrInvalidDescriptor},
		{name: "negative size", dv: action.DeletionVector{StorageType: "u", PathOrInlineDv: "vBn[lx{q8@P<9BNH/isA", SizeInBytes: -1}, wantErr: ErrInvalidDescriptor},
		{name: "negative cardinality", dv: action.DeletionVector{StorageType: "u", PathOrInlineDv: "vBn[lx{q8@P<9BNH/isA", Cardinality: -1}, wantErr: ErrInvalidDescriptor},
		{name: "negative offset", dv: action.DeletionVector{StorageType: "u", PathOrInlineDv: "vBn[lx{q8@P<9BNH/isA", Offset: i32(-4)}, wantErr: ErrInvalidDescriptor},
		{name: "negative maxRowIndex", dv: action.DeletionVector{StorageType: "u", PathOrInlineDv: "vBn[lx{q8@P<9BNH/isA", MaxRowIndex: i64(-1)}, wantErr: ErrInvalidDescriptor},
		{name: "relative too short", dv: action.DeletionVector{StorageType: "u", PathOrInlineDv: "vBn[lx{q8@P<9BNH/is"}, wantErr: ErrInvalidDescriptor},
		{name: "relative bad z85", dv: action.DeletionVector{StorageType: "u", PathOrInlineDv: "vBn[lx{q8@P<9BNH/is~"}, wantErr: ErrInvalidDescriptor},
		{name: "relative uuid overflow", dv: action.DeletionVector{StorageType: "u", PathOrInlineDv: "#####0000000000#####"}, wantErr: ErrInvalidDescriptor},
		{name: "prefix escapes root", dv: action.DeletionVector{StorageType: "u", PathOrInlineDv: "../" + "vBn[lx{q8@P<9BNH/isA"}, wantErr: ErrInvalidDescriptor},
		{name: "prefix dotdot only", dv: action.DeletionVector{StorageType: "u", PathOrInlineDv: ".." + "vBn[lx{q8@P<9BNH/isA"}, wantErr: ErrInvalidDescriptor},
		{name: "prefix absolute", dv: action.DeletionVector{StorageType: "u", PathOrInlineDv: "/etc" + "vBn[lx{q8@P<9BNH/isA"}, wantErr: ErrInvalidDescriptor},
		{name: "prefix backslash", dv: action.DeletionVector{StorageType: "u", PathOrInlineDv: "a\\b" + "vBn[lx{q8@P<9BNH/isA"}, wantErr: ErrInvalidDescriptor},
		{name: "absolute empty", dv: action.DeletionVector{StorageType: "p"}, wantErr: ErrInvalidDescriptor},
		{name: "inline bad z85", dv: action.DeletionVector{StorageType: "i", PathOrInlineDv: "abc", SizeInBytes: 2}, wantErr: ErrInvalidDescriptor},
		{name: "inline size too large", dv: action.DeletionVector{StorageType: "i", PathOrInlineDv: "HelloWorld", SizeInBytes: 9}, wantErr: ErrSizeMismatch},
		{name: "inline size too small", dv: action.DeletionVector{StorageType: "i", PathOrInlineDv: "HelloWorld", SizeInBytes: 4}, wantErr: ErrSizeMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Locate(&tc.dv)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Locate = %+v, %v; want error %v", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Locate: %v", err)
			}
			if got.Type != tc.want.Type || got.Path != tc.want.Path || got.Absolute != tc.want.Absolute ||
				got.Offset != tc.want.Offset || got.Size != tc.want.Size || !bytes.Equal(got.Inline, tc.want.Inline[:min(len(tc.want.Inline), int(tc.want.Size))]) {
				t.Fatalf("Locate = %+v, want %+v", got, tc.want)
			}
		})
	}
	if _, err := Locate(nil); !errors.Is(err, ErrInvalidDescriptor) {
		t.Fatalf("Locate(nil) = %v", err)
	}
}

func mustZ85(s string) []byte {
	b, err := DecodeZ85(s)
	if err != nil {
		panic(err)
	}
	return b
}
