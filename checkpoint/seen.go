package checkpoint

import (
	"hash/maphash"

	"github.com/deltafs/deltafs/replay/action"
)

// Seen holds the logical files (decoded path, deletion-vector unique id)
// that commits newer than the checkpoint already decided; their checkpoint
// rows are dropped.
//
// Nearly every row of a big checkpoint is a file no newer commit touched,
// so a bit set of path hashes answers most questions before a map lookup
// would: at one bit in eight set, seven rows in eight skip the map.
type Seen struct {
	keys map[string]struct{}
	seed maphash.Seed
	bits []uint64 // bit hash%len of each path in keys
}

// NewSeen returns an empty set with room for n logical files, so that
// adding them grows neither the map nor the bit set.
func NewSeen(n int) *Seen {
	words := 64
	for words*64 < n*8 {
		words *= 2
	}
	return &Seen{keys: make(map[string]struct{}, n), seed: maphash.MakeSeed(), bits: make([]uint64, words)}
}

// Add records the logical file (path, dvID) and reports whether it is new.
func (s *Seen) Add(path, dvID string) bool {
	// One map operation, not a lookup then an insert: hashing and
	// comparing paths is most of what adding costs.
	n := len(s.keys)
	s.keys[action.LogicalKey(path, dvID)] = struct{}{}
	if len(s.keys) == n {
		return false
	}
	if len(s.keys)*8 > len(s.bits)*64 {
		s.bits = make([]uint64, len(s.bits)*2)
		for k := range s.keys {
			s.mark(pathOf(k))
		}
	} else {
		s.mark(path)
	}
	return true
}

// Has reports whether the logical file (path, dv) was seen. It is safe for
// concurrent use once the adding is done.
func (s *Seen) Has(path string, dv *action.DeletionVector) bool {
	if s == nil || len(s.keys) == 0 {
		return false
	}
	h := maphash.String(s.seed, path) % uint64(len(s.bits)*64)
	if s.bits[h/64]&(1<<(h%64)) == 0 {
		return false
	}
	_, ok := s.keys[action.LogicalKey(path, dv.UniqueID())]
	return ok
}

// Len is the number of logical files seen.
func (s *Seen) Len() int {
	if s == nil {
		return 0
	}
	return len(s.keys)
}

func (s *Seen) mark(path string) {
	h := maphash.String(s.seed, path) % uint64(len(s.bits)*64)
	s.bits[h/64] |= 1 << (h % 64)
}

// pathOf is the path part of a logical key. A path holding a NUL (a remove
// whose path could not be cleaned) loses its tail here, which is harmless:
// Has is only asked about cleaned paths, which hold no NUL.
func pathOf(key string) string {
	for i := 0; i < len(key); i++ {
		if key[i] == 0 {
			return key[:i]
		}
	}
	return key
}
