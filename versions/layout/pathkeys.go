package layout

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// sampleSize is how many strings, spread over all, sample reads.
const sampleSize = 256

// sample guesses, from strings spread over the n, the length of the
// prefix all share and how many words past it their keys should hold:
// the fewest whose bytes take, in the sample, enough distinct values to
// tell 64 times n strings apart (as if bytes were independent),
// so that few strings tie and need their strings read again, and no
// more words than the sampled strings reach. Both are guesses only:
// keyAll checks the prefix, and a key too short costs ties, not order.
func (s *sorter) sample(n int) (guess, words int) {
	// Spread at random (but the same each time): strings at a fixed step
	// can all fall on one value of a pattern that repeats at that step.
	picks := make([]int, min(n, sampleSize))
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	for k := range picks {
		picks[k] = rng.IntN(n)
	}
	picks[0] = 0
	str0 := s.str(0)
	guess = len(str0)
	longest := len(str0)
	for _, i := range picks[1:] {
		p := s.str(i)
		guess = sharedFrom(p[:min(guess, len(p))], str0[:guess], 0)
		longest = max(longest, len(p))
	}
	var seen [8 * maxWords][256]bool
	var distinct [8 * maxWords]int
	for _, i := range picks {
		p := s.str(i)
		for b := range min(len(p)-guess, len(seen)) {
			if c := p[guess+b]; !seen[b][c] {
				seen[b][c] = true
				distinct[b]++
			}
		}
	}
	need, have := float64(s.idxBits+6), 0.0
	for words = 1; words < maxWords && guess+8*words < longest; words++ {
		for _, d := range distinct[8*(words-1) : 8*words] {
			have += math.Log2(float64(max(d, 1)))
		}
		if have >= need {
			break
		}
	}
	return guess, words
}

// keyAll fills keys with the key of each string, words long, after the
// prefix all strings share, and returns that prefix's length and the
// bits in which the keys differ. The prefix guessed from a sample is
// checked while the keys are read: one pass over the strings, where
// finding the prefix and then reading the keys took two (they do not fit
// in a cache). A guess too long, found by the check, costs the second
// pass after all.
func (s *sorter) keyAll(keys []uint64, words, guess int) (int, diffBits) {
	n := len(keys) / words
	str0 := s.str(0)
	first := str0[:guess]
	shared := make([]int, partsFor(n))
	diffs := make([]diffBits, len(shared))
	read := func(depth int) func(part, lo, hi int) {
		return func(part, lo, hi int) {
			var k0, diff diffBits
			readKey(k0[:words], str0, depth)
			at := depth
			for i := lo; i < hi; i++ {
				p, k := s.str(i), keys[i*words:(i+1)*words]
				if !strings.HasPrefix(p, first[:at]) {
					at = sharedFrom(p, first, 0)
				}
				for w := range k { // readKey and add, by hand: neither is inlined
					k[w] = key8(p, depth+8*w)
					diff[w&(maxWords-1)] |= k[w] ^ k0[w&(maxWords-1)]
				}
			}
			diffs[part], shared[part] = diff, at
		}
	}
	inParts(n, read(guess))
	depth := slices.Min(shared)
	if depth < guess {
		inParts(n, read(depth))
	}
	var diff diffBits
	for _, d := range diffs {
		for w := range diff {
			diff[w] |= d[w]
		}
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
	if depth+8 <= len(p) { // one load
		s := p[depth : depth+8]
		return uint64(s[7]) | uint64(s[6])<<8 | uint64(s[5])<<16 | uint64(s[4])<<24 |
			uint64(s[3])<<32 | uint64(s[2])<<40 | uint64(s[1])<<48 | uint64(s[0])<<56
	}
	var b [8]byte
	if depth < len(p) {
		copy(b[:], p[depth:])
	}
	return binary.BigEndian.Uint64(b[:])
}
