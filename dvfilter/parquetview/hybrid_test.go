package parquetview

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/rle"
)

// expand is runs written out value by value.
func expand(runs []valueRun) []uint32 {
	var out []uint32
	for _, r := range runs {
		for range r.n {
			out = append(out, r.v)
		}
	}
	return out
}

// hybridSample is values of width bits: long runs, short runs and noise.
func hybridSample(r *rand.Rand, width int) []uint32 {
	var out []uint32
	top := uint32(1<<width - 1)
	for range 40 {
		v := r.Uint32() & top
		n := []int{1, 3, 7, 8, 9, 15, 16, 17, 200}[r.IntN(9)]
		for range n {
			out = append(out, v)
		}
		for range r.IntN(12) {
			out = append(out, r.Uint32()&top)
		}
	}
	return out
}

// TestHybridAgainstParquetGo: what parquet-go encodes decodes to the same
// values, and what encodeHybrid writes parquet-go reads back, for levels
// (up to 8 bits) and dictionary indexes (wider).
func TestHybridAgainstParquetGo(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for width := 1; width <= 20; width++ {
		for range 20 {
			want := hybridSample(r, width)
			n := int64(len(want))
			var encoded []byte
			var err error
			if width <= 8 {
				levels := make([]byte, len(want))
				for i, v := range want {
					levels[i] = byte(v)
				}
				encoded, err = (&rle.Encoding{BitWidth: width}).EncodeLevels(nil, levels)
			} else {
				idx := make([]int32, len(want))
				for i, v := range want {
					idx[i] = int32(v)
				}
				var de rle.DictionaryEncoding
				if encoded, err = de.EncodeInt32(nil, idx); err == nil {
					if int(encoded[0]) != width {
						continue // parquet-go chose a narrower width for these values
					}
					encoded = encoded[1:]
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			runs, err := decodeHybrid(encoded, width, n)
			if err != nil {
				t.Fatalf("width %d: %v", width, err)
			}
			if got := expand(runs); !slices.Equal(got, want) {
				t.Fatalf("width %d: decoded %v, want %v", width, got, want)
			}
			for i := 1; i < len(runs); i++ {
				if runs[i].v == runs[i-1].v {
					t.Fatalf("width %d: runs %d and %d not merged", width, i-1, i)
				}
			}
			mine := encodeHybrid(nil, runs, width)
			var back []uint32
			if width <= 8 {
				levels, err := (&rle.Encoding{BitWidth: width}).DecodeLevels(nil, mine)
				if err != nil {
					t.Fatalf("width %d: parquet-go reads: %v", width, err)
				}
				for _, l := range levels {
					back = append(back, uint32(l))
				}
			} else {
				var de rle.DictionaryEncoding
				idx, err := de.DecodeInt32(nil, append([]byte{byte(width)}, mine...))
				if err != nil {
					t.Fatalf("width %d: parquet-go reads: %v", width, err)
				}
				for _, v := range idx {
					back = append(back, uint32(v))
				}
			}
			if len(back) < len(want) || len(back) > len(want)+7 || !slices.Equal(back[:len(want)], want) {
				t.Fatalf("width %d: parquet-go read %d values back, want %d", width, len(back), len(want))
			}
		}
	}
}

// TestHybridClaims: runs claiming billions of values cost what they take
// to read, and malformed runs are refused.
func TestHybridClaims(t *testing.T) {
	huge := binary.AppendUvarint(nil, 3<<31<<1) // a run of 3*2^31 zeros
	huge = append(huge, 0)
	runs, err := decodeHybrid(huge, 1, 5<<30)
	if err != nil || len(runs) != 1 || runs[0] != (valueRun{0, 5 << 30}) {
		t.Fatalf("runs %v, %v", runs, err)
	}
	packedZeroWidth := binary.AppendUvarint(nil, 1<<40<<1|1)
	if runs, err := decodeHybrid(packedZeroWidth, 0, 1<<35); err != nil || len(runs) != 1 || runs[0].n != 1<<35 {
		t.Fatalf("zero-width groups: runs %v, %v", runs, err)
	}
	if runs := dropRuns([]valueRun{{1, 1 << 40}}, deletions{{5, 1<<40 - 5}}); !slices.Equal(runs, []valueRun{{1, 10}}) {
		t.Fatalf("dropRuns of a long run: %v", runs)
	}
	if out := encodeHybrid(nil, []valueRun{{1, 1 << 40}, {0, 3}}, 1); len(out) > 12 {
		t.Fatalf("a run of 2^40 encoded in %d bytes", len(out))
	}
	for _, c := range []struct {
		src   []byte
		width int
		n     int64
		err   string
	}{
		{[]byte{4 << 1, 1}, 1, 5, "4 values encoded, 5 wanted"},
		{[]byte{4 << 1, 3}, 1, 4, "wider than 1 bits"},
		{[]byte{4 << 1}, 1, 4, "cut short"},
		{[]byte{2<<1 | 1, 0xff}, 1, 16, "2 groups in 1 bytes"},
		{[]byte{0x80}, 1, 1, "unreadable"},
		{nil, 33, 1, "33 bits"},
	} {
		if _, err := decodeHybrid(c.src, c.width, c.n); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("decodeHybrid(%x, %d, %d) = %v, want %q", c.src, c.width, c.n, err, c.err)
		}
	}
}

// TestDropRuns against dropping value by value.
func TestDropRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 500 {
		var runs []valueRun
		for range r.IntN(10) {
			runs = appendRun(runs, r.Uint32N(3), int64(1+r.IntN(20)))
		}
		values := expand(runs)
		var gone deletions
		for at := int64(r.IntN(5)); at < int64(len(values)); at += int64(1 + r.IntN(8)) {
			n := int64(1 + r.IntN(6))
			gone = gone.add(at, min(at+n, int64(len(values))))
			at += n
		}
		var want []uint32
		cur := deletedCursor{gone}
		for i, v := range values {
			if !cur.deleted(int64(i)) {
				want = append(want, v)
			}
		}
		if got := expand(dropRuns(runs, gone)); !slices.Equal(got, want) {
			t.Fatalf("dropRuns(%v, %v) = %v, want %v", runs, gone, got, want)
		}
	}
}

// claimed is the values the runs of src claim, as far as it reads; a run
// of no values, which parquet-go reads without its value byte, counts as
// too many.
func claimed(src []byte, width int) uint64 {
	var total uint64
	for len(src) > 0 {
		h, k := binary.Uvarint(src)
		if k <= 0 {
			break
		}
		src = src[k:]
		n, size := h>>1, uint64((width+7)/8)
		if n == 0 {
			return 1 << 62
		}
		if h&1 == 1 {
			if n > 1<<40 {
				return 1 << 62
			}
			n, size = 8*n, n*uint64(width)
		}
		total += min(n, 1<<62)
		src = src[min(size, uint64(len(src))):]
	}
	return total
}

// FuzzHybrid: decodeHybrid reads what parquet-go reads, and what
// encodeHybrid writes of it parquet-go reads back the same.
func FuzzHybrid(f *testing.F) {
	f.Add([]byte{4 << 1, 1, 3<<1 | 1, 0xaa, 0x55, 0x0f}, uint8(1), uint16(20))
	f.Add([]byte{20 << 1, 2, 1<<1 | 1, 0x1b, 0xe4}, uint8(2), uint16(28))
	f.Fuzz(func(t *testing.T, src []byte, w uint8, n uint16) {
		width := 1 + int(w%8) // parquet-go reads no level of width 0
		runs, err := decodeHybrid(src, width, int64(n))
		var ref []byte
		var rerr error = errNoSplice
		if claimed(src, width) <= 1<<20 { // parquet-go allocates what runs claim
			ref, rerr = (&rle.Encoding{BitWidth: width}).DecodeLevels(nil, src)
		}
		if err != nil {
			if rerr == nil && len(ref) >= int(n) && !slices.ContainsFunc(ref[:n], func(l byte) bool { return int(l)>>width != 0 }) {
				t.Fatalf("refused (%v) what parquet-go reads", err)
			}
			return
		}
		got := expand(runs)
		if len(got) != int(n) {
			t.Fatalf("%d values, want %d", len(got), n)
		}
		if rerr == nil && len(ref) >= int(n) {
			for i := range got {
				if got[i] != uint32(ref[i]) {
					t.Fatalf("value %d: %d, parquet-go %d", i, got[i], ref[i])
				}
			}
		}
		back, err := (&rle.Encoding{BitWidth: width}).DecodeLevels(nil, encodeHybrid(nil, runs, width))
		if err != nil || len(back) < len(got) {
			t.Fatalf("written back: %d values, %v", len(back), err)
		}
		for i := range got {
			if uint32(back[i]) != got[i] {
				t.Fatalf("written back, value %d: %d, want %d", i, back[i], got[i])
			}
		}
	})
}
