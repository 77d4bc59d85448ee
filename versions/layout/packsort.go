package layout

import (
	"math/bits"
	"runtime"
	"sync"
)

// packing keeps, of a set of keys, the bits that differ between them:
// for each byte where some do, the span from its highest such bit to its
// lowest (the bits around it are the same in every key, as are the bytes
// where none differ), concatenated most significant first. Leaving out
// bits that are the same in every key keeps the keys' order: packed keys
// sort as the keys do. From the first byte whose span does not fit in the
// room given, the bytes are left out: keys equal once packed then agree
// on their first agreed bytes only (all their bytes otherwise).
type packing struct {
	fields [maxWords][]field // spans of each word of the key
	width  int               // bits of a packed key
	agreed int
}

// field is one span of bits kept.
type field struct {
	shift, bits int
	mask        uint64
}

// packingFor returns the packing of keys of words words that differ in
// the bits of diff.
func packingFor(diff *diffBits, words, room int) packing {
	p := packing{agreed: 8 * words}
	for b := range 8 * words {
		fields := &p.fields[b/8]
		byteShift := 56 - 8*(b%8)
		m := uint8(diff[b/8] >> byteShift)
		if m == 0 {
			continue
		}
		low := bits.TrailingZeros8(m)
		n := 8 - bits.LeadingZeros8(m) - low
		if p.width+n > room {
			p.agreed = b
			break
		}
		f := field{shift: byteShift + low, bits: n}
		if last := len(*fields) - 1; last >= 0 && (*fields)[last].shift == f.shift+f.bits {
			f.bits += (*fields)[last].bits // adjoins the previous span: one field
			*fields = (*fields)[:last]
		}
		f.mask = 1<<f.bits - 1
		*fields = append(*fields, f)
		p.width += n
	}
	return p
}

// pack is the packed key of k.
func (p *packing) pack(k []uint64) uint64 {
	var v uint64
	for w, x := range k {
		for _, f := range p.fields[w&(maxWords-1)] { // shifts & 63: no check for shifts past 63
			v = v<<(f.bits&63) | x>>(f.shift&63)&f.mask
		}
	}
	return v
}

// radixSortBits sorts items stably by their bits from lo to lo+width,
// which are all the bits above lo: a least-significant-digit radix sort,
// digits of at most 11 bits (a counting table that stays in the nearest
// caches) or 8 for few items (whose table would cost more to clear than
// the passes it saves), skipping the digits all items share. A long
// slice is counted and moved on every core, each its own part, in order.
// scratch is as long as items at least.
func radixSortBits(items, scratch []uint64, lo, width int) {
	if width == 0 || len(items) < 2 {
		return
	}
	if len(items) < 64 {
		for i := 1; i < len(items); i++ { // insertion sort
			for j := i; j > 0 && items[j]>>lo < items[j-1]>>lo; j-- {
				items[j], items[j-1] = items[j-1], items[j]
			}
		}
		return
	}
	maxDigit := 11
	if len(items) < 1<<12 {
		maxDigit = 8
	}
	passes := (width + maxDigit - 1) / maxDigit
	digit := (width + passes - 1) / passes
	size := 1 << digit
	mask := uint64(size - 1)
	counts := make([][]int, partsFor(len(items)))
	for part := range counts {
		counts[part] = make([]int, size)
	}
	src, dst := items, scratch[:len(items)]
	for d := range passes {
		shift := lo + d*digit
		inParts(len(src), func(part, lo, hi int) {
			count := counts[part]
			clear(count)
			for _, it := range src[lo:hi] {
				count[it>>shift&mask]++
			}
		})
		first, same := src[0]>>shift&mask, 0
		for _, count := range counts {
			same += count[first]
		}
		if same == len(src) {
			continue // one digit for all: nothing to move
		}
		// Each part's items of a digit go after those of the digits
		// below and of the parts before it: the sort stays stable.
		sum := 0
		for b := range size {
			for _, count := range counts {
				count[b], sum = sum, sum+count[b]
			}
		}
		inParts(len(src), func(part, lo, hi int) {
			next := counts[part]
			for _, it := range src[lo:hi] {
				b := it >> shift & mask
				dst[next[b]] = it
				next[b]++
			}
		})
		src, dst = dst, src
	}
	if &src[0] != &items[0] {
		copy(items, src)
	}
}

// parallelMin is the length from which work on a slice is shared by
// every core.
const parallelMin = 1 << 14

// partsFor is how many parts inParts cuts a slice of length n into.
func partsFor(n int) int {
	if n < parallelMin {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}

// inParts calls f on partsFor(n) consecutive parts of [0, n), each on
// its own goroutine when there are several, and returns when all have.
func inParts(n int, f func(part, lo, hi int)) {
	parts := partsFor(n)
	if parts == 1 {
		f(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for part := range parts {
		wg.Go(func() { f(part, part*n/parts, (part+1)*n/parts) })
	}
	wg.Wait()
}
