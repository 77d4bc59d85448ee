package checkpoint

import (
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

// Schemas parquet-go cannot build safely are refused before it opens the
// file. Groups nested 30,000 deep (a 200 KB footer) had its column
// loader allocate quadratically before its own depth check: out of
// memory, the process ended.
func TestUnsafeSchemasAreRefused(t *testing.T) {
	for name, c := range map[string]struct {
		change func(md *format.FileMetaData)
		want   string
	}{
		"groups nested 30,000 deep": {func(md *format.FileMetaData) {
			root, leaves := md.Schema[0], md.Schema[2:] // add.path and add.size, at the root
			root.NumChildren.Set(1)
			schema := []format.SchemaElement{root}
			for i := range 30000 {
				var g format.SchemaElement
				g.Name = "g"
				g.RepetitionType.Set(format.Optional)
				g.NumChildren.Set(1)
				if i == 29999 {
					g.NumChildren.Set(int32(len(leaves)))
				}
				schema = append(schema, g)
			}
			md.Schema = append(schema, leaves...)
		}, "groups nest more than 100 deep"},
		"more children than elements": {func(md *format.FileMetaData) {
			md.Schema[1].NumChildren.Set(1 << 30)
		}, "claims 1073741824 children, 2 elements follow"},
		"a fixed length of 2^31-1": {func(md *format.FileMetaData) {
			md.Schema[2].Type.Set(format.FixedLenByteArray)
			md.Schema[2].TypeLength.Set(1<<31 - 1)
		}, "has values of 2147483647 bytes"},
	} {
		t.Run(name, func(t *testing.T) {
			md, pages := craftFile(t, smallAdds, false)
			readRefused(t, craftJoin(md, pages, c.change), c.want)
		})
	}
}
