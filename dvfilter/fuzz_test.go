package dvfilter

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/deltafs/deltafs/replay/action"
)

var z85Seeds = []string{
	"", "HelloWorld", "%nSc0", "#####", "00000##093", "###03",
	"vBn[lx{q8@P<9BNH/isA",
	"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L",
	"^Bg9^0rr910000000000iXQKl0rr91000005c8Xg##093",
}

func FuzzDecodeZ85(f *testing.F) {
	for _, s := range z85Seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := DecodeZ85(s)
		if err != nil {
			return
		}
		if len(s)%5 != 0 || len(b) > len(s)/5*4 || len(b) < len(s)/5*4-3 {
			t.Fatalf("decoded %d chars to %d bytes", len(s), len(b))
		}
		// Every valid standard group is the unique encoding of its word.
		if len(b)%4 == 0 && !strings.HasPrefix(s[max(0, len(s)-5):], "#") {
			if enc := EncodeZ85(b); enc != s {
				t.Fatalf("EncodeZ85(DecodeZ85(%q)) = %q", s, enc)
			}
		}
	})
}

func bitmapSeeds(f *testing.F) [][]byte {
	runsBm := roaring64.New()
	runsBm.AddRange(100, 200000)
	runsBm.AddRange(1<<32, 1<<32+70000)
	runsBm.RunOptimize()
	dense := roaring64.New()
	for i := uint64(0); i < 20000; i += 3 {
		dense.Add(i)
	}
	return [][]byte{
		build64(),
		encode64(f, 0, 9),
		encode64(f, 3, 4, 7, 11, 18, 29, 1<<32+1, 5<<32),
		encodeBitmap64(f, runsBm),
		encodeBitmap64(f, dense),
		mustZ85("wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L"),
		build64(rawBucket{0, build32(
			rawContainer{key: 0, card: 3, payload: arr(1, 2, 65535)},
			rawContainer{key: 1, card: 4, isRun: true, payload: runs([2]int{10, 2}, [2]int{13, 2})},
			rawContainer{key: 2, card: 1, isRun: true, payload: runs([2]int{65535, 1})},
			rawContainer{key: 3, card: 1, payload: arr(7)},
		)}),
	}
}

func FuzzParseBitmap(f *testing.F) {
	for _, s := range bitmapSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseBitmap(data)
		if err != nil {
			if v != nil {
				t.Fatal("vector returned with an error")
			}
			return
		}
		// A parsed vector is consistent with itself and survives a round trip.
		var n uint64
		prev, first := uint64(0), true
		v.ForEach(func(row uint64) bool {
			if !first && row <= prev {
				t.Fatalf("rows not ascending: %d after %d", row, prev)
			}
			if !v.Contains(row) {
				t.Fatalf("Contains(%d) false for an iterated row", row)
			}
			prev, first = row, false
			n++
			return true
		})
		if n != v.Cardinality() || v.CountRange(0, ^uint64(0)) != n {
			t.Fatalf("iterated %d rows, Cardinality %d, CountRange %d", n, v.Cardinality(), v.CountRange(0, ^uint64(0)))
		}
		// Its runs hold the same rows, and are as long as they can be
		// within a 32-bit bucket.
		var runRows []uint64
		v.RunsInRange(0, ^uint64(0), func(lo, hi uint64) bool {
			if lo > 0 && lo>>32 == (lo-1)>>32 && v.Contains(lo-1) || hi>>32 == (hi-1)>>32 && v.Contains(hi) {
				t.Fatalf("run [%d, %d) not maximal", lo, hi)
			}
			for row := lo; row < hi && len(runRows) <= int(n); row++ {
				runRows = append(runRows, row)
			}
			return true
		})
		if !slices.Equal(runRows, rowsOf(v)) {
			t.Fatalf("runs hold %d rows, the vector %d", len(runRows), n)
		}
		again := mustParse(t, mustMarshal(t, v))
		if !slices.Equal(rowsOf(again), rowsOf(v)) {
			t.Fatal("round trip changed the rows")
		}
	})
}

func FuzzDescriptor(f *testing.F) {
	vec := encode64(f, 0, 9)
	file, _ := dvFile(vec)
	st := &memStorage{objects: map[string][]byte{
		dvName:             file,
		"ab/" + dvName:     file,
		"s3://t/dv.bin":    file,
		"x/y/" + dvName:    file,
		"../etc/" + dvName: file,
	}}
	f.Add("u", dvZ85, int32(1), true, int32(len(vec)), int64(2))
	f.Add("u", "ab"+dvZ85, int32(0), false, int32(len(vec)), int64(2))
	f.Add("u", "ab^-aqEH.-t@S}K{vb[*k^", int32(4), true, int32(40), int64(6))
	f.Add("p", "s3://t/dv.bin", int32(1), true, int32(len(vec)), int64(2))
	f.Add("i", EncodeZ85(vec), int32(0), false, int32(len(vec)), int64(2))
	f.Add("i", "^Bg9^0rr910000000000iXQKl0rr91000005c8Xg##093", int32(0), false, int32(34), int64(1))
	f.Add("i", "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", int32(0), false, int32(40), int64(6))
	f.Add("u", "../etc/"+dvZ85, int32(1), true, int32(len(vec)), int64(2))
	f.Fuzz(func(t *testing.T, typ, path string, off int32, hasOff bool, size int32, card int64) {
		dv := action.DeletionVector{StorageType: typ, PathOrInlineDv: path, SizeInBytes: size, Cardinality: card}
		if hasOff {
			dv.Offset = &off
		}
		loc, err := Locate(&dv)
		if err == nil && loc.Type == StorageRelative {
			for _, seg := range strings.Split(loc.Path, "/") {
				if seg == "" || seg == "." || seg == ".." {
					t.Fatalf("unsafe relative path %q from %q", loc.Path, path)
				}
			}
			if !strings.HasSuffix(loc.Path, ".bin") || strings.ContainsAny(loc.Path, "\\\x00") {
				t.Fatalf("bad relative path %q", loc.Path)
			}
		}
		if err == nil && loc.Type == StorageInline && int64(len(loc.Inline)) != loc.Size {
			t.Fatalf("inline data %d bytes, size %d", len(loc.Inline), loc.Size)
		}
		v, err := Load(context.Background(), st, &dv)
		if err == nil && v.Cardinality() != uint64(card) {
			t.Fatalf("loaded cardinality %d, descriptor %d", v.Cardinality(), card)
		}
		if err != nil && v != nil {
			t.Fatal("vector returned with an error")
		}
	})
}
