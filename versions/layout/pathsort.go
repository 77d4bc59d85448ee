package layout

import (
	"encoding/binary"
	"runtime"
	"strings"
	"sync"

	"github.com/deltafs/deltafs/replay"
)

// PathOrder returns the indexes of files in the order of their stored
// paths (deltafs ls). Paths share long prefixes ("date=2024-01-01/part-"),
// which make every comparison of a comparison sort walk them; instead the
// files are sorted by the 8 bytes after their common prefix, as integers
// (a radix sort), and each run of equal keys again by the next 8 bytes
// after its own common prefix, until runs are single files or equal paths.
func PathOrder(files []replay.File) []int {
	ks := make([]pathKey, len(files))
	for i := range files {
		ks[i].i = int32(i)
	}
	var scratch []pathKey
	sortRun(files, ks, 0, &scratch)
	order := make([]int, len(ks))
	for i, k := range ks {
		order[i] = int(k.i)
	}
	return order
}

// pathKey is a file's index and the 8 bytes of its path being sorted on.
type pathKey struct {
	key uint64
	i   int32
}

// parallelRunMin is the run length from which the runs of equal keys are
// sorted on every core.
const parallelRunMin = 1 << 14

// sortRun sorts ks by path, knowing their paths share at least depth
// bytes. Only the first call looks for a longer common prefix: it reads
// the paths in the order they are stored; a run reads them in sorted
// order, scattered in memory, so a run reads each path once per 8 bytes.
func sortRun(files []replay.File, ks []pathKey, depth int, scratch *[]pathKey) {
	if len(ks) < 2 {
		return
	}
	if depth == 0 {
		depth = commonPrefix(files, ks, 0)
	}
	for {
		done := true // every path ends before depth: all equal
		for j := range ks {
			p := files[ks[j].i].Path
			ks[j].key = key8(p, depth)
			if len(p) > depth {
				done = false
			}
		}
		if done {
			return
		}
		radixSort(ks, scratch)
		if ks[0].key != ks[len(ks)-1].key {
			break
		}
		depth += 8 // one key for all: the next 8 bytes
	}
	// Runs of equal keys whose paths go on past the key need the next 8
	// bytes; a long slice has its runs sorted on every core.
	type run struct{ lo, hi int }
	var runs []run
	for lo := 0; lo < len(ks); {
		hi := lo + 1
		for hi < len(ks) && ks[hi].key == ks[lo].key {
			hi++
		}
		if hi-lo > 1 {
			runs = append(runs, run{lo, hi})
		}
		lo = hi
	}
	workers := runtime.GOMAXPROCS(0)
	if len(ks) < parallelRunMin || workers < 2 || len(runs) < 2 {
		for _, r := range runs {
			sortRun(files, ks[r.lo:r.hi], depth+8, scratch)
		}
		return
	}
	next := make(chan run)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			var own []pathKey
			for r := range next {
				sortRun(files, ks[r.lo:r.hi], depth+8, &own)
			}
		})
	}
	for _, r := range runs {
		next <- r
	}
	close(next)
	wg.Wait()
}

// commonPrefix is the length of the prefix the paths of ks share, knowing
// they share at least known bytes.
func commonPrefix(files []replay.File, ks []pathKey, known int) int {
	first := files[ks[0].i].Path
	n := len(first)
	for _, k := range ks[1:] {
		p := files[k.i].Path
		n = min(n, len(p))
		if !strings.HasPrefix(p, first[:n]) { // memequal; shrinks rarely
			k := min(known, n)
			n = k + sharedFrom(p, first, k)
		}
		if n == known {
			break
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
// paths padded with zeros. A path that ends sorts before one that goes on
// with a NUL only in theory: cleaned paths hold no NUL.
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
func radixSort(ks []pathKey, scratch *[]pathKey) {
	if len(ks) < 64 {
		for i := 1; i < len(ks); i++ { // insertion sort
			for j := i; j > 0 && ks[j].key < ks[j-1].key; j-- {
				ks[j], ks[j-1] = ks[j-1], ks[j]
			}
		}
		return
	}
	if cap(*scratch) < len(ks) {
		*scratch = make([]pathKey, len(ks))
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
func keysSorted(ks []pathKey) bool {
	for j := 1; j < len(ks); j++ {
		if ks[j].key < ks[j-1].key {
			return false
		}
	}
	return true
}
