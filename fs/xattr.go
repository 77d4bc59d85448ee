package fs

import (
	"context"
	"encoding/json"
	"strconv"
	"syscall"

	"github.com/deltafs/deltafs/replay"
)

// Extended attributes of data files, all read-only and all from the
// snapshot:
//
//	user.delta.version           the version directory the file is seen in
//	user.delta.path              the file's path relative to the table root
//	user.delta.size              size in bytes from the add action
//	user.delta.modificationTime  milliseconds since the epoch
//	user.delta.numRecords        rows from the add's stats (absent if unknown)
//	user.delta.partitionValues   JSON object; null values are null
//	user.delta.deletedRows       rows the deletion vector removes (0 without one)
//	user.delta.deletionVector    the deletion vector descriptor as JSON (absent without one)
const xattrPrefix = "user.delta."

var xattrNames = []string{
	"version", "path", "size", "modificationTime", "numRecords",
	"partitionValues", "deletedRows", "deletionVector",
}

// xattr returns the value of one attribute, or false if the file has none.
func (n *fileNode) xattr(ctx context.Context, name string) ([]byte, bool) {
	f := n.f
	itoa := func(i int64) []byte { return strconv.AppendInt(nil, i, 10) }
	switch name {
	case xattrPrefix + "version":
		return itoa(n.tree.version), true
	case xattrPrefix + "path":
		return []byte(f.Path), true
	case xattrPrefix + "size":
		return itoa(f.Size), true
	case xattrPrefix + "modificationTime":
		return itoa(f.ModTime), true
	case xattrPrefix + "numRecords":
		records, _, ok := n.details(ctx)
		return itoa(records), ok && records >= 0
	case xattrPrefix + "partitionValues":
		_, part, ok := n.details(ctx)
		if !ok {
			return nil, false
		}
		b, err := json.Marshal(part.Map()) // map keys marshal sorted
		return b, err == nil
	case xattrPrefix + "deletedRows":
		return itoa(f.DeletedRows()), true
	case xattrPrefix + "deletionVector":
		if f.DV == nil {
			return nil, false
		}
		b, err := json.Marshal(f.DV)
		return b, err == nil
	}
	return nil, false
}

// Getxattr returns one attribute; with an empty dest, only its size.
func (n *fileNode) Getxattr(ctx context.Context, attr string, dest []byte) (uint32, syscall.Errno) {
	v, ok := n.xattr(ctx, attr)
	if !ok {
		return 0, syscall.ENODATA
	}
	return copyXattr(dest, v)
}

// Listxattr lists the attributes the file has, NUL-terminated.
func (n *fileNode) Listxattr(ctx context.Context, dest []byte) (uint32, syscall.Errno) {
	var list []byte
	for _, name := range xattrNames {
		if _, ok := n.xattr(ctx, xattrPrefix+name); ok {
			list = append(list, xattrPrefix+name...)
			list = append(list, 0)
		}
	}
	return copyXattr(dest, list)
}

// copyXattr follows the getxattr(2) contract: an empty buffer asks for the
// size, a short one is ERANGE.
func copyXattr(dest, v []byte) (uint32, syscall.Errno) {
	if len(dest) == 0 {
		return uint32(len(v)), 0
	}
	if len(dest) < len(v) {
		return uint32(len(v)), syscall.ERANGE
	}
	return uint32(copy(dest, v)), 0
}

// details returns the file's numRecords and partition values: the only
// attributes that may read storage, since snapshots read the checkpoint's
// stats and partition values on first use.
func (n *fileNode) details(ctx context.Context) (int64, *replay.Partition, bool) {
	snap, err := n.root.table.Snapshot(ctx, n.tree.version)
	if err != nil {
		return 0, nil, false
	}
	records, part, _, ok, err := snap.DetailsOf(ctx, n.f.Path)
	if err != nil {
		n.root.logf("%s: %v", n.where(), err)
		return 0, nil, false
	}
	return records, part, ok
}
