package dvfilter

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/replay/action"
)

const (
	dvName   = "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin"
	dvZ85    = "vBn[lx{q8@P<9BNH/isA"
	absolute = "s3://bucket/other/deletion_vector_x.bin"
)

func TestLoad(t *testing.T) {
	vecA := encode64(t, 0, 9)
	vecB := encode64(t, 3, 1<<32+5, 1<<33)
	file, offs := dvFile(vecA, vecB)
	single, _ := dvFile(vecA)

	flip := func(b []byte, i int) []byte { b = slices.Clone(b); b[i] ^= 0x40; return b }
	badVersion := slices.Clone(single)
	badVersion[0] = 2
	garbage := []byte("not a roaring bitmap at all!")
	garbageFile, _ := dvFile(garbage)

	objects := map[string][]byte{
		dvName:                file,
		"ab/" + dvName:        single,
		absolute:              single,
		"crc/" + dvName:       flip(single, len(single)-1),
		"data/" + dvName:      flip(single, 10),
		"version/" + dvName:   badVersion,
		"garbage/" + dvName:   garbageFile,
		"truncated/" + dvName: single[:len(single)-3],
	}
	dv := func(prefix string, off *int32, size, card int64) action.DeletionVector {
		return action.DeletionVector{StorageType: "u", PathOrInlineDv: prefix + dvZ85, Offset: off, SizeInBytes: int32(size), Cardinality: card}
	}
	lenA, lenB := int64(len(vecA)), int64(len(vecB))

	tests := []struct {
		name      string
		dv        action.DeletionVector
		want      []uint64
		wantErr   error
		wantReads []string
	}{
		{name: "first vector, offset 1 reads from 0", dv: dv("", i32(1), lenA, 2), want: []uint64{0, 9},
			wantReads: []string{dvName + "@0+" + itoa(1+4+lenA+4)}},
		{name: "second vector at its offset", dv: dv("", i32(offs[1]), lenB, 3), want: []uint64{3, 1<<32 + 5, 1 << 33},
			wantReads: []string{dvName + "@" + itoa(int64(offs[1])) + "+" + itoa(4+lenB+4)}},
		{name: "offset absent means 1", dv: dv("ab", nil, lenA, 2), want: []uint64{0, 9}},
		{name: "absolute key passed as given", dv: action.DeletionVector{StorageType: "p", PathOrInlineDv: absolute, Offset: i32(1), SizeInBytes: int32(lenA), Cardinality: 2},
			want: []uint64{0, 9}, wantReads: []string{absolute + "@0+" + itoa(1+4+lenA+4)}},
		{name: "inline needs no read", dv: action.DeletionVector{StorageType: "i", PathOrInlineDv: EncodeZ85(vecB), SizeInBytes: int32(lenB), Cardinality: 3},
			want: []uint64{3, 1<<32 + 5, 1 << 33}, wantReads: []string{}},
		{name: "maxRowIndex respected", dv: func() action.DeletionVector { d := dv("", i32(1), lenA, 2); d.MaxRowIndex = i64(9); return d }(), want: []uint64{0, 9}},

		{name: "bad CRC", dv: dv("crc", i32(1), lenA, 2), wantErr: ErrChecksum},
		{name: "corrupted data", dv: dv("data", i32(1), lenA, 2), wantErr: ErrChecksum},
		{name: "bad version byte", dv: dv("version", i32(1), lenA, 2), wantErr: ErrCorrupt},
		{name: "corrupt bitmap with good CRC", dv: dv("garbage", i32(1), int64(len(garbage)), 0), wantErr: ErrCorrupt},
		{name: "offset past end", dv: dv("", i32(int32(len(file)+10)), lenA, 2), wantErr: ErrTruncated},
		{name: "file cut short", dv: dv("truncated", i32(1), lenA, 2), wantErr: ErrTruncated},
		{name: "size field differs", dv: dv("", i32(1), lenA-1, 2), wantErr: ErrSizeMismatch},
		{name: "offset points mid-vector", dv: dv("", i32(3), lenA, 2), wantErr: ErrSizeMismatch},
		{name: "cardinality mismatch", dv: dv("", i32(1), lenA, 3), wantErr: ErrCardinalityMismatch},
		{name: "maxRowIndex exceeded", dv: func() action.DeletionVector { d := dv("", i32(1), lenA, 2); d.MaxRowIndex = i64(8); return d }(), wantErr: ErrCardinalityMismatch},
		{name: "inline cardinality mismatch", dv: action.DeletionVector{StorageType: "i", PathOrInlineDv: EncodeZ85(vecA), SizeInBytes: int32(lenA), Cardinality: 1}, wantErr: ErrCardinalityMismatch},
		{name: "inline corrupt", dv: action.DeletionVector{StorageType: "i", PathOrInlineDv: EncodeZ85(garbage), SizeInBytes: int32(len(garbage))}, wantErr: ErrCorrupt},
		{name: "missing file", dv: dv("nope", i32(1), lenA, 2), wantErr: os.ErrNotExist},
		{name: "bad descriptor", dv: action.DeletionVector{StorageType: "q"}, wantErr: ErrInvalidDescriptor},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := &memStorage{objects: objects}
			v, err := Load(context.Background(), st, &tc.dv)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || v != nil {
					t.Fatalf("Load = %v, %v; want error %v", v, err, tc.wantErr)
				}
				if loc, _ := Locate(&tc.dv); loc.Path != "" && !strings.Contains(err.Error(), loc.Path) {
					t.Fatalf("error %q does not name %q", err, loc.Path)
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := rowsOf(v); !slices.Equal(got, tc.want) {
				t.Fatalf("rows = %v, want %v", got, tc.want)
			}
			if tc.wantReads != nil && !slices.Equal(st.reads, tc.wantReads) && !(len(tc.wantReads) == 0 && len(st.reads) == 0) {
				t.Fatalf("reads = %v, want %v", st.reads, tc.wantReads)
			}
			if tc.dv.StorageType != "i" && len(st.reads) != 1 {
				t.Fatalf("%d reads, want exactly 1", len(st.reads))
			}
		})
	}
}

func TestLoadStorageError(t *testing.T) {
	boom := errors.New("boom")
	st := &memStorage{err: boom}
	d := action.DeletionVector{StorageType: "u", PathOrInlineDv: dvZ85, SizeInBytes: 36, Cardinality: 2}
	if _, err := Load(context.Background(), st, &d); !errors.Is(err, boom) || !strings.Contains(err.Error(), dvName) {
		t.Fatalf("Load = %v, want wrapped storage error naming the file", err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
