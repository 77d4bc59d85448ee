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
func PathOrder(files []replay.File) []int {
	paths := make([]string, len(files))
	for i := range files {
		paths[i] = files[i].Path
	}
	return Order(paths)
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
func Order(strs []string) []int {
	s := sorter{strs: strs, idxBits: bits.Len(uint(len(strs)))}
	s.idxMask = 1<<s.idxBits - 1
	items := make([]uint64, len(strs))
	if len(strs) > 1 {
		keys := make([]key16, len(strs))
		depth, diff := keyAll(strs, keys)
		inParts(len(items), func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				items[i] = uint64(i)
			}
		})
		var scratch sortScratch
		s.sort(items, keys, diff, depth, &scratch)
	}
	order := make([]int, len(items))
	inParts(len(items), func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			order[k] = int(items[k] & s.idxMask)
		}
	})
	return order
}

// key16 is the 16 bytes of a string from some depth as two big-endian
// integers, zero past the string's end.
type key16 struct{ hi, lo uint64 }

func keyAt(p string, depth int) key16 {
	return key16{key8(p, depth), key8(p, depth+8)}
}

// or adds to d the bits in which a and b differ.
func (d *key16) or(a, b key16) {
	d.hi |= a.hi ^ b.hi
	d.lo |= a.lo ^ b.lo
}

// sorter sorts items: a string's index in the low idxBits bits, above it
// the packed bits of its key being sorted on.
type sorter struct {
	strs    []string
	idxBits int
	idxMask uint64
}

// sortScratch is what one goroutine reuses between the runs it sorts.
type sortScratch struct {
	items []uint64
	keys  []key16
}

// smallRunMax is the run length up to which strings are compared as
// strings (an insertion sort) rather than keyed and radix sorted.
const smallRunMax = 16

// sort sorts items, whose strings share at least depth bytes, by string;
// keys[j] holds the 16 bytes from depth of items[j]'s string, and diff
// the bits in which keys differ.
func (s *sorter) sort(items []uint64, keys []key16, diff key16, depth int, scratch *sortScratch) {
	p := packingFor(diff, 64-s.idxBits)
	inParts(len(items), func(_, lo, hi int) {
		for j := lo; j < hi; j++ {
			items[j] = p.pack(keys[j])<<s.idxBits | items[j]&s.idxMask
		}
	})
	radixSortBits(items, &scratch.items, s.idxBits, p.width)
	// Runs of equal packed keys agree on the first p.agreed bytes from
	// depth; those that go on past them are sorted past them.
	var runs []run
	tied := 0
	for lo := 0; lo < len(items); {
		hi := lo + 1
		for hi < len(items) && items[hi]>>s.idxBits == items[lo]>>s.idxBits {
			hi++
		}
		if hi-lo > 1 && len(s.strs[items[lo]&s.idxMask]) >= depth+p.agreed {
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
			for j := i; j > 0 && s.strs[items[j]&s.idxMask][depth:] < s.strs[items[j-1]&s.idxMask][depth:]; j-- {
				items[j], items[j-1] = items[j-1], items[j]
			}
		}
		return
	}
	if cap(scratch.keys) < len(items) {
		scratch.keys = make([]key16, len(items))
	}
	// sort is done with the keys once packed: the ties it sorts next
	// read theirs into the same buffer.
	keys := scratch.keys[:len(items)]
	var diff key16
	for j, it := range items {
		keys[j] = keyAt(s.strs[it&s.idxMask], depth)
		diff.or(keys[j], keys[0])
	}
	s.sort(items, keys, diff, depth, scratch)
}

// keyAll fills keys with the first 16 bytes of each string after the
// prefix all strings share, and returns that prefix's length and the
// bits in which keys differ. The prefix is guessed from a few strings
// spread over strs, and checked while the keys are read: one pass over
// strs, where finding the prefix and then reading the keys took two
// (strs do not fit in a cache). A guess too long, found by the check,
// costs the second pass after all.
func keyAll(strs []string, keys []key16) (int, key16) {
	const samples = 64
	step := max(len(strs)/samples, 1)
	guess := len(strs[0])
	for i := step; i < len(strs); i += step {
		guess = min(guess, len(strs[i]))
		guess = sharedFrom(strs[i][:guess], strs[0][:guess], 0)
	}
	first := strs[0][:guess]
	shared := make([]int, partsFor(len(strs)))
	diffs := make([]key16, len(shared))
	inParts(len(strs), func(part, lo, hi int) {
		n, k0 := guess, keyAt(strs[0], guess)
		for i := lo; i < hi; i++ {
			if !strings.HasPrefix(strs[i], first[:n]) {
				n = sharedFrom(strs[i], first, 0)
			}
			keys[i] = keyAt(strs[i], guess)
			diffs[part].or(keys[i], k0)
		}
		shared[part] = n
	})
	n := slices.Min(shared)
	if n < guess {
		k0 := keyAt(strs[0], n)
		inParts(len(strs), func(part, lo, hi int) {
			diffs[part] = key16{}
			for i := lo; i < hi; i++ {
				keys[i] = keyAt(strs[i], n)
				diffs[part].or(keys[i], k0)
			}
		})
	}
	var diff key16
	for _, d := range diffs {
		diff.or(d, key16{})
	}
	return n, diff
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
