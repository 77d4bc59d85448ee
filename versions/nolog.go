package versions

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
)

// folderLister is a Store that can list folders (blobstore.Store.Folders).
type folderLister interface {
	Folders(ctx context.Context, dir string, limit int) ([]string, error)
}

// belowMax is how many folders under a location without a log are looked
// into for one: a request each, on the way to an error.
const belowMax = 16

// noLogError says that the table's location holds no log, and what the
// location looks like instead: the log itself, a partition folder, or the
// folder above tables (a common slip: `deltafs ls data/events` for a table
// kept in data/events/delta).
func noLogError(ctx context.Context, st Store, root string) error {
	hint := "is this the table's folder, the one holding " + replay.LogDir + "?"
	last := path.Base(strings.TrimSuffix(root, "/"))
	switch {
	case last+"/" == replay.LogDir:
		hint = "name the folder that holds the log, not the log itself"
	case strings.Contains(last, "="):
		hint = fmt.Sprintf("%s looks like a partition folder: name the table's folder, above it", last)
	default:
		if below := tablesBelow(ctx, st); len(below) > 0 {
			hint = fmt.Sprintf("tables lie one folder down: name one of %s", strings.Join(below, ", "))
			if len(below) == 1 {
				hint = "a table lies one folder down: name " + below[0]
			}
		}
	}
	return fmt.Errorf("no Delta log: %s holds no commit or checkpoint (%s)", replay.LogDir, hint)
}

// tablesBelow returns the locations of the folders directly under st's
// root, among the first belowMax, whose log holds a commit or checkpoint.
// Failures leave a folder out: this only words an error.
func tablesBelow(ctx context.Context, st Store) []string {
	fl, ok := st.(folderLister)
	if !ok {
		return nil
	}
	folders, err := fl.Folders(ctx, "", belowMax)
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range folders {
		dir := f + "/"
		objs, _, err := st.ListPage(ctx, dir+replay.LogDir, "")
		if err != nil {
			continue
		}
		for i := range objs {
			objs[i].Key = strings.TrimPrefix(objs[i].Key, dir)
		}
		if len(logFiles(objs)) > 0 {
			out = append(out, strings.TrimSuffix(st.Location(), "/")+"/"+f)
		}
	}
	return out
}

var _ folderLister = (*blobstore.Store)(nil)
