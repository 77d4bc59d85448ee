package layout

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// radixSortBits sorts stably whatever the length, the width and how the
// keys spread: items hold their position below the key, so a stable sort
// by key leaves them in plain numeric order.
func TestRadixSortBitsStable(t *testing.T) {
	spreads := map[string]func(rng *rand.Rand, width int) uint64{
		"uniform": func(rng *rand.Rand, width int) uint64 { return rng.Uint64N(1 << width) },
		// Nearly all items in one part of a split by the top digit.
		"one-part": func(rng *rand.Rand, width int) uint64 {
			if rng.IntN(100_000) == 0 {
				return 1<<width - 1
			}
			return rng.Uint64N(1 << max(1, width-maxDigitBits))
		},
		"few-values": func(rng *rand.Rand, width int) uint64 { return uint64(rng.IntN(3)) << (width - 2) },
		"low-bits":   func(rng *rand.Rand, width int) uint64 { return rng.Uint64N(1<<width) & 0x3f },
	}
	for _, n := range []int{50, 5_000, 70_000, 300_000} {
		lo := bits.Len(uint(n))
		for _, width := range []int{3, 12, 30, 64 - lo} {
			for name, key := range spreads {
				t.Run(fmt.Sprintf("%d/%d/%s", n, width, name), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(n), uint64(width)))
					items := make([]uint64, n)
					for i := range items {
						items[i] = key(rng, width)<<lo | uint64(i)
					}
					want := slices.Sorted(slices.Values(items))
					radixSortBits(items, make([]uint64, n), lo, width)
					if !slices.Equal(items, want) {
						t.Fatal("not sorted stably")
					}
				})
			}
		}
	}
}

// FuzzRadixSortBits: any length, width and spread of keys (a few values
// or many, crowded in a few parts of a split or not) sorts stably.
func FuzzRadixSortBits(f *testing.F) {
	f.Add(uint64(1), uint32(70_000), uint8(30), uint8(0), uint8(3))
	f.Add(uint64(2), uint32(20_000), uint8(40), uint8(200), uint8(1))
	f.Fuzz(func(t *testing.T, seed uint64, n uint32, width, crowd, values uint8) {
		n = n % 300_000
		lo := bits.Len(uint(n))
		w := 1 + int(width)%(64-lo)
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		distinct := uint64(1) << min(w, 1+int(values)%40) // how many keys may differ
		items := make([]uint64, n)
		for i := range items {
			k := rng.Uint64N(distinct)
			if rng.IntN(256) < int(crowd) { // crowd one part of a split
				k &= 1<<max(0, w-maxDigitBits) - 1
			}
			items[i] = k<<(w-bits.Len64(distinct-1))&(1<<w-1)<<lo | uint64(i)
		}
		want := slices.Sorted(slices.Values(items))
		radixSortBits(items, make([]uint64, n), lo, w)
		if !slices.Equal(items, want) {
			t.Fatalf("%d items of %d bits: not sorted stably", n, w)
		}
	})
}
