package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// filesStorage serves files by key, each read a copy as a store's is.
type filesStorage map[string][]byte

func (m filesStorage) Read(_ context.Context, key string) ([]byte, error) {
	b, ok := m[key]
	if !ok {
		return nil, fmt.Errorf("%s: not found", key)
	}
	return bytes.Clone(b), nil
}

func (m filesStorage) ReadRange(_ context.Context, key string, off, n int64) ([]byte, error) {
	b, ok := m[key]
	if !ok || off < 0 || off+n > int64(len(b)) {
		return nil, fmt.Errorf("%s: range %d+%d", key, off, n)
	}
	return bytes.Clone(b[off : off+n]), nil
}

// v2JSON is a v2 checkpoint in JSON naming the sidecars (written into
// st) in order.
func v2JSON(t *testing.T, st filesStorage, names []string) Checkpoint {
	t.Helper()
	var js strings.Builder
	js.WriteString(`{"checkpointMetadata":{"version":1}}` + "\n")
	for _, name := range names {
		if _, ok := st[SidecarDir+name]; !ok {
			var buf bytes.Buffer
			w := parquet.NewGenericWriter[addRow](&buf)
			if _, err := w.Write([]addRow{{Add: &smallAdd{Path: name + ".data.parquet", Size: 1}}}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			st[SidecarDir+name] = buf.Bytes()
		}
		fmt.Fprintf(&js, `{"sidecar":{"path":%q,"sizeInBytes":%d,"modificationTime":1}}`+"\n", name, len(st[SidecarDir+name]))
	}
	key := "_delta_log/00000000000000000001.checkpoint.u.json"
	st[key] = []byte(js.String())
	return Checkpoint{Version: 1, Kind: V2JSON, Parts: []Part{{Key: key, Size: int64(js.Len())}}}
}

// A sidecar named twice is refused: a checkpoint lists each file once,
// and it would count the sidecar's files twice. A JSON checkpoint naming
// one 2 MB sidecar 3,000 times had it fetched 3,000 times at once: out of
// memory.
func TestSidecarNamedTwiceIsRefused(t *testing.T) {
	st := filesStorage{}
	cp := v2JSON(t, st, []string{"a.parquet", "b.parquet", "a.parquet"})
	_, err := Read(context.Background(), st, cp, Options{Root: "file:///t"})
	if err == nil || !strings.Contains(err.Error(), "sidecar _delta_log/_sidecars/a.parquet is named more than once") {
		t.Errorf("err = %v, want the second a.parquet refused", err)
	}
}

// More sidecars than are fetched at once all read, in order.
func TestManySidecarsRead(t *testing.T) {
	st := filesStorage{}
	var names []string
	for i := range 3 * maxFetches {
		names = append(names, fmt.Sprintf("s%03d.parquet", i))
	}
	res, err := Read(context.Background(), st, v2JSON(t, st, names), Options{Root: "file:///t"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != len(names) {
		t.Fatalf("%d files, want %d", len(res.Files), len(names))
	}
	for i, f := range res.Files {
		if want := names[i] + ".data.parquet"; f.Path != want {
			t.Errorf("file %d is %s, want %s", i, f.Path, want)
		}
	}
}
