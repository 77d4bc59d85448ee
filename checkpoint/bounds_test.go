package checkpoint

import (
	"testing"

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
