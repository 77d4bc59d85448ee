package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

type partAdd struct {
	Path            string            `parquet:"path"`
	Size            int64             `parquet:"size"`
	PartitionValues map[string]string `parquet:"partitionValues"`
}

type partRow struct {
	Add *partAdd `parquet:"add,optional"`
}

// Rows and values out of proportion to a file's bytes are refused before
// they are decoded. A 426-byte file claiming 64 million adds of one path
// (dictionary-encoded, runs of one index: within every page bound) had
// the process run out of memory.
func TestRowsAndValuesBoundedBySize(t *testing.T) {
	t.Run("rows", func(t *testing.T) {
		md, pages := craftFile(t, smallAdds, false)
		readRefused(t, craftJoin(md, pages, func(md *format.FileMetaData) {
			md.RowGroups[0].NumRows, md.NumRows = 1<<26, 1<<26
		}), "claims 67108864 rows")
	})
	t.Run("values of a column that does not repeat", func(t *testing.T) {
		md, pages := craftFile(t, smallAdds, false)
		p := pages[0][0][len(pages[0][0])-1]
		pages[0][0] = append(pages[0][0], p) // 6 paths in 3 rows
		readRefused(t, craftJoin(md, pages, nil), "claims more than 3 values in 3 rows")
	})
	t.Run("values of a repeated column", func(t *testing.T) {
		rows := []partRow{{Add: &partAdd{Path: "a", PartitionValues: map[string]string{"k": "v"}}}, {}, {}}
		md, pages := craftFile(t, rows, false)
		for j, s := range md.RowGroups[0].Columns {
			if s.MetaData.PathInSchema[len(s.MetaData.PathInSchema)-1] == "key" {
				p := &pages[0][j][len(pages[0][j])-1]
				p.H.DataPageHeaderV2.V.NumValues = maxValuesPerRow*3 + valuesSlack + 1
			}
		}
		readRefused(t, craftJoin(md, pages, nil), "claims more than 66304 values in 3 rows")
	})
}

type denseAdd struct {
	Path             string `parquet:"path,delta"`
	Size             int64  `parquet:"size,dict"`
	ModificationTime int64  `parquet:"modificationTime,dict"`
	DataChange       bool   `parquet:"dataChange"`
}

type denseRow struct {
	Add *denseAdd `parquet:"add,optional"`
}

// The densest checkpoint a writer makes is read: a million adds of paths
// "0", "1", "2"..., DELTA_BYTE_ARRAY-encoded under zstd, every other
// column one value (a dictionary, as Spark and delta-rs write one), at
// 10.2 rows a byte, inside maxRowsPerByte.
func TestDensestCheckpointRead(t *testing.T) {
	rows := make([]denseRow, 1_000_000)
	for i := range rows {
		rows[i].Add = &denseAdd{Path: strconv.Itoa(i), Size: 1, DataChange: true}
	}
	if density := writeAndRead(t, rows, parquet.Compression(&parquet.Zstd)); density >= maxRowsPerByte {
		t.Errorf("%.1f rows a byte: past the bound, %d", density, maxRowsPerByte)
	}
}

type plainAdd struct {
	Path             string `parquet:"path"`
	Size             int64  `parquet:"size"`
	ModificationTime int64  `parquet:"modificationTime"`
	DataChange       bool   `parquet:"dataChange"`
}

type plainRow struct {
	Add *plainAdd `parquet:"add,optional"`
}

// A column of one value written PLAIN (no dictionary) compresses under
// zstd far past what a column chunk may otherwise expand (a million
// int64s, 8 MB, to 6 KB): a writer without dictionaries makes one for a
// bulk load whose files share a modification time. Its values are bounded
// by its rows, and it is read.
func TestConstantPlainColumnsRead(t *testing.T) {
	rows := make([]plainRow, 1_000_000)
	for i := range rows {
		rows[i].Add = &plainAdd{Path: fmt.Sprintf("part-%07d.parquet", i), Size: 1000, ModificationTime: 1_700_000_000_000, DataChange: true}
	}
	writeAndRead(t, rows, parquet.Compression(&parquet.Zstd), parquet.PageBufferSize(16<<20))
}

// writeAndRead writes rows of adds as a checkpoint with parquet-go, reads
// it, checks that every add is read, and returns its rows a byte.
func writeAndRead[T any](t *testing.T, rows []T, opts ...parquet.WriterOption) float64 {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	density := float64(len(rows)) / float64(buf.Len())
	t.Logf("%d rows in %d bytes: %.1f rows a byte", len(rows), buf.Len(), density)
	res, err := Read(context.Background(), bytesStorage(buf.Bytes()), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(buf.Len())}}}, Options{Root: "file:///t"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Files); n != len(rows) {
		t.Errorf("read %d files, want %d", n, len(rows))
	}
	return density
}
