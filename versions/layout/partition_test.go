package layout

import (
	"testing"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
)

// Delta names columns case-insensitively: a partition value stored under
// a key that differs from the partition column in case alone is that
// column's value, not a null; an exact key wins over such a one; folders
// are named as the schema names the column. A value that is the name of
// the null folder is told apart from a null.
func TestPartitionDirsMatchKeysWhateverTheirCase(t *testing.T) {
	md := &action.Metadata{
		SchemaString:     `{"type":"struct","fields":[{"name":"Region","type":"string","nullable":true,"metadata":{}},{"name":"day","type":"string","nullable":true,"metadata":{}}]}`,
		PartitionColumns: []string{"region", "day"}, // a folder takes the schema's case
	}
	parts := []*replay.Partition{
		{Values: []action.PartitionValue{{Column: "DAY", Value: "1"}, {Column: "region", Value: "eu"}}},
		{Values: []action.PartitionValue{{Column: "Day", Value: "wrong"}, {Column: "day", Value: "2"}, {Column: "Region", Value: "us"}}},
		{Values: []action.PartitionValue{{Column: "day", Value: "3"}}},
		{Values: []action.PartitionValue{{Column: "region", Value: NullPartition}, {Column: "day", Value: ""}}},
	}
	if !IsPartitionColumn(md, "REGION") || IsPartitionColumn(md, "value") {
		t.Error("IsPartitionColumn: REGION is one, value is not")
	}
	dirs, err := partitionDirs(md, &action.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}, parts, len(parts))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"Region=eu/day=1/", "Region=us/day=2/", "Region=" + NullPartition + "/day=3/",
		"Region=%5F_HIVE_DEFAULT_PARTITION__/day=" + NullPartition + "/"} {
		if got, err := dirs(i); err != nil || got != want {
			t.Errorf("file %d: %q, %v; want %q", i, got, err, want)
		}
	}
}
