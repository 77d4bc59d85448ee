package fs

import (
	"syscall"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// noOpendirFS is go-fuse's node file system with directory opens left to
// the kernel: OPENDIR answers ENOSYS, after which the kernel opens
// directories on its own, without a round trip (a glob over a table opens
// each several times), keeps their listings (as for FOPEN_CACHE_DIR)
// until refresh invalidates them, and sends READDIR without a handle.
// go-fuse lists only through a handle, so each such READDIR opens one for
// itself, seeks to the offset asked for (every listing here is a slice
// that can, kept between READDIRs: dirlisting.go) and releases it.
type noOpendirFS struct {
	fuse.RawFileSystem
}

func (fs noOpendirFS) OpenDir(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	return fuse.Status(syscall.ENOSYS)
}

func (fs noOpendirFS) ReadDir(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	return fs.withHandle(cancel, in, func(in *fuse.ReadIn) fuse.Status { return fs.RawFileSystem.ReadDir(cancel, in, out) })
}

func (fs noOpendirFS) ReadDirPlus(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	return fs.withHandle(cancel, in, func(in *fuse.ReadIn) fuse.Status { return fs.RawFileSystem.ReadDirPlus(cancel, in, out) })
}

// ReleaseDir passes on only the release of a handle go-fuse made.
func (fs noOpendirFS) ReleaseDir(in *fuse.ReleaseIn) {
	if in.Fh != 0 {
		fs.RawFileSystem.ReleaseDir(in)
	}
}

// withHandle runs read with in given a handle of its own, unless the
// kernel sent one.
func (fs noOpendirFS) withHandle(cancel <-chan struct{}, in *fuse.ReadIn, read func(*fuse.ReadIn) fuse.Status) fuse.Status {
	if in.Fh != 0 {
		return read(in)
	}
	var opened fuse.OpenOut
	open := fuse.OpenIn{InHeader: in.InHeader, Flags: syscall.O_RDONLY | syscall.O_DIRECTORY}
	if st := fs.RawFileSystem.OpenDir(cancel, &open, &opened); !st.Ok() {
		return st
	}
	defer fs.RawFileSystem.ReleaseDir(&fuse.ReleaseIn{InHeader: in.InHeader, Fh: opened.Fh})
	own := *in
	own.Fh = opened.Fh
	return read(&own)
}
