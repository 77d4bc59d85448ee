package fs

import (
	"context"
	"fmt"
	"os"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// leaveOpensToKernel decides, once the kernel's settings are known,
// whether the kernel opens files without asking deltafs (no_open): with
// Options.NoOpen always, with Options.AlwaysOpen never, and otherwise
// where an open would hand the kernel nothing: a local table read through
// the page cache whose files are not passed through, as none can be
// (Options.NoPassthrough; a kernel without passthrough; a mount by a user
// other than root, whom the kernel refuses it) or none is large enough
// (passthroughMin) in the latest version. Reads there take the same path
// either way, and an open is a round trip: 2,000 small files open about
// 4x as fast without them (BENCHMARKS.md). The choice holds for the whole
// mount: files that come later, larger, are read through the page cache.
// kernelFlags are the capabilities the kernel offered
// (fuse.InitIn.Flags64). It returns why, for the log, or "".
func leaveOpensToKernel(ctx context.Context, o Options, t Table, directIO bool, kernelFlags uint64) (why string) {
	switch {
	case o.NoOpen:
		return "--no-open"
	case o.AlwaysOpen || directIO:
		return ""
	}
	if lf, ok := t.(LocalFiler); !ok || !lf.HasLocalFiles() {
		return ""
	}
	switch {
	case o.NoPassthrough:
		return "files are not passed through (--passthrough=false)"
	case kernelFlags&fuse.CAP_PASSTHROUGH == 0:
		return "this kernel cannot pass files through (Linux 6.9)"
	case os.Geteuid() != 0:
		return "files are passed through only by a mount by root"
	case !hasLargeFile(ctx, t):
		return fmt.Sprintf("no file of the latest version can be passed through (one of %d MiB or more, without a deletion vector)", passthroughMin>>20)
	}
	return ""
}

// hasLargeFile reports whether the latest version has a file an open
// could pass through (passable), or might have: its snapshot failed.
func hasLargeFile(ctx context.Context, t Table) bool {
	snap, err := t.Snapshot(ctx, t.Latest())
	if err != nil {
		return true
	}
	for i := range snap.Files {
		if passable(&snap.Files[i]) {
			return true
		}
	}
	return false
}
