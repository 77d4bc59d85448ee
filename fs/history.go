package fs

import (
	"bytes"
	"context"
	"encoding/json"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// historyNode is history.jsonl: one JSON object per version, oldest first,
// {"version","timestamp","operation","files"}. The text is made from
// Table.History when first needed and again whenever the latest version has
// moved; Getattr makes it too, so the size it reports is exact. Each open
// reads the text current at open time, with direct I/O, so a reader never
// mixes two versions of the file nor is cut short by a stale size.
type historyNode struct {
	fusefs.Inode
	readOnlyFile
	root *root
}

var (
	_ = (fusefs.InodeEmbedder)((*historyNode)(nil))
	_ = (fusefs.NodeGetattrer)((*historyNode)(nil))
	_ = (fusefs.NodeOpener)((*historyNode)(nil))
	_ = (fusefs.NodeReader)((*historyNode)(nil))
)

// historyHandle holds the text one open reads.
type historyHandle struct {
	text  []byte
	mtime int64 // ms, the newest version's instant
}

// Getattr reports the size of the current text, with short timeouts.
func (n *historyNode) Getattr(ctx context.Context, fh fusefs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	text, mtime, errno := n.root.historyText(ctx)
	if h, ok := fh.(*historyHandle); ok {
		text, mtime, errno = h.text, h.mtime, 0 // fstat of an open file: what that open reads
	}
	if errno != 0 {
		return errno
	}
	t := msTime(mtime)
	out.SetTimes(&t, &t, &t)
	out.Mode = syscall.S_IFREG | 0o444
	out.Ino = inoHistory
	out.Nlink = 1
	out.Size = uint64(len(text))
	out.SetTimeout(n.root.opts.LatestAttrTimeout)
	return 0
}

// Open takes the current text for this handle; where files are left to
// the kernel (leaveOpensToKernel) it answers ENOSYS, as data files do.
func (n *historyNode) Open(ctx context.Context, flags uint32) (fusefs.FileHandle, uint32, syscall.Errno) {
	if n.root.noOpen.Load() {
		return nil, 0, syscall.ENOSYS
	}
	if errno := openReadOnly(flags); errno != 0 {
		return nil, 0, errno
	}
	text, mtime, errno := n.root.historyText(ctx)
	if errno != 0 {
		return nil, 0, errno
	}
	return &historyHandle{text: text, mtime: mtime}, fuse.FOPEN_DIRECT_IO, 0
}

// Read serves the handle's text, or the current one to a read without an
// open (leaveOpensToKernel: a read that spans a refresh may then mix two
// versions of the text, which refresh tells the kernel to drop).
func (n *historyNode) Read(ctx context.Context, fh fusefs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if off < 0 {
		return nil, syscall.EINVAL
	}
	var text []byte
	if h, ok := fh.(*historyHandle); ok {
		text = h.text
	} else {
		var errno syscall.Errno
		if text, _, errno = n.root.historyText(ctx); errno != 0 {
			return nil, errno
		}
	}
	if off >= int64(len(text)) {
		return fuse.ReadResultData(nil), 0
	}
	return fuse.ReadResultData(text[off:min(off+int64(len(dest)), int64(len(text)))]), 0
}

// historyText returns history.jsonl as of Table.Latest() and the newest
// commit timestamp in it, remaking the text only when the latest version has
// moved. The lock is not held while the table works.
func (r *root) historyText(ctx context.Context) (text []byte, mtime int64, errno syscall.Errno) {
	at := r.table.Latest()
	r.histMu.Lock()
	if r.histText != nil && r.histAt == at {
		text, mtime = r.histText, r.histTime
		r.histMu.Unlock()
		return text, mtime, 0
	}
	r.histMu.Unlock()

	entries, err := r.table.History(ctx)
	if err != nil {
		if !isCancel(err) {
			r.logf("history: %v", err)
		}
		return nil, 0, toErrno(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // one object per line
	enc.SetEscapeHTML(false)
	damaged := false
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			r.logf("history: %v", err)
			return nil, 0, syscall.EIO
		}
		at := e.Timestamp // the commit's own, for a version without an instant
		if e.Instant != nil {
			at = *e.Instant
		}
		mtime = max(mtime, at)
		damaged = damaged || e.Error != ""
	}
	text = buf.Bytes()
	if text == nil {
		text = []byte{}
	}
	r.histMu.Lock()
	// A text with a version's error is not kept: the error may have been
	// storage's, and passed.
	if at >= r.histAt && !damaged {
		r.histText, r.histAt, r.histTime = text, at, mtime
	}
	r.histMu.Unlock()
	return text, mtime, 0
}
