package fs

import (
	"hash/fnv"
	"strconv"
)

// Fixed inode numbers of the nodes that are not inside a version.
const (
	inoRoot     = 1
	inoLatest   = 2
	inoVersions = 3
	inoHistory  = 4
	inoAt       = 5
	inoChanges  = 6
	inoReserved = 16 // hashed numbers below this are moved up
)

// Node kinds mixed into inode hashes, so a file and a directory of the same
// path never share a number.
const (
	kindDir     = 'd'
	kindFile    = 'f'
	kindChanges = 'c' // changes/<N>
)

// ino returns the deterministic inode number of the node of a kind at a
// path (relative to the version directory, "" for the version directory
// itself) in a version: FNV-64a of the three, with the top bit cleared to
// stay clear of go-fuse's automatic numbers.
func ino(version int64, kind byte, path string) uint64 {
	h := fnv.New64a()
	var buf [24]byte
	b := strconv.AppendInt(buf[:0], version, 10)
	b = append(b, 0, kind, 0)
	h.Write(b)
	h.Write([]byte(path))
	n := h.Sum64() &^ (1 << 63)
	if n < inoReserved {
		n += inoReserved
	}
	return n
}
