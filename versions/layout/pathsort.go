package layout

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/deltafs/deltafs/replay"
)

// PathOrder returns the indexes of files in the order of their stored
// paths (deltafs ls).
func PathOrder(files []replay.File) []int32 {
	return orderOf(len(files), func(i int) string { return files[i].Path })
}

// orderOf returns the indexes of the n strings str gives in sorted
// order; they hold no NUL (paths, served names). They share long
// prefixes ("date=2024-01-01/part-"), which make every comparison of a
// comparison sort walk them; instead the bytes after their common prefix
// are read as big-endian words (a key), of which only the bits that
// differ between strings are kept, packed into one word above the
// string's index and sorted by a radix sort (see packing). Strings whose
// packed bits tie agree on more than the prefix and are sorted again the
// same way past what they agree on. The keys are read in one pass over
// the strings in the order given, as many words as a sample says are
// needed to tell strings apart (see sample); only ties read strings
// again. The strings come from a function, not a slice: a slice of a
// million paths copied out of their files was 16 MB of new memory to
// fault in.
func orderOf(n int, str func(int) string) []int32 {
	s := sorter{str: str, idxBits: bits.Len(uint(n))}
	s.idxMask = 1<<s.idxBits - 1
	if n < 2 {
		return make([]int32, n)
	}
	guess, words := s.sample(n)
	return s.order(n, guess, words)
}

// order sorts the n strings, at least two, keyed by words words past the
// guessed prefix.
func (s *sorter) order(n, guess, words int) []int32 {
	order := make([]int32, n)
	keys := make([]uint64, words*n)
	depth, diff := s.keyAll(keys, words, guess)
	items := make([]uint64, n)
	inParts(n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			items[i] = uint64(i)
		}
	})
	s.sort(items, keys, words, &diff, depth, &sortScratch{})
	inParts(n, func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			order[k] = int32(items[k] & s.idxMask)
		}
	})
	return order
}

// maxWords is the most words of a string a key holds.
const maxWords = 4

// tieWords is how many words the keys of tied strings hold.
const tieWords = 2

// A key is a string's bytes from some depth as big-endian words, zero past
// the string's end; a slice of keys holds them one after another, and the
// radix sort reuses it once they are packed. diffBits is the bits in
// which a set of keys differ.
type diffBits [maxWords]uint64

// readKey fills k with p's words from depth.
func readKey(k []uint64, p string, depth int) {
	for w := range k {
		k[w] = key8(p, depth+8*w)
	}
}

// add adds to d the bits in which keys a and b differ.
func (d *diffBits) add(a, b []uint64) {
	for w := range a {
		d[w] |= a[w] ^ b[w]
	}
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
// keys holds the key of each item's string from depth, words long, and
// diff the bits in which they differ.
func (s *sorter) sort(items, keys []uint64, words int, diff *diffBits, depth int, scratch *sortScratch) {
	p := packingFor(diff, words, 64-s.idxBits)
	inParts(len(items), func(_, lo, hi int) {
		for j := lo; j < hi; j++ {
			items[j] = p.pack(keys[j*words:(j+1)*words])<<s.idxBits | items[j]&s.idxMask
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
	sortTies := func(runs []run, scratch *sortScratch) {
		for _, r := range runs {
			s.sortTies(items[r.lo:r.hi], depth, scratch)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if tied < parallelMin || workers < 2 || len(runs) < 2 {
		sortTies(runs, scratch)
		return
	}
	// Runs are taken a batch at a time: most are a pair or two.
	const batch = 64
	var taken atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var own sortScratch
			for {
				lo := int(taken.Add(batch)) - batch
				if lo >= len(runs) {
					return
				}
				sortTies(runs[lo:min(lo+batch, len(runs))], &own)
			}
		})
	}
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
	if cap(scratch.keys) < tieWords*len(items) {
		scratch.keys = make([]uint64, tieWords*len(items))
	}
	// sort is done with the keys once packed and sorted by: the ties it
	// sorts next read theirs into the same buffer.
	keys := scratch.keys[:tieWords*len(items)]
	var diff diffBits
	for j, it := range items {
		k := keys[j*tieWords : (j+1)*tieWords]
		readKey(k, s.strOf(it), depth)
		diff.add(k, keys[:tieWords])
	}
	s.sort(items, keys, tieWords, &diff, depth, scratch)
}
