package checkpoint

import (
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14), which the syscall
// package does not name.
const madvPopulateWrite = 23

// prefault maps the whole pages under s (its length, not its capacity)
// writable in one system call, best effort (older kernels refuse it;
// nothing changes). Callers pass what they are about to fill, so that a
// decode that fails commits no more memory than it would have written.
//
// A large new slice is fresh memory from the kernel. Filled one element
// at a time while the garbage collector runs, each of its pages faults
// twice: the write barrier reads the old pointer first, which maps the
// shared zero page, and the write then replaces it, a copy-on-write fault
// that flushes the other cores' TLBs (an interrupt per core, dear in a
// VM). That was a fifth of `deltafs ls` on a 1M-file checkpoint.
func prefault[T any](s []T) {
	if len(s) == 0 {
		return
	}
	const page = 4096
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	end := start + uintptr(len(s))*unsafe.Sizeof(s[0])
	lo, hi := (start+page-1)&^(page-1), end&^(page-1)
	if hi > lo {
		syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvPopulateWrite)
	}
}
