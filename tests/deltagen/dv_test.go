package deltagen

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

func TestZ85(t *testing.T) {
	// Test vector of the Z85 spec (rfc.zeromq.org/spec/32).
	hello := []byte{0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B}
	if got := Z85Encode(hello); got != "HelloWorld" {
		t.Errorf("Z85Encode = %q, want HelloWorld", got)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 64; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		enc := Z85Encode(b)
		dec, err := Z85Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		if len(enc) != (n+3)/4*5 || !bytes.Equal(dec[:n], b) || slices.ContainsFunc(dec[n:], func(c byte) bool { return c != 0 }) {
			t.Fatalf("round trip of %d bytes: %q -> %x", n, enc, dec)
		}
	}
	if _, err := Z85Decode("abc"); err == nil {
		t.Error("Z85Decode accepted a bad length")
	}
	if _, err := Z85Decode("abc\"d"); err == nil {
		t.Error("Z85Decode accepted a bad character")
	}
}

// checkSerializedDV checks the byte layout of a RoaringBitmapArray and that
// it decodes to want.
func checkSerializedDV(t *testing.T, data []byte, want []uint64) {
	t.Helper()
	if got := binary.LittleEndian.Uint32(data); got != DVMagic {
		t.Fatalf("magic %d", got)
	}
	buckets := binary.LittleEndian.Uint64(data[4:])
	pos := 12
	for b := uint64(0); b < buckets; b++ {
		key := binary.LittleEndian.Uint32(data[pos:])
		if key>>31 != 0 {
			t.Errorf("bucket key %d has its top bit set", key)
		}
		bm := roaring.New()
		n, err := bm.ReadFrom(bytes.NewReader(data[pos+4:]))
		if err != nil {
			t.Fatalf("bucket %d: %v", b, err)
		}
		pos += 4 + int(n)
	}
	if pos != len(data) {
		t.Errorf("layout covers %d of %d bytes", pos, len(data))
	}
	rows, err := DeletedRows(data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rows, want) {
		t.Errorf("rows %v, want %v", rows, want)
	}
}

func TestDVFile(t *testing.T) {
	tb := New(t.TempDir())
	vectors := [][]uint64{
		{3, 4, 7, 11, 18, 29},
		{0, 1<<32 + 5, 1<<33 + 1}, // three buckets
		{},
	}
	for i := 0; i < 70000; i += 2 { // a bitmap container
		vectors[2] = append(vectors[2], uint64(i))
	}
	dvs, err := tb.WriteDVFile("ab", vectors...)
	if err != nil {
		t.Fatal(err)
	}
	if len(dvs) != 3 {
		t.Fatalf("%d descriptors", len(dvs))
	}
	rel, err := DVPath(dvs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rel, "ab/deletion_vector_") || !strings.HasSuffix(rel, ".bin") || len(dvs[0].PathOrInlineDv) != 22 {
		t.Errorf("DV path %s from %q", rel, dvs[0].PathOrInlineDv)
	}
	file, err := os.ReadFile(filepath.Join(tb.Dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	if file[0] != 1 {
		t.Errorf("version byte %d", file[0])
	}
	for i, dv := range dvs {
		if dv.StorageType != "u" || dv.PathOrInlineDv != dvs[0].PathOrInlineDv {
			t.Errorf("dv %d: %+v", i, dv)
		}
		off := int(*dv.Offset)
		size := binary.BigEndian.Uint32(file[off:])
		if int32(size) != dv.SizeInBytes {
			t.Fatalf("dv %d: size field %d, descriptor %d", i, size, dv.SizeInBytes)
		}
		data := file[off+4 : off+4+int(size)]
		if crc := binary.BigEndian.Uint32(file[off+4+int(size):]); crc != crc32.ChecksumIEEE(data) {
			t.Errorf("dv %d: bad CRC", i)
		}
		checkSerializedDV(t, data, vectors[i])
		if dv.Cardinality != int64(len(vectors[i])) || *dv.MaxRowIndex != int64(slices.Max(vectors[i])) {
			t.Errorf("dv %d: cardinality %d max %d", i, dv.Cardinality, *dv.MaxRowIndex)
		}
	}
	if last := dvs[2]; int(*last.Offset)+4+int(last.SizeInBytes)+4 != len(file) {
		t.Errorf("file has %d bytes past the last DV", len(file)-int(*last.Offset)-8-int(last.SizeInBytes))
	}
	// Absolute-path descriptors.
	pdvs, err := tb.WriteDVFileAbsolute("dvs/my dv.bin", vectors[0])
	if err != nil {
		t.Fatal(err)
	}
	if p := pdvs[0]; p.StorageType != "p" || !strings.HasPrefix(p.PathOrInlineDv, "file:///") || !strings.HasSuffix(p.PathOrInlineDv, "/dvs/my%20dv.bin") || *p.Offset != 1 {
		t.Errorf("p descriptor %+v", p)
	}
}

func TestInlineDV(t *testing.T) {
	rows := []uint64{2, 9, 1000}
	dv, err := InlineDV(rows)
	if err != nil {
		t.Fatal(err)
	}
	if dv.StorageType != "i" || dv.Offset != nil || dv.Cardinality != 3 || *dv.MaxRowIndex != 1000 {
		t.Errorf("inline descriptor %+v", dv)
	}
	data, err := Z85Decode(dv.PathOrInlineDv)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < int(dv.SizeInBytes) || len(data)-int(dv.SizeInBytes) > 3 {
		t.Fatalf("decoded %d bytes for sizeInBytes %d", len(data), dv.SizeInBytes)
	}
	checkSerializedDV(t, data[:dv.SizeInBytes], rows)
	if dv.UniqueID() != "i"+dv.PathOrInlineDv {
		t.Errorf("unique id %q", dv.UniqueID())
	}
}
