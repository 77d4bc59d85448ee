package parquetview

import (
	"fmt"

	"github.com/parquet-go/parquet-go/format"
)

// In id mode (Rename.ByID) a column is found by its Parquet field id
// alone. PROTOCOL.md ("Reader Requirements for Column Mapping"): a column
// whose id a file lacks reads as nulls there (served so with FillMissing,
// as a column the file lacks), and a file without any field ids must be
// refused or read as nulls in every column. Such a file is refused: nulls
// would hide the data it holds, and Spark, the reference reader, refuses
// it too. delta-rs matches such columns by physical name instead, which
// the protocol does not allow.

// ErrNoFieldIDs is returned for a file without field ids that a Rename
// finds columns in by id.
var ErrNoFieldIDs = fmt.Errorf("the file has no Parquet field ids, by which id column mapping finds its columns (PROTOCOL.md: such a file is refused): %w", ErrParquet)

// hasFieldIDs says whether an element of schema below the root carries a
// field id.
func hasFieldIDs(schema []format.SchemaElement) bool {
	for i := 1; i < len(schema); i++ {
		if schema[i].FieldID != 0 {
			return true
		}
	}
	return false
}

// needsFieldIDs says whether a column is found by id (others, as change
// data's _change_type, are found by name).
func needsFieldIDs(cols []Column) bool {
	for i := range cols {
		if cols[i].ID != 0 {
			return true
		}
	}
	return false
}
