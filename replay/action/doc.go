// Package action is the vocabulary of the Delta transaction log: the typed
// actions of PROTOCOL.md (add, remove, metaData, protocol, txn,
// domainMetadata, commitInfo, sidecar, checkpointMetadata, cdc) and their
// decoding from newline-delimited JSON. The add and remove lines that make
// up most of a commit, and its commitInfo, are scanned by hand (scan.go),
// everything else by encoding/json, which the scanner defers to whenever it
// is unsure. A large commit is parsed in pieces on every core (parseall.go).
//
// It is a leaf so that both the checkpoint readers and log replay can speak
// it without importing each other. Unknown fields and unknown action types are
// tolerated, as the protocol requires of readers.
package action
