package fs

import (
	"context"
	"strconv"
	"syscall"
	"time"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// latestNode is the `latest` symlink, pointing at v/<N> for the newest known
// version. Its target is read from Table.Latest on every readlink; the
// refresher asks the table for new commits and, when there are, tells the
// kernel to forget what it cached about the link, v/ and history.jsonl.
type latestNode struct {
	fusefs.Inode
	readOnlyNode
	root *root
}

var (
	_ = (fusefs.InodeEmbedder)((*latestNode)(nil))
	_ = (fusefs.NodeReadlinker)((*latestNode)(nil))
	_ = (fusefs.NodeGetattrer)((*latestNode)(nil))
)

func (n *latestNode) target() []byte {
	return strconv.AppendInt([]byte(nameVersions+"/"), n.root.table.Latest(), 10)
}

// Readlink returns v/<latest>.
func (n *latestNode) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	return n.target(), 0
}

// Getattr reports the link, sized as its target.
func (n *latestNode) Getattr(ctx context.Context, fh fusefs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = syscall.S_IFLNK | 0o777
	out.Ino = inoLatest
	out.Nlink = 1
	out.Size = uint64(len(n.target()))
	t := &n.root.mounted
	out.SetTimes(t, t, t)
	out.SetTimeout(n.root.opts.LatestAttrTimeout)
	return 0
}

// refreshLoop calls Table.Refresh every interval until ctx ends.
func (n *latestNode) refreshLoop(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var lastErr string
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := n.refresh(ctx, interval)
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			if msg := err.Error(); msg != lastErr { // one line per distinct failure
				n.root.logf("refresh: %v", err)
				lastErr = msg
			}
		default:
			lastErr = ""
		}
	}
}

// refresh asks the table for new commits once, bounded by timeout, and
// invalidates the kernel's view of what moved. The kernel forgets its
// negative entries for the new versions before latest points at them.
func (n *latestNode) refresh(ctx context.Context, timeout time.Duration) error {
	before := n.root.table.Latest()
	// Time to list and to build the new version (from its checkpoint, if
	// need be), not only to list.
	rctx, cancel := context.WithTimeout(ctx, max(timeout, 30*time.Second))
	changed, err := n.root.table.Refresh(rctx, func(after int64) {
		// Notifications fail harmlessly (ENOENT, ENOTCONN) when the kernel
		// does not know the node or the mount is going away.
		_ = n.root.versions.NotifyContent(0, 0)
		for v := max(before+1, after-1000); v <= after; v++ {
			_ = n.root.versions.NotifyEntry(strconv.FormatInt(v, 10))
		}
	})
	cancel()
	if changed {
		_ = n.NotifyContent(0, 0)
		_ = n.root.NotifyEntry(nameLatest)
		_ = n.root.versions.NotifyContent(0, 0) // also when versions went away
		_ = n.root.history.NotifyContent(0, 0)
		_ = n.root.at.NotifyContent(0, 0)
		_ = n.root.changes.NotifyContent(0, 0) // listings the kernel keeps (NoOpen)
	}
	return err
}
