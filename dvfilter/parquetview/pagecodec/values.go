package pagecodec

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/thriftcheck"
)

// parquet-go's value and level decoders trust the counts a page's encoded
// bytes give: an RLE run claiming 2^31 levels in 6 bytes, a dictionary
// index run as long, a DELTA_BINARY_PACKED header claiming 2^31 values,
// each had it allocate gigabytes (fatal: out of memory), and a page
// header's value count sizes its buffers. CheckValues walks the run and
// block headers, not the values, and holds what they claim to the page's
// value count, and that count to the page's size.

// Column is what CheckValues needs to know of a page's column.
type Column struct {
	MaxDef, MaxRep int
	Type           format.Type
	TypeLength     int // of a FIXED_LEN_BYTE_ARRAY
}

// FixedBits is the bits a PLAIN value of c takes when all its values take
// the same: 0 for byte arrays.
func (c Column) FixedBits() int64 {
	switch c.Type {
	case format.Boolean:
		return 1
	case format.Int32, format.Float:
		return 32
	case format.Int64, format.Double:
		return 64
	case format.Int96:
		return 96
	case format.FixedLenByteArray:
		return 8 * int64(c.TypeLength)
	}
	return 0
}

// MaxValues is the most values a page of full bytes decompressed may
// claim: run-length encoding lets a small page hold many (a page of nulls
// is a few bytes of levels), but not billions.
func MaxValues(full int64) int64 { return 64*max(full, 0) + 1<<20 }

// CheckValues checks a page whose header is h, of column c: levels are
// the levels a v2 data page stores uncompressed ahead of its values, body
// the rest, decompressed only as far as the check needs: the levels at
// the start of a v1 page, all of it for values whose encoding claims
// counts (dictionary indexes, RLE, DELTA); PLAIN values claim nothing.
func CheckValues(h *format.PageHeader, levels []byte, body *Body, c Column) error {
	switch {
	case h.DictionaryPageHeader.Valid:
		return checkDictionary(&h.DictionaryPageHeader.V, body.Full, c)
	case h.DataPageHeader.Valid:
		dh := &h.DataPageHeader.V
		n := int64(dh.NumValues)
		if err := checkCount(n, body.Full); err != nil {
			return err
		}
		off := 0 // where the values start, past the levels
		for _, l := range []struct {
			name     string
			maxLevel int
			enc      format.Encoding
		}{{"repetition", c.MaxRep, dh.RepetitionLevelEncoding}, {"definition", c.MaxDef, dh.DefinitionLevelEncoding}} {
			if l.maxLevel == 0 {
				continue
			}
			size, err := checkV1Levels(l.enc, body, off, l.maxLevel, n)
			if err != nil {
				return fmt.Errorf("%s levels: %w", l.name, err)
			}
			off += size
		}
		return checkEncoded(dh.Encoding, body, off, n)
	case h.DataPageHeaderV2.Valid:
		dh := &h.DataPageHeaderV2.V
		n := int64(dh.NumValues)
		if dh.NumRows < 0 || dh.NumNulls < 0 || int64(dh.NumRows) > n || int64(dh.NumNulls) > n {
			return fmt.Errorf("page of %d values claims %d rows, %d nulls", n, dh.NumRows, dh.NumNulls)
		}
		if err := checkCount(n, int64(len(levels))+body.Full); err != nil {
			return err
		}
		rl, dl := int(dh.RepetitionLevelsByteLength), int(dh.DefinitionLevelsByteLength)
		if rl < 0 || dl < 0 || rl+dl != len(levels) {
			return fmt.Errorf("levels of %d and %d bytes in %d", rl, dl, len(levels))
		}
		if err := checkRuns(levels[:rl], c.MaxRep, n); err != nil {
			return fmt.Errorf("repetition levels: %w", err)
		}
		if err := checkRuns(levels[rl:], c.MaxDef, n); err != nil {
			return fmt.Errorf("definition levels: %w", err)
		}
		return checkEncoded(dh.Encoding, body, 0, n-int64(dh.NumNulls))
	}
	return nil
}

func checkCount(n, full int64) error {
	if n < 0 || n > MaxValues(full) {
		return fmt.Errorf("page of %d bytes claims %d values", full, n)
	}
	return nil
}

// checkDictionary holds a dictionary page's value count to its bytes;
// parquet-go decodes a dictionary in any encoding, but only PLAIN is
// written (PLAIN_DICTIONARY is its old name).
func checkDictionary(dh *format.DictionaryPageHeader, full int64, c Column) error {
	if dh.Encoding != format.Plain && dh.Encoding != format.PlainDictionary {
		return fmt.Errorf("dictionary page encoded %v", dh.Encoding)
	}
	if c.Type == format.FixedLenByteArray && (c.TypeLength < 0 || c.TypeLength > thriftcheck.MaxTypeLength) {
		return fmt.Errorf("values of %d bytes", c.TypeLength)
	}
	n, room := int64(dh.NumValues), full*8 // bits
	bitsEach := c.FixedBits()
	if c.Type == format.ByteArray {
		bitsEach = 32 // its length prefix
	}
	if n < 0 || n*bitsEach > room || (bitsEach == 0 && n > MaxValues(full)) {
		return fmt.Errorf("dictionary page of %d bytes claims %d values", full, n)
	}
	return nil
}

// checkV1Levels checks the levels at off in a v1 page's body, prefixed by
// their length when RLE (BIT_PACKED, deprecated, has no runs to claim
// anything), and returns how many bytes they take.
func checkV1Levels(enc format.Encoding, body *Body, off, maxLevel int, n int64) (int, error) {
	if enc != format.RLE {
		size := (n*int64(bits.Len(uint(maxLevel))) + 7) / 8
		if size > body.Full-int64(off) {
			return 0, fmt.Errorf("%d bit-packed levels in %d bytes", n, body.Full-int64(off))
		}
		return int(size), nil
	}
	head, err := body.Prefix(off + 4)
	if err != nil {
		return 0, err
	}
	if len(head) < off+4 {
		return 0, fmt.Errorf("no length in %d bytes", len(head)-off)
	}
	size := int64(binary.LittleEndian.Uint32(head[off:]))
	if size > body.Full-int64(off)-4 {
		return 0, fmt.Errorf("%d bytes claimed in %d", size, body.Full-int64(off)-4)
	}
	runs, err := body.Prefix(off + 4 + int(size))
	if err != nil {
		return 0, err
	}
	return 4 + int(size), checkRuns(runs[off+4:], maxLevel, n)
}

// lengthPrefixed returns the runs after the 4-byte little-endian length
// at data's start.
func lengthPrefixed(data []byte) ([]byte, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("no length in %d bytes", len(data))
	}
	size := binary.LittleEndian.Uint32(data)
	if int64(size) > int64(len(data)-4) {
		return nil, fmt.Errorf("%d bytes claimed in %d", size, len(data)-4)
	}
	return data[4 : 4+size], nil
}

// checkRuns checks levels of up to maxLevel encoded RLE (runs, no length).
func checkRuns(runs []byte, maxLevel int, n int64) error {
	if maxLevel == 0 {
		return nil
	}
	return hybridRuns(runs, bits.Len(uint(maxLevel)), n)
}

// checkEncoded checks the values at off in a data page's body, at most n
// of them, where their encoding claims counts.
func checkEncoded(enc format.Encoding, body *Body, off int, n int64) error {
	var data []byte
	var err error
	switch enc {
	case format.DeltaBinaryPacked, format.DeltaLengthByteArray:
		// Their header's count sizes what parquet-go allocates; the
		// blocks after it only fill that room.
		data, err = body.Prefix(off + deltaHeaderMax)
	case format.RLEDictionary, format.PlainDictionary, format.RLE, format.DeltaByteArray:
		data, err = body.All()
	default:
		return nil // PLAIN and BYTE_STREAM_SPLIT values are sized by their bytes
	}
	if err != nil {
		return err
	}
	if off > len(data) {
		return fmt.Errorf("levels past the page's end")
	}
	if data = data[off:]; len(data) == 0 {
		return nil // no value stored: every one null
	}
	switch enc {
	case format.RLEDictionary, format.PlainDictionary:
		if width := int(data[0]); width > 32 {
			return fmt.Errorf("dictionary indexes of %d bits", width)
		}
		return hybridRuns(data[1:], int(data[0]), n)
	case format.RLE: // booleans, length-prefixed
		runs, err := lengthPrefixed(data)
		if err != nil {
			return fmt.Errorf("RLE values: %w", err)
		}
		return hybridRuns(runs, 1, n)
	case format.DeltaByteArray:
		return checkDeltaByteArray(data, n)
	}
	_, err = deltaHeader(data, n)
	return err
}

// hybridRuns walks RLE/bit-packed hybrid runs of width bits and refuses
// them where they claim more than runsSlack allows past n values: readers
// stop at the page's count, and writers pad (DuckDB's runs go on some
// dozens of values past it).
func hybridRuns(b []byte, width int, n int64) error {
	limit := uint64(runsSlack(n))
	var count uint64
	valueBytes := (width + 7) / 8
	for len(b) > 0 {
		h, k := binary.Uvarint(b)
		if k <= 0 {
			return fmt.Errorf("run header unreadable")
		}
		b = b[k:]
		values, size := h>>1, uint64(valueBytes)
		if h&1 == 1 { // bit-packed: groups of 8 values
			if values > limit/8 {
				return fmt.Errorf("a run claims %d values, the page %d", values*8, n)
			}
			values, size = values*8, values*uint64(width)
		}
		if values > limit {
			return fmt.Errorf("a run claims %d values, the page %d", values, n)
		}
		if count += values; count > limit {
			return fmt.Errorf("runs claim %d values, the page %d", count, n)
		}
		b = b[min(size, uint64(len(b))):]
	}
	return nil
}

// runsSlack is the most values runs may claim for a page of n: twice n and
// a thousand, enough for any padding, and no room to allocate gigabytes.
func runsSlack(n int64) int64 { return 2*max(n, 0) + 1024 }

// deltaHeaderMax is the most bytes a DELTA_BINARY_PACKED header takes:
// three unsigned varints of 32 bits and a zigzag one of 64.
const deltaHeaderMax = 3*binary.MaxVarintLen32 + binary.MaxVarintLen64

// deltaHeader reads the DELTA_BINARY_PACKED header at the start of b,
// refusing a count of more than n values or blocks parquet-go would not
// read.
func deltaHeader(b []byte, n int64) (deltaShape, error) {
	var h [4]uint64 // block size, miniblocks per block, total values, first value
	for i := range h {
		x, k := binary.Uvarint(b)
		if k <= 0 {
			return deltaShape{}, fmt.Errorf("delta header unreadable")
		}
		h[i], b = x, b[k:]
	}
	d := deltaShape{rest: b, size: h[0], minis: h[1], count: h[2]}
	if d.count > uint64(n) {
		return deltaShape{}, fmt.Errorf("delta header claims %d values, the page %d", d.count, n)
	}
	if d.size == 0 || d.size%128 != 0 || d.size > 1<<16 || d.minis == 0 || d.size%d.minis != 0 || (d.size/d.minis)%32 != 0 {
		return deltaShape{}, fmt.Errorf("delta blocks of %d values in %d miniblocks", d.size, d.minis)
	}
	return d, nil
}

// deltaShape is what a DELTA_BINARY_PACKED header says.
type deltaShape struct {
	rest               []byte // the blocks, and what follows them
	size, minis, count uint64 // values a block, miniblocks a block, values
}

// deltaBlocks walks the DELTA_BINARY_PACKED values at the start of b,
// headers only, refusing more than n of them, and returns the bytes after
// them and their count.
func deltaBlocks(b []byte, n int64) (rest []byte, total int64, err error) {
	d, err := deltaHeader(b, n)
	if err != nil {
		return nil, 0, err
	}
	b, perMini := d.rest, d.size/d.minis
	for left := d.count - min(d.count, 1); left > 0; { // the first value is in the header
		_, k := binary.Uvarint(b) // the block's least delta, zigzag
		if k <= 0 || uint64(len(b)-k) < d.minis {
			return nil, 0, fmt.Errorf("delta block truncated")
		}
		widths := b[k : k+int(d.minis)]
		b = b[k+int(d.minis):]
		for _, w := range widths {
			if left == 0 {
				break // no bytes for the miniblocks past the last value
			}
			if w > 64 {
				return nil, 0, fmt.Errorf("delta miniblock of %d bits", w)
			}
			size := perMini * uint64(w) / 8
			if size > uint64(len(b)) {
				return nil, 0, fmt.Errorf("delta miniblock truncated")
			}
			b, left = b[size:], left-min(left, perMini)
		}
	}
	return b, int64(d.count), nil
}

// maxDeltaBytes bounds what the byte arrays of a DELTA_BYTE_ARRAY page of
// data bytes decode to: a value repeats the start of the one before for
// free, so 35 KB could give 5 GB (each value the one before, longer).
// Sorted keys sharing long prefixes give tens of times their bytes.
func maxDeltaBytes(data int) int64 { return 256*int64(data) + 16<<20 }

// checkDeltaByteArray checks a DELTA_BYTE_ARRAY page's values, at most n:
// prefix lengths, then suffix lengths, then the suffixes; the prefixes
// are decoded to bound what the values take.
func checkDeltaByteArray(data []byte, n int64) error {
	suffixes, np, err := deltaBlocks(data, n)
	if err != nil {
		return fmt.Errorf("prefix lengths: %w", err)
	}
	if _, ns, err := deltaBlocks(suffixes, n); err != nil || ns != np {
		return fmt.Errorf("suffix lengths: %d for %d prefixes (%v)", ns, np, err)
	}
	prefixes, err := new(delta.BinaryPackedEncoding).DecodeInt32(nil, data[:len(data)-len(suffixes)])
	if err != nil {
		return fmt.Errorf("prefix lengths: %w", err)
	}
	sum := int64(len(data))
	for _, p := range prefixes {
		if sum += int64(p); p < 0 || sum > maxDeltaBytes(len(data)) {
			return fmt.Errorf("values of %d bytes decode past %d bytes", len(data), maxDeltaBytes(len(data)))
		}
	}
	return nil
}
