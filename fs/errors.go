package fs

import (
	"context"
	"errors"
	iofs "io/fs"
	"syscall"
)

// toErrno is the one mapping from the errors of the layers below to errno.
// Context errors mean the caller gave up (the kernel interrupted the
// request, or the mount is going away); a missing object is ENOENT where a
// name is looked up; anything else is an I/O error.
func toErrno(err error) syscall.Errno {
	var errno syscall.Errno
	switch {
	case err == nil:
		return 0
	case errors.As(err, &errno):
		return errno
	case errors.Is(err, context.Canceled):
		return syscall.EINTR
	case errors.Is(err, context.DeadlineExceeded):
		return syscall.ETIMEDOUT
	case errors.Is(err, iofs.ErrNotExist):
		return syscall.ENOENT
	case errors.Is(err, iofs.ErrPermission):
		return syscall.EACCES
	case errors.Is(err, errors.ErrUnsupported):
		return syscall.ENOTSUP
	default:
		return syscall.EIO
	}
}

// readErrno maps an error met while reading a data file's bytes. The file's
// name came from the log, so a missing object is a broken table, not a
// missing name: every failure but the caller's own cancellation is EIO.
func readErrno(err error) syscall.Errno {
	if isCancel(err) {
		return toErrno(err)
	}
	return syscall.EIO
}

// isCancel reports whether err only says that the caller gave up.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
