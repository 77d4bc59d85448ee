package fs

import (
	"context"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// readOnlyDir is embedded in every directory node: whatever would change a
// directory fails with EROFS. (The mount is also read-only, so the kernel
// normally answers first; this keeps the nodes honest on their own, and
// go-fuse would otherwise let Unlink and Rmdir succeed silently.)
type readOnlyDir struct{ readOnlyNode }

var (
	_ = (fusefs.NodeMkdirer)((*readOnlyDir)(nil))
	_ = (fusefs.NodeMknoder)((*readOnlyDir)(nil))
	_ = (fusefs.NodeCreater)((*readOnlyDir)(nil))
	_ = (fusefs.NodeUnlinker)((*readOnlyDir)(nil))
	_ = (fusefs.NodeRmdirer)((*readOnlyDir)(nil))
	_ = (fusefs.NodeRenamer)((*readOnlyDir)(nil))
	_ = (fusefs.NodeSymlinker)((*readOnlyDir)(nil))
	_ = (fusefs.NodeLinker)((*readOnlyDir)(nil))
)

func (readOnlyDir) Mkdir(context.Context, string, uint32, *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

func (readOnlyDir) Mknod(context.Context, string, uint32, uint32, *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

func (readOnlyDir) Create(context.Context, string, uint32, uint32, *fuse.EntryOut) (*fusefs.Inode, fusefs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.EROFS
}

func (readOnlyDir) Unlink(context.Context, string) syscall.Errno { return syscall.EROFS }

func (readOnlyDir) Rmdir(context.Context, string) syscall.Errno { return syscall.EROFS }

func (readOnlyDir) Rename(context.Context, string, fusefs.InodeEmbedder, string, uint32) syscall.Errno {
	return syscall.EROFS
}

func (readOnlyDir) Symlink(context.Context, string, string, *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

func (readOnlyDir) Link(context.Context, fusefs.InodeEmbedder, string, *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

// readOnlyNode is embedded in every node: attribute and xattr changes fail
// with EROFS.
type readOnlyNode struct{}

var (
	_ = (fusefs.NodeSetattrer)((*readOnlyNode)(nil))
	_ = (fusefs.NodeSetxattrer)((*readOnlyNode)(nil))
	_ = (fusefs.NodeRemovexattrer)((*readOnlyNode)(nil))
)

func (readOnlyNode) Setattr(context.Context, fusefs.FileHandle, *fuse.SetAttrIn, *fuse.AttrOut) syscall.Errno {
	return syscall.EROFS
}

func (readOnlyNode) Setxattr(context.Context, string, []byte, uint32) syscall.Errno {
	return syscall.EROFS
}

func (readOnlyNode) Removexattr(context.Context, string) syscall.Errno { return syscall.EROFS }

// readOnlyFile is embedded in file nodes: writes fail with EROFS.
type readOnlyFile struct{ readOnlyNode }

var (
	_ = (fusefs.NodeWriter)((*readOnlyFile)(nil))
	_ = (fusefs.NodeAllocater)((*readOnlyFile)(nil))
)

func (readOnlyFile) Write(context.Context, fusefs.FileHandle, []byte, int64) (uint32, syscall.Errno) {
	return 0, syscall.EROFS
}

func (readOnlyFile) Allocate(context.Context, fusefs.FileHandle, uint64, uint64, uint32) syscall.Errno {
	return syscall.EROFS
}

// writeFlags are open flags that ask to change a file.
const writeFlags = syscall.O_WRONLY | syscall.O_RDWR | syscall.O_TRUNC | syscall.O_APPEND | syscall.O_CREAT

// openReadOnly checks that open flags only ask to read.
func openReadOnly(flags uint32) syscall.Errno {
	if flags&writeFlags != 0 {
		return syscall.EROFS
	}
	return 0
}
