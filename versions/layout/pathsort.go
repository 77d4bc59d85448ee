package layout

import (
	"encoding/binary"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/deltafs/deltafs/replay"
)

// PathOrder returns the indexes of files in the order of their stored
// paths (deltafs ls).
func PathOrder(files []replay.File) []int32 {
	return orderOf(len(files), func(i int) string { return files[i].Path })
}

// Order returns the indexes of strs in sorted order; strs hold no NUL
// (paths, served names). They share long prefixes
// ("date=2024-01-01/part-"), which make every comparison of a comparison
// sort walk them; instead the 16 bytes after their common prefix are read
// as two big-endian integers, of which only the bits that differ between
// strings are kept, packed into one word above the string's index and
// sorted by a radix sort (see packing). Strings whose packed bits tie
// agree on more than the prefix and are sorted again the same way past
// what they agree on. The keys of the first 16 bytes are read in one pass
// over strs in the order given; only ties read strings again.
func Order(strs []string) []int32 {
	return orderOf(len(strs), func(i int) string { return strs[i] })
}

// orderOf is Order of the n strings str gives (a function, not a slice:
// a slice of a million paths copied out of their files was 16 MB of new
// memory to fault in).
func orderOf(n int, str func(int) string) []int32 {
	s := sorter{str: str, idxBits: bits.Len(uint(n))}
	s.idxMask = 1<<s.idxBits - 1
	order := make([]int32, n)
	if n < 2 {
		return order
	}
	keys := make([]uint64, 2*n)
	depth, diff := s.keyAll(keys)
	items := make([]uint64, n)
	inParts(n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			items[i] = uint64(i)
		}
	})
	s.sort(items, keys, diff, depth, &sortScratch{})
	inParts(n, func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			order[k] = int32(items[k] & s.idxMask)
		}
	})
	return order
}

// key16 is the 16 bytes of a string from some depth as two big-endian
// integers, zero past the string's end. A slice of keys holds them as
// pairs of words, which the radix sort reuses once they are packed.
type key16 struct{ hi, lo uint64 }

func keyAt(p string, depth int) key16 {
	return key16{key8(p, depth), key8(p, depth+8)}
}

func putKey(keys []uint64, j int, k key16) {
	keys[2*j], keys[2*j+1] = k.hi, k.lo
}

// or adds to d the bits in which a and b differ.
func (d *key16) or(a, b key16) {
	d.hi |= a.hi ^ b.hi
	d.lo |= a.lo ^ b.lo
}

// sorter sorts items: a string's index in the low idxBits bits, above it
// the packed bits of its key being sorted on.
type sorter struct {
	str     func(int) string
	idxBits int
	idxMask uint64
}

func (s *sorter) strOf(item uint64) string { return s.str(int(item & s.idxMask)) }

// sortScratch is the buffer one goroutine reads the keys of ties into.
type sortScratch struct{ keys []uint64 }

// smallRunMax is the run length up to which strings are compared as
// strings (an insertion sort) rather than keyed and radix sorted.
const smallRunMax = 16

// sort sorts items, whose strings share at least depth bytes, by string;
// keys holds the 16 bytes from depth of each item's string (see key16),
// and diff the bits in which they differ.
func (s *sorter) sort(items, keys []uint64, diff key16, depth int, scratch *sortScratch) {
	p := packingFor(diff, 64-s.idxBits)
	inParts(len(items), func(_, lo, hi int) {
		for j := lo; j < hi; j++ {
			items[j] = p.pack(keys[2*j], keys[2*j+1])<<s.idxBits | items[j]&s.idxMask
		}
	})
	radixSortBits(items, keys[:len(items)], s.idxBits, p.width)
	// Runs of equal packed keys agree on the first p.agreed bytes from
	// depth; those that go on past them are sorted past them.
	var runs []run
	tied := 0
	for lo := 0; lo < len(items); {
		hi := lo + 1
		for hi < len(items) && items[hi]>>s.idxBits == items[lo]>>s.idxBits {
			hi++
		}
		if hi-lo > 1 && len(s.strOf(items[lo])) >= depth+p.agreed {
			runs = append(runs, run{lo, hi})
			tied += hi - lo
		}
		lo = hi
	}
	depth += p.agreed
	sortTies := func(r run, scratch *sortScratch) { s.sortTies(items[r.lo:r.hi], depth, scratch) }
	workers := runtime.GOMAXPROCS(0)
	if tied < parallelMin || workers < 2 || len(runs) < 2 {
		for _, r := range runs {
			sortTies(r, scratch)
		}
		return
	}
	next := make(chan run)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var own sortScratch
			for r := range next {
				sortTies(r, &own)
			}
		})
	}
	for _, r := range runs {
		next <- r
	}
	close(next)
	wg.Wait()
}

// run is a range of items whose packed keys tie.
type run struct{ lo, hi int }

// sortTies sorts items whose strings share depth bytes, reading their
// keys from the strings (scattered in memory) or, for a few, comparing
// the strings themselves.
func (s *sorter) sortTies(items []uint64, depth int, scratch *sortScratch) {
	if len(items) <= smallRunMax {
		for i := 1; i < len(items); i++ { // insertion sort, stable
			for j := i; j > 0 && s.strOf(items[j])[depth:] < s.strOf(items[j-1])[depth:]; j-- {
				items[j], items[j-1] = items[j-1], items[j]
			}
		}
		return
	}
	if cap(scratch.keys) < 2*len(items) {
		scratch.keys = make([]uint64, 2*len(items))
	}
	// sort is done with the keys once packed and sorted by: the ties it
	// sorts next read theirs into the same buffer.
	keys := scratch.keys[:2*len(items)]
	var diff key16
	k0 := keyAt(s.strOf(items[0]), depth)
	for j, it := range items {
		k := keyAt(s.strOf(it), depth)
		putKey(keys, j, k)
		diff.or(k, k0)
	}
	s.sort(items, keys, diff, depth, scratch)
}

// keyAll fills keys with the first 16 bytes of each string after the
// prefix all strings share, and returns that prefix's length and the
// bits in which keys differ. The prefix is guessed from a few strings
// spread over the strings, and checked while the keys are read: one pass
// over them, where finding the prefix and then reading the keys took two
// (they do not fit in a cache). A guess too long, found by the check,
// costs the second pass after all.
func (s *sorter) keyAll(keys []uint64) (int, key16) {
	const samples = 64
	n := len(keys) / 2
	step := max(n/samples, 1)
	str0 := s.str(0)
	guess := len(str0)
	for i := step; i < n; i += step {
		p := s.str(i)
		guess = min(guess, len(p))
		guess = sharedFrom(p[:guess], str0[:guess], 0)
	}
	first := str0[:guess]
	shared := make([]int, partsFor(n))
	diffs := make([]key16, len(shared))
	inParts(n, func(part, lo, hi int) {
		at, k0 := guess, keyAt(str0, guess)
		for i := lo; i < hi; i++ {
			p := s.str(i)
			if !strings.HasPrefix(p, first[:at]) {
				at = sharedFrom(p, first, 0)
			}
			k := keyAt(p, guess)
			putKey(keys, i, k)
			diffs[part].or(k, k0)
		}
		shared[part] = at
	})
	depth := slices.Min(shared)
	if depth < guess {
		k0 := keyAt(str0, depth)
		inParts(n, func(part, lo, hi int) {
			diffs[part] = key16{}
			for i := lo; i < hi; i++ {
				k := keyAt(s.str(i), depth)
				putKey(keys, i, k)
				diffs[part].or(k, k0)
			}
		})
	}
	var diff key16
	for _, d := range diffs {
		diff.or(d, key16{})
	}
	return depth, diff
}

// sharedFrom is how many bytes a and b share from offset at.
func sharedFrom(a, b string, at int) int {
	m := min(len(a), len(b))
	j := at
	for j < m && a[j] == b[j] {
		j++
	}
	return j - at
}

// key8 is the 8 bytes of p from depth as a big-endian integer, shorter
// strings padded with zeros: one that ends sorts before one that goes on,
// as no string holds a NUL.
func key8(p string, depth int) uint64 {
	var b [8]byte
	if depth < len(p) {
		copy(b[:], p[depth:])
	}
	return binary.BigEndian.Uint64(b[:])
}
