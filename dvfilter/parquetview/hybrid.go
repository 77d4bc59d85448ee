package parquetview

import (
	"encoding/binary"
	"fmt"
)

// Levels, dictionary indexes and RLE booleans are stored in Parquet's
// hybrid encoding: runs of one repeated value, and bit-packed groups of
// eight. A run of a few bytes may claim a million values, so a page whose
// runs claim many is read and written here run by run (pagecut.go): the
// work grows with its bytes and the deleted runs, not with the values its
// runs claim.

// valueRun is n repetitions of v.
type valueRun struct {
	v uint32
	n int64
}

// appendRun appends n repetitions of v to runs, extending the last run
// when it repeats v.
func appendRun(runs []valueRun, v uint32, n int64) []valueRun {
	if n <= 0 {
		return runs
	}
	if k := len(runs) - 1; k >= 0 && runs[k].v == v {
		runs[k].n += n
		return runs
	}
	return append(runs, valueRun{v, n})
}

// decodeHybrid reads the first n values of hybrid-encoded src, values of
// width bits (at most 32), as runs. Fewer values, a group cut short or a
// value wider than width is an error.
func decodeHybrid(src []byte, width int, n int64) ([]valueRun, error) {
	// Runs: at most one per value bit-packed, one per run header.
	runs := make([]valueRun, 0, min(n, int64(8*len(src)/max(width, 1)+len(src)/2+1)))
	err := walkHybrid(src, width, n, func(v uint32, n int64) { runs = appendRun(runs, v, n) })
	return runs, err
}

// walkHybrid calls fn for the first n values of hybrid-encoded src,
// values of width bits (at most 32), in order: for each run, and for each
// bit-packed value. Fewer values, a group cut short or a value wider than
// width is an error.
func walkHybrid(src []byte, width int, n int64, fn func(v uint32, n int64)) error {
	if width < 0 || width > 32 {
		return fmt.Errorf("values of %d bits: %w", width, errNoSplice)
	}
	valueBytes := (width + 7) / 8
	left := n
	for left > 0 {
		if len(src) == 0 {
			return fmt.Errorf("%d values encoded, %d wanted: %w", n-left, n, errNoSplice)
		}
		h, k := binary.Uvarint(src)
		if k <= 0 {
			return fmt.Errorf("run header unreadable: %w", errNoSplice)
		}
		src = src[k:]
		count := h >> 1
		if h&1 == 0 { // a run of one value
			if len(src) < valueBytes {
				return fmt.Errorf("run value cut short: %w", errNoSplice)
			}
			var v uint32
			for i := range valueBytes {
				v |= uint32(src[i]) << (8 * i)
			}
			src = src[valueBytes:]
			if width < 32 && v>>width != 0 {
				return fmt.Errorf("run value %d wider than %d bits: %w", v, width, errNoSplice)
			}
			take := int64(min(count, uint64(left)))
			fn(v, take)
			left -= take
			continue
		}
		// count groups of eight values, width bytes each.
		if width == 0 {
			take := left
			if count < uint64(left+7)/8 {
				take = int64(count) * 8
			}
			fn(0, take)
			left -= take
			continue
		}
		if count > uint64(len(src)/width) {
			return fmt.Errorf("bit-packed run of %d groups in %d bytes: %w", count, len(src), errNoSplice)
		}
		packed := src[:int(count)*width]
		src = src[len(packed):]
		for g := 0; g < len(packed) && left > 0; g += width {
			for i := range int(min(8, left)) {
				fn(uint32(packedValue(packed[g:g+width], i, width)), 1)
			}
			left -= min(8, left)
		}
	}
	return nil
}

// packedValue is value i of a bit-packed group of values of width bits.
func packedValue(group []byte, i, width int) uint64 {
	bit := i * width
	var v uint64
	for got := 0; got < width; {
		b := uint64(group[bit/8]) >> (bit % 8)
		take := min(8-bit%8, width-got)
		v |= (b & (1<<take - 1)) << got
		got, bit = got+take, bit+take
	}
	return v
}

// literalRun is the shortest run written as a run of one value; shorter
// ones are bit-packed, as writers do.
const literalRun = 16

// encodeHybrid appends runs, values of width bits, hybrid-encoded to dst.
// Long runs are written as runs, the values between them bit-packed; the
// last group is padded with zeros (the page's value count ends it).
func encodeHybrid(dst []byte, runs []valueRun, width int) []byte {
	var packed []uint32 // values waiting to be bit-packed
	for _, r := range runs {
		if r.n < literalRun {
			for range r.n {
				packed = append(packed, r.v)
			}
			continue
		}
		// Fill the waiting values to whole groups from the run.
		pad := int64((8 - len(packed)%8) % 8)
		for range pad {
			packed = append(packed, r.v)
		}
		dst = appendPacked(dst, packed, width)
		packed = packed[:0]
		dst = binary.AppendUvarint(dst, uint64(r.n-pad)<<1)
		for i := range (width + 7) / 8 {
			dst = append(dst, byte(r.v>>(8*i)))
		}
	}
	for len(packed)%8 != 0 {
		packed = append(packed, 0)
	}
	return appendPacked(dst, packed, width)
}

// appendPacked appends values (whole groups of eight) bit-packed.
func appendPacked(dst []byte, values []uint32, width int) []byte {
	if len(values) == 0 {
		return dst
	}
	dst = binary.AppendUvarint(dst, uint64(len(values)/8)<<1|1)
	var acc uint64
	have := 0
	for _, v := range values {
		acc |= uint64(v) << have
		for have += width; have >= 8; have -= 8 {
			dst = append(dst, byte(acc))
			acc >>= 8
		}
	}
	return dst
}

// dropRuns returns runs without the values at the positions gone
// (ascending runs of positions, counted from the first value).
func dropRuns(runs []valueRun, gone deletions) []valueRun {
	out := make([]valueRun, 0, len(runs)+len(gone))
	var pos int64 // of runs[0]'s first value
	for _, r := range runs {
		start, end := pos, pos+r.n
		for start < end {
			for len(gone) > 0 && gone[0].hi <= start {
				gone = gone[1:]
			}
			if len(gone) == 0 || gone[0].lo >= end {
				out = appendRun(out, r.v, end-start)
				break
			}
			out = appendRun(out, r.v, gone[0].lo-start) // none when it starts inside
			start = min(max(gone[0].hi, start), end)
		}
		pos = end
	}
	return out
}
