// Package tests holds the end-to-end tests of deltafs: the snapshot engine
// against the oracle of the shared real tables, the CLI, and (with FUSE) the
// mount read by real Parquet readers. Table generators for tests live in
// tests/deltagen.
package tests
