package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/versions/serve"
)

// externalFlag is --allow-external: the locations outside a table whose
// files its log may name by absolute URIs, as a shallow clone names its
// source's. mount serves them, ls and diff give where, doctor checks them.
type externalFlag []string

func (e *externalFlag) register(fs *pflag.FlagSet) {
	fs.StringArrayVar((*[]string)(e), "allow-external", nil, "a location outside the table (a path or URI, as TABLE) whose files the log may name by absolute URIs, "+
		"as a shallow clone names its source's: they are read and served like the table's own (repeat for several; default: none, such files are not served)")
}

// storage opens a store at each location, beside the table's st (nil
// where only Serves is asked); closeStores closes them.
func (e externalFlag) storage(ctx context.Context, st *blobstore.Store, opts ...blobstore.Option) (serve.StoreStorage, func(), error) {
	storage := serve.StoreStorage{Store: st}
	closeStores := func() {
		for _, other := range storage.Elsewhere {
			other.Close()
		}
	}
	for _, loc := range e {
		other, err := blobstore.Open(ctx, loc, opts...)
		if err != nil {
			closeStores()
			return serve.StoreStorage{}, nil, fmt.Errorf("--allow-external %s: %w", loc, err)
		}
		storage.Elsewhere = append(storage.Elsewhere, other)
	}
	return storage, closeStores, nil
}

// unserved counts the files a mount does not serve, those outside the
// table root under no --allow-external location, and returns the folder
// they all lie under (a shallow clone's source, or below it), "" where
// they share none: what --allow-external should name.
func unserved(files []replay.File, serves func(string) bool) (int, string) {
	n, under := 0, ""
	for i := range files {
		p := files[i].Path
		if serves(p) {
			continue
		}
		if n++; n == 1 {
			under = p[:strings.LastIndexByte(p, '/')+1]
			continue
		}
		for !strings.HasPrefix(p, under) {
			under = under[:strings.LastIndexByte(under[:len(under)-1], '/')+1]
		}
	}
	if i := strings.Index(under, "://"); i < 0 || strings.Trim(under[i+3:], "/") == "" {
		return n, "" // nothing shared past the scheme
	}
	return n, strings.TrimSuffix(under, "/")
}

// unservedNote says that n of the total live files of a version are not
// shown, and what shows them.
func unservedNote(n, total int, version int64, under string) string {
	where := ""
	if under != "" {
		where = " (under " + under + ")"
	}
	return fmt.Sprintf("version %d: %d of %s lie outside the table%s and are not shown: mount with %s to show them (a shallow clone's source; a mount reads nothing outside the table unless told)",
		version, n, plural(total, "live file", "live files"), where, allowExternal(under))
}

// allowExternal is the flag that shows files lying under the folder under
// ("" where they share none).
func allowExternal(under string) string {
	if under == "" {
		return "--allow-external LOCATION for the folder they lie in"
	}
	return "--allow-external " + under
}
