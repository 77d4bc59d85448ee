package thriftcheck

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/parquet-go/parquet-go/format"
)

// ErrTruncated is returned for a struct that goes on past the bytes given.
var ErrTruncated = errors.New("thrift struct truncated")

// maxDepth is how deep structs and collections may nest. Parquet's own
// nest six deep at most (a footer's column statistics, a logical type).
const maxDepth = 64

// structBytes bounds the memory parquet-go gives one decoded struct: the
// largest it decodes a footer or page header into, and 32 bytes of what
// the decoder keeps while it decodes one (the fields it has seen).
var structBytes = 32 + int64(max(unsafe.Sizeof(format.ColumnChunk{}), unsafe.Sizeof(format.FileMetaData{}),
	unsafe.Sizeof(format.PageHeader{}), unsafe.Sizeof(format.SchemaElement{}), unsafe.Sizeof(format.RowGroup{})))

// Compact protocol type codes.
const (
	typeStop   = 0
	typeTrue   = 1
	typeFalse  = 2
	typeByte   = 3
	typeI16    = 4
	typeI32    = 5
	typeI64    = 6
	typeDouble = 7
	typeBinary = 8
	typeList   = 9
	typeSet    = 10
	typeMap    = 11
	typeStruct = 12
	typeUUID   = 13
)

// Struct walks the struct at the start of b. It returns the struct's
// length in bytes and a bound on the memory parquet-go allocates decoding
// it: every struct counted at the size of the largest, every element of a
// list of values at its slot (strings and byte slices alias the input).
func Struct(b []byte) (n int, alloc int64, err error) {
	w := walker{b: b}
	if err := w.value(typeStruct, 0); err != nil {
		return 0, 0, err
	}
	return w.off, w.alloc, nil
}

type walker struct {
	b     []byte
	off   int
	alloc int64
}

func (w *walker) left() int { return len(w.b) - w.off }

func (w *walker) byte() (byte, error) {
	if w.off >= len(w.b) {
		return 0, ErrTruncated
	}
	c := w.b[w.off]
	w.off++
	return c, nil
}

// varint reads an unsigned varint of at most 10 bytes.
func (w *walker) varint() (uint64, error) {
	var v uint64
	for shift := 0; shift < 70; shift += 7 {
		c, err := w.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("varint longer than 10 bytes at byte %d", w.off)
}

func (w *walker) skip(n int) error {
	if n > w.left() {
		return ErrTruncated
	}
	w.off += n
	return nil
}

// count reads a collection's element count, which the bytes left must be
// able to hold at least minBytes each.
func (w *walker) count(n uint64, minBytes int) (int, error) {
	if n > uint64(w.left()/minBytes) {
		return 0, fmt.Errorf("a collection at byte %d claims %d elements in %d bytes", w.off, n, w.left())
	}
	return int(n), nil
}

// value walks one value of type t nested depth deep.
func (w *walker) value(t byte, depth int) error {
	switch t {
	case typeTrue, typeFalse, typeByte:
		return w.skip(1) // only inside collections: a field's bool is in its header
	case typeI16, typeI32, typeI64:
		_, err := w.varint()
		return err
	case typeDouble:
		return w.skip(8)
	case typeUUID:
		return w.skip(16)
	case typeBinary:
		n, err := w.varint()
		if err != nil {
			return err
		}
		if n > uint64(w.left()) {
			return ErrTruncated
		}
		w.off += int(n)
		return nil
	}
	if depth >= maxDepth {
		return fmt.Errorf("structs nest more than %d deep at byte %d", maxDepth, w.off)
	}
	switch t {
	case typeStruct:
		return w.fields(depth + 1)
	case typeList, typeSet:
		return w.list(depth + 1)
	case typeMap:
		return w.mapping(depth + 1)
	}
	return fmt.Errorf("unknown thrift type %d at byte %d", t, w.off)
}

func (w *walker) fields(depth int) error {
	w.alloc += structBytes
	for {
		h, err := w.byte()
		if err != nil {
			return err
		}
		if h == typeStop {
			return nil
		}
		if h>>4 == 0 { // the field id follows in full
			if _, err := w.varint(); err != nil {
				return err
			}
		}
		switch t := h & 0xf; t {
		case typeTrue, typeFalse: // the value is the type
		case typeStop:
			return fmt.Errorf("field of no type at byte %d", w.off)
		default:
			if err := w.value(t, depth); err != nil {
				return err
			}
		}
	}
}

func (w *walker) list(depth int) error {
	h, err := w.byte()
	if err != nil {
		return err
	}
	size := uint64(h >> 4)
	if size == 0xf {
		if size, err = w.varint(); err != nil {
			return err
		}
	}
	n, err := w.count(size, 1)
	if err != nil {
		return err
	}
	t := h & 0xf
	w.alloc += int64(n) * slotBytes(t)
	for range n {
		if err := w.value(t, depth); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) mapping(depth int) error {
	size, err := w.varint()
	if err != nil || size == 0 {
		return err
	}
	n, err := w.count(size, 2)
	if err != nil {
		return err
	}
	kv, err := w.byte()
	if err != nil {
		return err
	}
	w.alloc += int64(n) * (slotBytes(kv>>4) + slotBytes(kv&0xf) + 16) // and the map's own
	for range n {
		if err := w.value(kv>>4, depth); err != nil {
			return err
		}
		if err := w.value(kv&0xf, depth); err != nil {
			return err
		}
	}
	return nil
}

// slotBytes is the room a value of type t takes in a decoded list; a
// struct counts itself when walked.
func slotBytes(t byte) int64 {
	switch t {
	case typeTrue, typeFalse, typeByte:
		return 1
	case typeI16:
		return 2
	case typeI32:
		return 4
	case typeI64, typeDouble:
		return 8
	case typeUUID:
		return 16
	case typeBinary, typeList, typeSet:
		return 24
	case typeMap:
		return 8
	}
	return 0
}

// FooterLimit is the most memory a Parquet footer may take decoded. The
// widest files met take half of it: 2,000 columns by 200 row groups, a
// footer of 24.7 MB, took 1 GB.
const FooterLimit = 2 << 30

// Footer checks a Parquet file's footer (its FileMetaData) with Struct and
// refuses one whose decoding may take more than FooterLimit. It returns
// the bound on that memory.
func Footer(b []byte) (int64, error) {
	_, alloc, err := Struct(b)
	if err != nil {
		return 0, fmt.Errorf("footer: %w", err)
	}
	if alloc > FooterLimit {
		return 0, fmt.Errorf("a footer of %d bytes may take %d MiB to decode, more than the %d MiB allowed", len(b), alloc>>20, FooterLimit>>20)
	}
	return alloc, nil
}
