package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/deltafs/deltafs/blobstore"
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
