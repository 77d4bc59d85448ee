package dvfilter

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// rawContainer is one container of a hand-built 32-bit roaring bitmap.
type rawContainer struct {
	key     uint16
	card    int // declared cardinality (header stores card-1)
	isRun   bool
	payload []byte
}

func arr(vals ...uint16) []byte {
	var b []byte
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint16(b, v)
	}
	return b
}

// runs encodes (start, length) pairs; the format stores length-1.
func runs(pairs ...[2]int) []byte {
	b := binary.LittleEndian.AppendUint16(nil, uint16(len(pairs)))
	for _, p := range pairs {
		b = binary.LittleEndian.AppendUint16(b, uint16(p[0]))
		b = binary.LittleEndian.AppendUint16(b, uint16(p[1]-1))
	}
	return b
}

func bitset(vals ...int) []byte {
	b := make([]byte, bitsetBytes)
	for _, v := range vals {
		b[v/8] |= 1 << (v % 8)
	}
	return b
}

// build32 lays out a 32-bit roaring bitmap by hand, in the run format when
// any container is a run container.
func build32(cs ...rawContainer) []byte {
	runFormat := slices.ContainsFunc(cs, func(c rawContainer) bool { return c.isRun })
	var b []byte
	if runFormat {
		b = binary.LittleEndian.AppendUint32(b, uint32(cookieRuns)|uint32(len(cs)-1)<<16)
		flags := make([]byte, (len(cs)+7)/8)
		for i, c := range cs {
			if c.isRun {
				flags[i/8] |= 1 << (i % 8)
			}
		}
		b = append(b, flags...)
	} else {
		b = binary.LittleEndian.AppendUint32(b, cookieNoRuns)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(cs)))
	}
	for _, c := range cs {
		b = binary.LittleEndian.AppendUint16(b, c.key)
		b = binary.LittleEndian.AppendUint16(b, uint16(c.card-1))
	}
	if !runFormat || len(cs) >= noOffsetThreshold {
		off := len(b) + 4*len(cs)
		for _, c := range cs {
			b = binary.LittleEndian.AppendUint32(b, uint32(off))
			off += len(c.payload)
		}
	}
	for _, c := range cs {
		b = append(b, c.payload...)
	}
	return b
}

type rawBucket struct {
	key uint32
	bm  []byte
}

// build64 lays out a whole serialized vector in the portable format.
func build64(bs ...rawBucket) []byte {
	b := binary.LittleEndian.AppendUint32(nil, Magic)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(bs)))
	for _, x := range bs {
		b = binary.LittleEndian.AppendUint32(b, x.key)
		b = append(b, x.bm...)
	}
	return b
}

var empty32 = build32()

func TestParseBitmapValid(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want []uint64
	}{
		{name: "no buckets", data: build64(), want: nil},
		{name: "empty bucket", data: build64(rawBucket{0, empty32}), want: nil},
		{
			// The vector inside delta-rs/data/table-with-dv-small's DV file.
			name: "real file vector",
			data: mustHex("d1d33964 0100000000000000 00000000 3a300000 01000000 00000100 10000000 00000900"),
			want: []uint64{0, 9},
		},
		{
			// PROTOCOL.md, JSON Example 3 (native layout).
			name: "protocol inline example",
			data: mustZ85("wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L"),
			want: []uint64{3, 4, 7, 11, 18, 29},
		},
		{
			name: "array, run and bitset containers",
			data: build64(rawBucket{0, build32(
				rawContainer{key: 0, card: 3, payload: arr(1, 2, 65535)},
				rawContainer{key: 1, card: 4, isRun: true, payload: runs([2]int{10, 2}, [2]int{13, 2})},
				rawContainer{key: 2, card: 1, isRun: true, payload: runs([2]int{65535, 1})},
				rawContainer{key: 3, card: 5000, payload: bitset(seq(0, 5000)...)},
			)}),
			want: append([]uint64{1, 2, 65535, 65536 + 10, 65536 + 11, 65536 + 13, 65536 + 14, 2*65536 + 65535}, shift(seq(0, 5000), 3*65536)...),
		},
		{
			name: "adjacent runs accepted",
			data: build64(rawBucket{0, build32(rawContainer{key: 0, card: 4, isRun: true, payload: runs([2]int{0, 2}, [2]int{2, 2})})}),
			want: []uint64{0, 1, 2, 3},
		},
		{
			name: "high buckets",
			data: build64(rawBucket{1, build32(rawContainer{key: 0, card: 1, payload: arr(7)})},
				rawBucket{1<<31 - 1, build32(rawContainer{key: 65535, card: 1, payload: arr(65535)})}),
			want: []uint64{1<<32 + 7, 1<<63 - 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := mustParse(t, tc.data)
			if got := rowsOf(v); !slices.Equal(got, tc.want) {
				t.Fatalf("rows = %v, want %v", got, tc.want)
			}
			if v.Cardinality() != uint64(len(tc.want)) {
				t.Fatalf("Cardinality = %d, want %d", v.Cardinality(), len(tc.want))
			}
		})
	}
}

func TestParseBitmapInvalid(t *testing.T) {
	valid := build64(rawBucket{0, build32(rawContainer{key: 0, card: 2, payload: arr(0, 9)})})
	withCount := func(n uint64) []byte {
		b := slices.Clone(valid)
		binary.LittleEndian.PutUint64(b[4:], n)
		return b
	}
	one := func(c rawContainer) []byte { return build64(rawBucket{0, build32(c)}) }
	tooMany := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, cookieNoRuns), maxContainers+1)
	tests := []struct {
		name string
		data []byte
	}{
		{"nil", nil},
		{"short magic", []byte{0xD1, 0xD3}},
		{"bad magic", append([]byte{1, 2, 3, 4}, valid[4:]...)},
		{"magic only", valid[:4]},
		{"short bucket count", valid[:9]},
		{"negative bucket count", withCount(1 << 63)},
		{"huge bucket count", withCount(1 << 40)},
		{"bucket count one too many", withCount(2)},
		{"truncated", valid[:len(valid)-1]},
		{"trailing byte", append(slices.Clone(valid), 0)},
		{"keys descending", build64(rawBucket{2, empty32}, rawBucket{1, empty32})},
		{"keys duplicate", build64(rawBucket{1, empty32}, rawBucket{1, empty32})},
		{"key msb set", build64(rawBucket{1 << 31, empty32})},
		{"unknown cookie", build64(rawBucket{0, []byte{1, 2, 3, 4, 0, 0, 0, 0}})},
		{"too many containers", build64(rawBucket{0, tooMany})},
		{"container keys descending", build64(rawBucket{0, build32(
			rawContainer{key: 2, card: 1, payload: arr(1)}, rawContainer{key: 1, card: 1, payload: arr(1)})})},
		{"container keys duplicate", build64(rawBucket{0, build32(
			rawContainer{key: 1, card: 1, payload: arr(1)}, rawContainer{key: 1, card: 1, payload: arr(2)})})},
		{"array unsorted", one(rawContainer{key: 0, card: 2, payload: arr(5, 3)})},
		{"array duplicate", one(rawContainer{key: 0, card: 2, payload: arr(5, 5)})},
		{"array short", one(rawContainer{key: 0, card: 3, payload: arr(1, 2)})},
		{"bitset popcount mismatch", one(rawContainer{key: 0, card: 5000, payload: bitset(seq(0, 4999)...)})},
		{"bitset short", one(rawContainer{key: 0, card: 5000, payload: bitset(seq(0, 5000)...)[:100]})},
		{"run overlap", one(rawContainer{key: 0, card: 4, isRun: true, payload: runs([2]int{0, 3}, [2]int{2, 2})})},
		{"run unsorted", one(rawContainer{key: 0, card: 4, isRun: true, payload: runs([2]int{10, 2}, [2]int{0, 2})})},
		{"run past 65535", one(rawContainer{key: 0, card: 2, isRun: true, payload: runs([2]int{65535, 2})})},
		{"run container empty", one(rawContainer{key: 0, card: 1, isRun: true, payload: runs()})},
		{"run count past end", one(rawContainer{key: 0, card: 1, isRun: true, payload: []byte{0xFF, 0xFF, 0, 0}})},
		{"native negative count", []byte{0x64, 0x39, 0xD3, 0xD0, 0xFF, 0xFF, 0xFF, 0xFF}},
		{"native length mismatch", append([]byte{0x64, 0x39, 0xD3, 0xD0, 0, 0, 0, 1, 0, 0, 0, 9}, append(slices.Clone(empty32), 0)...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ParseBitmap(tc.data)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("ParseBitmap = %v, %v; want ErrCorrupt", v, err)
			}
			if v != nil {
				t.Fatalf("partial vector returned with error %v", err)
			}
			t.Log(err)
		})
	}
}

// TestRoundTrip checks both directions against roaring64, an encoder and
// decoder independent of ours: our MarshalBinary -> ParseBitmap, and
// roaring64's portable writer -> ParseBitmap.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var sparse, wide []uint64
	for range 2000 {
		sparse = append(sparse, r.Uint64N(10_000_000))
		wide = append(wide, r.Uint64N(1<<40))
	}
	sets := map[string][]uint64{
		"empty":              nil,
		"zero":               {0},
		"first and last":     {0, 9},
		"sparse":             sparse,
		"wide past 2^32":     wide,
		"bucket edges":       {1<<32 - 1, 1 << 32, 1<<32 + 1, 2<<32 - 1, 5 << 32},
		"largest valid":      {1<<63 - 1},
		"dense bitset":       seq64(0, 20000, 2),
		"all rows 0..300000": seq64(0, 300000, 1),
		"run across 2^32":    seq64(1<<32-70000, 1<<32+70000, 1),
	}
	for name, rows := range sets {
		t.Run(name, func(t *testing.T) {
			want := slices.Compact(slices.Sorted(slices.Values(rows)))
			ours, err := NewVector(rows...).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			bm := roaring64.New()
			bm.AddMany(rows)
			bm.RunOptimize()
			for enc, data := range map[string][]byte{"ours": ours, "roaring64": encodeBitmap64(t, bm)} {
				v := mustParse(t, data)
				if got := rowsOf(v); !slices.Equal(got, want) {
					t.Fatalf("%s: %d rows decoded, want %d (first %v)", enc, len(got), len(want), got[:min(5, len(got))])
				}
				if v.Cardinality() != uint64(len(want)) {
					t.Fatalf("%s: Cardinality = %d, want %d", enc, v.Cardinality(), len(want))
				}
			}
		})
	}
}

func TestMarshalRefusesHugeRows(t *testing.T) {
	if _, err := NewVector(1 << 63).MarshalBinary(); err == nil {
		t.Fatal("row 2^63 serialized")
	}
}

func seq(lo, hi int) []int {
	var s []int
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

func seq64(lo, hi, step uint64) []uint64 {
	var s []uint64
	for i := lo; i < hi; i += step {
		s = append(s, i)
	}
	return s
}

func shift(vals []int, by uint64) []uint64 {
	out := make([]uint64, len(vals))
	for i, v := range vals {
		out[i] = uint64(v) + by
	}
	return out
}
