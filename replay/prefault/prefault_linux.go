package prefault

import (
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14), which the syscall
// package does not name.
const madvPopulateWrite = 23

// Slice maps the whole pages under s (its length, not its capacity)
// writable in one system call, best effort (older kernels refuse it;
// nothing changes). Callers pass a large new slice of pointers right
// after making it, before they fill it and before a collection reads it.
//
// A large new slice is fresh memory from the kernel. Read before it is
// written (by the collector scanning it, or by the write barrier, which
// reads the old pointer first), each of its pages maps the shared zero
// page, and the write that follows is a copy-on-write fault that flushes
// the other cores' TLBs (an interrupt per core, dear in a VM): a fifth of
// `deltafs ls` on a 1M-file checkpoint (BENCHMARKS.md, snapshot).
func Slice[T any](s []T) {
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
