package dvfilter

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Constants of the 32-bit roaring serialization (RoaringFormatSpec).
const (
	cookieRuns        = 12347 // low 16 bits; high 16 bits hold containers-1
	cookieNoRuns      = 12346 // followed by a uint32 container count
	noOffsetThreshold = 4     // run-format bitmaps with fewer containers omit offsets
	maxContainers     = 1 << 16
	arrayMaxCard      = 4096 // containers above this cardinality are bitsets
	bitsetBytes       = 8192
)

// byteReader reads little-endian values from a slice with bounds checks.
type byteReader struct {
	buf []byte
	pos int
}

func (r *byteReader) remaining() int { return len(r.buf) - r.pos }

func (r *byteReader) next(n int, what string) ([]byte, error) {
	if n < 0 || n > r.remaining() {
		return nil, fmt.Errorf("%s needs %d bytes at offset %d, %d left", what, n, r.pos, r.remaining())
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b, nil
}

func (r *byteReader) u16(what string) (uint16, error) {
	b, err := r.next(2, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(b), nil
}

func (r *byteReader) u32(what string) (uint32, error) {
	b, err := r.next(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

// scanRoaring32 checks that buf begins with one complete, well-formed 32-bit
// roaring bitmap in the portable format, in time linear in its size, and
// returns its length in bytes and its cardinality. It checks what a reader
// relies on: container keys strictly ascending, array values strictly
// ascending, runs in range, ascending and disjoint, bitset popcounts equal
// to the declared cardinality, no empty run container. Offsets in the
// offset header are skipped, as the reference readers do.
//
// After this check the roaring library's reader only sees well-formed input
// of a known length.
func scanRoaring32(buf []byte) (int, uint64, error) {
	r := &byteReader{buf: buf}
	cookie, err := r.u32("cookie")
	if err != nil {
		return 0, 0, err
	}
	var size int
	var isRun []byte
	switch {
	case cookie&0xFFFF == cookieRuns:
		size = int(cookie>>16) + 1
		if isRun, err = r.next((size+7)/8, "run flags"); err != nil {
			return 0, 0, err
		}
	case cookie == cookieNoRuns:
		n, err := r.u32("container count")
		if err != nil {
			return 0, 0, err
		}
		if n > maxContainers {
			return 0, 0, fmt.Errorf("container count %d exceeds %d", n, maxContainers)
		}
		size = int(n)
	default:
		return 0, 0, fmt.Errorf("unknown cookie %#x", cookie)
	}
	header, err := r.next(4*size, "container headers")
	if err != nil {
		return 0, 0, err
	}
	if isRun == nil || size >= noOffsetThreshold {
		if _, err := r.next(4*size, "container offsets"); err != nil {
			return 0, 0, err
		}
	}
	var card uint64
	for i := 0; i < size; i++ {
		key := binary.LittleEndian.Uint16(header[4*i:])
		if i > 0 && key <= binary.LittleEndian.Uint16(header[4*(i-1):]) {
			return 0, 0, fmt.Errorf("container key %d at index %d is not above the previous key", key, i)
		}
		declared := int(binary.LittleEndian.Uint16(header[4*i+2:])) + 1
		var c int
		switch {
		case isRun != nil && isRun[i/8]&(1<<(i%8)) != 0:
			c, err = scanRuns(r)
		case declared > arrayMaxCard:
			c, err = scanBitset(r, declared)
		default:
			c, err = scanArray(r, declared)
		}
		if err != nil {
			return 0, 0, fmt.Errorf("container %d (key %d): %w", i, key, err)
		}
		card += uint64(c)
	}
	return r.pos, card, nil
}

func scanRuns(r *byteReader) (int, error) {
	n, err := r.u16("run count")
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, fmt.Errorf("run container has no runs")
	}
	b, err := r.next(4*int(n), "runs")
	if err != nil {
		return 0, err
	}
	card, nextFree := 0, 0 // nextFree: smallest value a following run may start at
	for i := 0; i < int(n); i++ {
		start := int(binary.LittleEndian.Uint16(b[4*i:]))
		length := int(binary.LittleEndian.Uint16(b[4*i+2:])) + 1
		if start < nextFree {
			return 0, fmt.Errorf("run %d starting at %d overlaps or precedes the previous run", i, start)
		}
		if start+length > 1<<16 {
			return 0, fmt.Errorf("run %d [%d, +%d) passes 65535", i, start, length)
		}
		nextFree = start + length
		card += length
	}
	return card, nil
}

func scanBitset(r *byteReader, declared int) (int, error) {
	b, err := r.next(bitsetBytes, "bitset")
	if err != nil {
		return 0, err
	}
	count := 0
	for i := 0; i < len(b); i += 8 {
		count += bits.OnesCount64(binary.LittleEndian.Uint64(b[i:]))
	}
	if count != declared {
		return 0, fmt.Errorf("bitset holds %d values, header says %d", count, declared)
	}
	return count, nil
}

func scanArray(r *byteReader, declared int) (int, error) {
	b, err := r.next(2*declared, "array")
	if err != nil {
		return 0, err
	}
	for i := 1; i < declared; i++ {
		if binary.LittleEndian.Uint16(b[2*i:]) <= binary.LittleEndian.Uint16(b[2*i-2:]) {
			return 0, fmt.Errorf("array value at index %d is not above the previous value", i)
		}
	}
	return declared, nil
}
