package dvfilter

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// memStorage serves objects from memory and records every read.
type memStorage struct {
	mu      sync.Mutex
	objects map[string][]byte
	reads   []string
	err     error
}

func (m *memStorage) ReadRange(_ context.Context, key string, off, n int64) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads = append(m.reads, fmt.Sprintf("%s@%d+%d", key, off, n))
	if m.err != nil {
		return nil, m.err
	}
	b, ok := m.objects[key]
	if !ok {
		return nil, fmt.Errorf("%s: %w", key, os.ErrNotExist)
	}
	if off >= int64(len(b)) {
		return nil, nil
	}
	return b[off:min(int64(len(b)), off+n)], nil
}

// dirStorage serves keys as slash-separated paths under a directory.
type dirStorage struct{ root string }

func (d dirStorage) ReadRange(_ context.Context, key string, off, n int64) ([]byte, error) {
	f, err := os.Open(filepath.Join(d.root, filepath.FromSlash(key)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	got, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:got], nil
}

// dvFile lays out a DV file: version byte, then each vector framed by its
// big-endian size and CRC-32. It returns the file and each vector's offset.
func dvFile(vectors ...[]byte) ([]byte, []int32) {
	out := []byte{fileFormatVersion}
	var offs []int32
	for _, v := range vectors {
		offs = append(offs, int32(len(out)))
		out = binary.BigEndian.AppendUint32(out, uint32(len(v)))
		out = append(out, v...)
		out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(v))
	}
	return out, offs
}

// encode64 serializes rows with roaring64's portable writer (an encoder
// independent of ours) and prepends the magic.
func encode64(t testing.TB, rows ...uint64) []byte {
	t.Helper()
	bm := roaring64.New()
	bm.AddMany(rows)
	return encodeBitmap64(t, bm)
}

func encodeBitmap64(t testing.TB, bm *roaring64.Bitmap) []byte {
	t.Helper()
	var buf bytes.Buffer
	buf.Write(binary.LittleEndian.AppendUint32(nil, Magic))
	if _, err := bm.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rowsOf collects a vector's rows via All.
func rowsOf(v *Vector) []uint64 {
	return slices.Collect(v.All())
}

func mustParse(t testing.TB, data []byte) *Vector {
	t.Helper()
	v, err := ParseBitmap(data)
	if err != nil {
		t.Fatalf("ParseBitmap: %v", err)
	}
	return v
}

func i32(v int32) *int32 { return &v }
func i64(v int64) *int64 { return &v }

func mustHex(s string) []byte {
	s = strings.ReplaceAll(s, " ", "")
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
