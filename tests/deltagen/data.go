package deltagen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/replay/action"
)

// dataRow is one row of a data file written by WriteDataFile.
type dataRow struct {
	ID    int64  `parquet:"id"`
	Value string `parquet:"value,optional"`
}

// RowValue is the "value" column of row id in files written by WriteDataFile.
func RowValue(id int64) string { return fmt.Sprintf("v%09d", id) }

// WriteDataFile writes a Parquet file at relPath under the table root (a
// decoded, slash-separated path, e.g. "date=2024-01-01/a b.parquet") with
// columns id (0..rows-1) and value (RowValue(id)), split into rowGroups row
// groups of near-equal size. It returns the file size.
func (t *Table) WriteDataFile(relPath string, rows, rowGroups int) (int64, error) {
	name := filepath.Join(t.Dir, filepath.FromSlash(relPath))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return 0, err
	}
	f, err := os.Create(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if rowGroups < 1 {
		rowGroups = 1
	}
	w := parquet.NewGenericWriter[dataRow](f, parquet.Compression(&parquet.Snappy))
	per := (rows + rowGroups - 1) / rowGroups
	buf := make([]dataRow, 0, 1024)
	for g := 0; g < rowGroups; g++ {
		lo, hi := g*per, min((g+1)*per, rows)
		for i := lo; i < hi; i++ {
			buf = append(buf, dataRow{ID: int64(i), Value: RowValue(int64(i))})
			if len(buf) == cap(buf) || i == hi-1 {
				if _, err := w.Write(buf); err != nil {
					return 0, fmt.Errorf("deltagen: data file %s: %w", relPath, err)
				}
				buf = buf[:0]
			}
		}
		if hi > lo {
			if err := w.Flush(); err != nil {
				return 0, fmt.Errorf("deltagen: data file %s: %w", relPath, err)
			}
		}
	}
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("deltagen: data file %s: %w", relPath, err)
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	fi, err := os.Stat(name)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// DataFileAdd writes a data file like WriteDataFile and returns the matching
// add action: URL-encoded path, real size and mtime, stats for ids 0..rows-1.
func (t *Table) DataFileAdd(relPath string, rows, rowGroups int, partitionValues map[string]*string) (action.Action, error) {
	size, err := t.WriteDataFile(relPath, rows, rowGroups)
	if err != nil {
		return action.Action{}, err
	}
	fi, err := os.Stat(filepath.Join(t.Dir, filepath.FromSlash(relPath)))
	if err != nil {
		return action.Action{}, err
	}
	stats := ""
	if rows > 0 {
		stats = Stats(0, int64(rows)-1)
	} else {
		stats = `{"numRecords":0}`
	}
	return AddFile(EncodePath(relPath), size, fi.ModTime().UnixMilli(), partitionValues, stats), nil
}

// EncodePath URL-encodes a relative, slash-separated path as add and remove
// actions store it: every byte other than ASCII letters, digits, "-_.~=" and
// the "/" separators is percent-encoded (upper-case hex), so a space becomes
// %20, ":" %3A and "%" %25.
func EncodePath(rel string) string {
	var b strings.Builder
	for i := 0; i < len(rel); i++ {
		c := rel[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '~', c == '=', c == '/':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
