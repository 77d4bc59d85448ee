package main

import (
	"io"
	"log"

	"github.com/deltafs/deltafs/blobstore"
)

// retryLog has a store log each retry on stderr, as a mount does: an
// inspection command on a store that fails or stays silent otherwise
// printed nothing until its last try failed, minutes later.
func retryLog(stderr io.Writer) blobstore.Option {
	return blobstore.WithLogf(log.New(stderr, "deltafs: ", log.LstdFlags|log.Lmsgprefix).Printf)
}
