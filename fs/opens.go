package fs

import (
	"os"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// leaveOpensToKernel decides, once the kernel's settings are known,
// whether the kernel opens files without asking deltafs (no_open): with
// Options.NoOpen always, with Options.AlwaysOpen never, and otherwise
// where an open would hand the kernel nothing: a local table read through
// the page cache (no direct I/O) whose files cannot be passed through
// (Options.NoPassthrough; a kernel without passthrough; a mount by a user
// other than root, whom the kernel refuses it). Reads there take the same
// path either way, and an open is a round trip: 2,000 small files open
// about 4x as fast without them (BENCHMARKS.md). kernelFlags are the
// capabilities the kernel offered (fuse.InitIn.Flags64).
func leaveOpensToKernel(o Options, t Table, directIO bool, kernelFlags uint64) bool {
	switch {
	case o.NoOpen:
		return true
	case o.AlwaysOpen || directIO:
		return false
	}
	if lf, ok := t.(LocalFiler); !ok || !lf.HasLocalFiles() {
		return false
	}
	return o.NoPassthrough || kernelFlags&fuse.CAP_PASSTHROUGH == 0 || os.Geteuid() != 0
}
