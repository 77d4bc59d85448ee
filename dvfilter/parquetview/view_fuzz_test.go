package parquetview

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/dvfilter"
)

// FuzzBuildView feeds Build arbitrary files and vectors. It must never
// panic; a view it returns must be a Parquet file holding exactly the rows
// the vector leaves, of the size it claims.
func FuzzBuildView(f *testing.F) {
	good := writeGroups(f, &parquet.Snappy, 7, 5, 9)
	f.Add(good, uint64(0), uint64(8), uint64(20))
	f.Add(good, uint64(3), uint64(3), uint64(3))
	f.Add(writeGroups(f, &parquet.Uncompressed, 4), uint64(1), uint64(2), uint64(1<<33))
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"), uint64(0), uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, data []byte, a, b, c uint64) {
		vec := dvfilter.NewVector(a%64, b%64, c)
		src := &bytesSource{data: data}
		v, err := Build(context.Background(), src, int64(len(data)), vec, BuildOptions{SpillDir: t.TempDir()})
		if err != nil {
			if !errors.Is(err, ErrParquet) && !errors.Is(err, ErrRowOutOfRange) && !isShortRead(err) {
				t.Fatalf("unclassified error: %v", err)
			}
			return
		}
		out := make([]byte, v.Size())
		if _, err := v.ReadAt(context.Background(), src, out, 0); err != nil {
			t.Fatalf("ReadAt: %v", err)
		}
		if !bytes.HasPrefix(out, magic) || !bytes.HasSuffix(out, magic) {
			t.Fatal("view lacks the Parquet magic")
		}
		md, _, err := readFooter(context.Background(), &bytesSource{data: out}, int64(len(out)))
		if err != nil {
			t.Fatalf("view's footer: %v", err)
		}
		if md.NumRows != v.Rows || int64(binary.LittleEndian.Uint32(out[len(out)-8:])) > int64(len(out)) {
			t.Fatalf("view footer says %d rows, view %d", md.NumRows, v.Rows)
		}
	})
}

func isShortRead(err error) bool { return bytes.Contains([]byte(err.Error()), []byte("short read")) }
