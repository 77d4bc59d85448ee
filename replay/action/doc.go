// Package action is the vocabulary of the Delta transaction log: the typed
// actions of PROTOCOL.md (add, remove, metaData, protocol, txn,
// domainMetadata, commitInfo, sidecar, checkpointMetadata, cdc) and their
// decoding from newline-delimited JSON. The add and remove lines that make
// up most of a commit are scanned by hand (scan.go), everything else by
// encoding/json, which the scanner defers to whenever it is unsure.
//
// It is a leaf so that both the checkpoint readers and log replay can speak
// it without importing each other. Unknown fields and unknown action types are
// tolerated, as the protocol requires of readers.
package action
