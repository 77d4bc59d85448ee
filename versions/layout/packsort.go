package layout

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
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
// which are all the bits above lo. scratch is as long as items at least.
// A slice too long for the nearest caches is first split by its top
// digit (sortByTopDigit), the rest sorted a least-significant digit at a
// time (sortByDigits).
func radixSortBits(items, scratch []uint64, lo, width int) {
	switch {
	case width == 0 || len(items) < 2:
	case len(items) < 64:
		insertionSortBits(items, lo)
	case len(items) >= topDigitMin && width > maxDigitBits:
		sortByTopDigit(items, scratch, lo, width)
	default:
		digit := digitBits(len(items))
		sortByDigits(items, scratch, lo, width, digit, countTables(len(items), digit))
	}
}

// insertionSortBits sorts a few items stably by their bits above lo.
func insertionSortBits(items []uint64, lo int) {
	for i := 1; i < len(items); i++ {
		for j := i; j > 0 && items[j]>>lo < items[j-1]>>lo; j-- {
			items[j], items[j-1] = items[j-1], items[j]
		}
	}
}

// maxDigitBits is the widest digit: a counting table that stays in the
// nearest caches.
const maxDigitBits = 11

// digitBits is the widest digit for n items: 8 for few (whose table
// would cost more to clear than the passes it saves).
func digitBits(n int) int {
	if n < 1<<12 {
		return 8
	}
	return maxDigitBits
}

// countTables returns a counting table of digits bits for each part
// distribute cuts n items into.
func countTables(n, digit int) [][]int {
	counts := make([][]int, partsFor(n))
	for part := range counts {
		counts[part] = make([]int, 1<<digit)
	}
	return counts
}

// sortByDigits is a least-significant-digit radix sort of items on bits
// lo to lo+width, in digits of at most maxDigit bits (counts' tables hold
// as many), skipping the digits all items share.
func sortByDigits(items, scratch []uint64, lo, width, maxDigit int, counts [][]int) {
	passes := (width + maxDigit - 1) / maxDigit
	digit := (width + passes - 1) / passes
	src, dst := items, scratch[:len(items)]
	for d := range passes {
		if distribute(src, dst, lo+d*digit, digit, counts) {
			src, dst = dst, src
		}
	}
	if &src[0] != &items[0] {
		copy(items, src)
	}
}

// distribute moves src's items into dst stably by their digit of digit
// bits at shift, counted and moved on every core, each its own part
// with its own table of counts; after it, the last part's table holds
// where the items of each digit end in dst. It moves nothing, and
// returns false, where all items share the digit.
func distribute(src, dst []uint64, shift, digit int, counts [][]int) bool {
	size := 1 << digit
	mask := uint64(size - 1)
	inParts(len(src), func(part, lo, hi int) {
		count := counts[part][:size]
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
		return false
	}
	// Each part's items of a digit go after those of the digits below
	// and of the parts before it: the sort stays stable.
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
	return true
}

// topDigitMin is the length from which a slice is split by its top digit
// first: the passes of a least-significant-digit sort each move every
// item once through memory, where a split moves them once and leaves
// parts that sort in the nearest caches.
const topDigitMin = 1 << 16

// topBucketBits is about how many items (as a power of two) each part of
// a split holds.
const topBucketBits = 9

// sortByTopDigit splits items by their top digit into scratch, stably,
// sorts each part on the bits below the digit, on every core, and
// moves it back.
func sortByTopDigit(items, scratch []uint64, lo, width int) {
	digit := min(maxDigitBits, bits.Len(uint(len(items)))-topBucketBits, width-1)
	counts := countTables(len(items), digit)
	scratch = scratch[:len(items)]
	below := width - digit
	if !distribute(items, scratch, lo+below, digit, counts) {
		radixSortBits(items, scratch, lo, below)
		return
	}
	ends := counts[len(counts)-1]
	sortBucket := func(b int, table [][]int) {
		start := 0
		if b > 0 {
			start = ends[b-1]
		}
		part, back := scratch[start:ends[b]], items[start:ends[b]]
		switch {
		case len(part) >= parallelMin: // sorted on every core too
			radixSortBits(part, back, lo, below)
		case len(part) < 64:
			insertionSortBits(part, lo)
		default:
			sortByDigits(part, back, lo, below, digitBits(len(part)), table)
		}
		copy(back, part)
	}
	const batch = 16
	var taken atomic.Int64
	var wg sync.WaitGroup
	for range partsFor(len(items)) {
		wg.Go(func() {
			table := [][]int{make([]int, 1<<maxDigitBits)}
			for {
				b := int(taken.Add(batch)) - batch
				if b >= 1<<digit {
					return
				}
				for end := min(b+batch, 1<<digit); b < end; b++ {
					sortBucket(b, table)
				}
			}
		})
	}
	wg.Wait()
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
