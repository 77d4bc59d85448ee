package fs

import (
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/deltafs/deltafs/versions/serve"
)

// leasedReply is the answer to a READ whose bytes lie in a reused block
// buffer (serve.Lease), which may go to another block only once the bytes
// are written to the kernel. go-fuse writes a reply that gives its bytes
// as Slices with one writev and calls Done after; any other reply it may
// flatten, and call Done before the write. So Done gives the buffer back
// only if Slices was asked for; otherwise the buffer is left to the
// collector (safe, and TestLeasedBytesAreSentBeforeReuse fails on the
// buffers made).
type leasedReply struct {
	parts    [1][]byte
	lease    *serve.Lease
	vectored bool // Slices was asked for
}

func newLeasedReply(data []byte, lease *serve.Lease) *leasedReply {
	return &leasedReply{parts: [1][]byte{data}, lease: lease}
}

func (r *leasedReply) Size() int { return len(r.parts[0]) }

func (r *leasedReply) Bytes([]byte) ([]byte, fuse.Status) { return r.parts[0], fuse.OK }

// Slices has go-fuse write the bytes as they are, then call Done.
func (r *leasedReply) Slices() ([][]byte, fuse.Status) {
	r.vectored = true
	return r.parts[:], fuse.OK
}

// Done gives the buffer back if the bytes are sure to be sent; a second
// call does nothing.
func (r *leasedReply) Done() {
	if r.vectored {
		r.lease.Release()
	}
	r.lease = nil
}
