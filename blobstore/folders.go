package blobstore

import (
	"context"
	"strings"

	"golang.org/x/sys/unix"
)

// Folders returns the names of the first folders, at most limit, directly
// under dir (a key prefix ending in '/', or "" for the root), in key
// order; one listing request. Only an error message uses it (a table
// named one folder too high), so one page is enough. A local folder
// reached through a symbolic link is not one: links are never followed.
func (s *Store) Folders(ctx context.Context, dir string, limit int) ([]string, error) {
	if s.local != nil {
		done := s.begin(&s.counts.lists)
		defer done()
		names, err := s.local.folders(dir, limit)
		if err != nil {
			return nil, s.wrap(dir, err)
		}
		return names, nil
	}
	objs, _, err := s.listPage(ctx, s.firstToken(""), s.listOptions(dir, ""))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, o := range objs {
		if name, ok := strings.CutPrefix(o.Key, dir); ok && o.IsDir && len(out) < limit {
			out = append(out, strings.TrimSuffix(name, "/"))
		}
	}
	return out, nil
}

// folders is Folders for a local root.
func (l *localRoot) folders(dir string, limit int) ([]string, error) {
	names, fd, err := l.openNames(dir)
	if err != nil || fd < 0 {
		return nil, err
	}
	defer unix.Close(fd)
	var out []string
	for _, name := range names {
		if len(out) >= limit {
			break
		}
		var st unix.Stat_t
		if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			out = append(out, name)
		}
	}
	return out, nil
}
