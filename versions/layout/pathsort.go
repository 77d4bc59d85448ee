package layout

import (
	"encoding/binary"
	"runtime"
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
// sort walk them; instead they are sorted by the 8 bytes after their
// common prefix, as integers (a radix sort), and each run of equal keys
// again by the next 8 bytes after its own common prefix, until runs are
// single strings or equal ones. The first two keys are read in one pass
// over strs in the order given; only runs still tied after 16 bytes read
// strings again.
func Order(strs []string) []int {
	ks := make([]sortKey, len(strs))
	if len(ks) > 1 {
		depth := keyAll(strs, ks)
		var scratch []sortKey
		sortRun(strs, ks, depth, true, true, &scratch)
	}
	order := make([]int, len(ks))
	for i, k := range ks {
		order[i] = int(k.i)
	}
	return order
}

// sortKey is a string's index, the 8 bytes of it being sorted on, and
// the 8 bytes after them where read together (see sortRun).
type sortKey struct {
	key  uint64
	next uint64
	i    int32
}

// parallelRunMin is the run length from which the runs of equal keys are
// sorted on every core.
const parallelRunMin = 1 << 14

// sortRun sorts ks by string, knowing their strings share at least depth
// bytes. If keyed, their keys already hold the 8 bytes from depth, and if
// hasNext too, their next fields the 8 bytes after: the first level's runs
// then take their keys from there, without reading a string. Otherwise
// keys come from the strings, read in sorted order, scattered in memory,
// once per 8 bytes. A key whose last byte is 0 is a string that ends
// within it (strs hold no NUL): equal keys of that kind are equal strings.
func sortRun(strs []string, ks []sortKey, depth int, keyed, hasNext bool, scratch *[]sortKey) {
	if len(ks) < 2 {
		return
	}
	for {
		if !keyed {
			for j := range ks {
				ks[j].key = key8(strs[ks[j].i], depth)
			}
		}
		radixSort(ks, scratch)
		if ks[0].key != ks[len(ks)-1].key {
			break
		}
		if ks[0].key&0xff == 0 {
			return // one key for all, and the strings end in it: all equal
		}
		depth += 8 // one key for all: the next 8 bytes
		keyed = hasNext
		if hasNext {
			nextKeys(ks)
			hasNext = false
		}
	}
	// Runs of equal keys whose strings go on past the key need the next 8
	// bytes; a long slice has its runs sorted on every core.
	type run struct{ lo, hi int }
	var runs []run
	for lo := 0; lo < len(ks); {
		hi := lo + 1
		for hi < len(ks) && ks[hi].key == ks[lo].key {
			hi++
		}
		if hi-lo > 1 && ks[lo].key&0xff != 0 {
			runs = append(runs, run{lo, hi})
		}
		lo = hi
	}
	if hasNext {
		nextKeys(ks)
	}
	workers := runtime.GOMAXPROCS(0)
	if len(ks) < parallelRunMin || workers < 2 || len(runs) < 2 {
		for _, r := range runs {
			sortRun(strs, ks[r.lo:r.hi], depth+8, hasNext, false, scratch)
		}
		return
	}
	next := make(chan run)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			var own []sortKey
			for r := range next {
				sortRun(strs, ks[r.lo:r.hi], depth+8, hasNext, false, &own)
			}
		})
	}
	for _, r := range runs {
		next <- r
	}
	close(next)
	wg.Wait()
}

// nextKeys moves each key's next 8 bytes into its key.
func nextKeys(ks []sortKey) {
	for j := range ks {
		ks[j].key = ks[j].next
	}
}

// keyAll fills ks with the index of each string and its first two keys
// after the prefix all strings share, and returns that prefix's length.
// The prefix is guessed from a few strings spread over strs, and checked
// while the keys are read: one pass over strs, where finding the prefix
// and then reading the keys took two (strs do not fit in a cache). A guess
// too long, found by the check, costs the second pass after all.
func keyAll(strs []string, ks []sortKey) int {
	const samples = 64
	step := max(len(strs)/samples, 1)
	guess := len(strs[0])
	for i := step; i < len(strs); i += step {
		guess = min(guess, len(strs[i]))
		guess = sharedFrom(strs[i][:guess], strs[0][:guess], 0)
	}
	first, n := strs[0][:guess], guess
	for i, p := range strs {
		if !strings.HasPrefix(p, first[:n]) {
			n = sharedFrom(p, first, 0)
		}
		ks[i] = sortKey{key: key8(p, guess), next: key8(p, guess+8), i: int32(i)}
	}
	if n < guess {
		for i, p := range strs {
			ks[i].key, ks[i].next = key8(p, n), key8(p, n+8)
		}
	}
	return n
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

// radixSort sorts ks by key, stably: a least-significant-digit radix sort
// (16-bit digits for a long slice, 8-bit ones for a short one, whose
// counting table would cost more to clear than its passes save), skipping
// the digits all keys share.
func radixSort(ks []sortKey, scratch *[]sortKey) {
	if len(ks) < 64 {
		for i := 1; i < len(ks); i++ { // insertion sort
			for j := i; j > 0 && ks[j].key < ks[j-1].key; j-- {
				ks[j], ks[j-1] = ks[j-1], ks[j]
			}
		}
		return
	}
	if cap(*scratch) < len(ks) {
		*scratch = make([]sortKey, len(ks))
	}
	bits := 8
	if len(ks) >= 1<<16 {
		bits = 16
	}
	count := make([]int, 1<<bits)
	mask := uint64(len(count) - 1)
	src, dst := ks, (*scratch)[:len(ks)]
	for shift := 0; shift < 64; shift += bits {
		clear(count)
		for _, k := range src {
			count[(k.key>>shift)&mask]++
		}
		if count[(src[0].key>>shift)&mask] == len(src) {
			continue // one digit for all: nothing to move
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, k := range src {
			d := (k.key >> shift) & mask
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &ks[0] {
		copy(ks, src)
	}
}

// keysSorted reports whether ks is already ordered by key.
func keysSorted(ks []sortKey) bool {
	for j := 1; j < len(ks); j++ {
		if ks[j].key < ks[j-1].key {
			return false
		}
	}
	return true
}
