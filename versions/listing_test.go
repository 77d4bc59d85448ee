package versions

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/replay"
)

// TestMerge: one entry per key, the first listing's where both have it,
// sorted, whatever order either listing comes in.
func TestMerge(t *testing.T) {
	files := func(spec string) []replay.LogFile { // "key:size key:size"
		var out []replay.LogFile
		for _, f := range strings.Fields(spec) {
			key, size, _ := strings.Cut(f, ":")
			n, _ := strconv.ParseInt(size, 10, 64)
			out = append(out, replay.LogFile{Key: key, Size: n})
		}
		return out
	}
	show := func(l []replay.LogFile) string {
		var parts []string
		for _, f := range l {
			parts = append(parts, fmt.Sprintf("%s:%d", f.Key, f.Size))
		}
		return strings.Join(parts, " ")
	}
	for _, tc := range []struct{ a, b, want string }{
		{"a:1 b:1 c:1", "d:2 e:2", "a:1 b:1 c:1 d:2 e:2"},
		{"a:1 c:1", "b:2 c:2 d:2", "a:1 b:2 c:1 d:2"},
		{"c:1 a:1 b:1", "", "a:1 b:1 c:1"},
		{"", "b:2 a:2 b:3", "a:2 b:2"},
		{"a:1 a:2", "a:3", "a:1"},
		{"", "", ""},
	} {
		a, b := files(tc.a), files(tc.b)
		if got := show(merge(a, b)); got != tc.want {
			t.Errorf("merge(%q, %q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
		if show(a) != show(files(tc.a)) || show(b) != show(files(tc.b)) {
			t.Errorf("merge(%q, %q) changed its arguments", tc.a, tc.b)
		}
	}
}
