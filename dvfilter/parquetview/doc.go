// Package parquetview serves a Parquet data file as a view: another valid
// Parquet file made of byte ranges of the stored one and a few new bytes,
// built by transforms of the stored file. Four transforms exist: leaving
// out rows (the rows a deletion vector deletes: Build's Rows), serving the
// columns under other names, or fewer of them (Rename: column mapping,
// columns outside the table's schema), serving columns in wider types
// than stored (a Rename's LeafType: type widening, widen.go), and serving
// timestamps as instants (a Rename's Instant: relabeled, instant.go, or
// converted from INT96, int96.go). Widened and INT96 values are converted
// column chunk by column chunk, page by page (convertpages.go).
//
// A row group that loses no row is copied byte for byte; one that loses
// every row is dropped; one that loses some is rebuilt page by page where
// it can be (splice.go, page.go, pagecut.go, values.go: pages without
// deleted rows are copied, the others re-encoded, run by run where their
// runs claim many values, hybrid.go) and else decoded and re-encoded
// whole (reencode.go). The footer is rewritten (footer.go, footer_encode.go),
// and renamed (rename.go) when asked. A file that only loses columns'
// names keeps every byte before its footer; one that loses nothing (a
// Rename keeping its columns as they are, no row deleted) is Unchanged,
// found from the footer's schema alone.
//
// The package reads through the narrow RangeReader the caller passes and
// never talks to storage itself; which rows are deleted comes from Rows (a
// decoded deletion vector: dvfilter.Vector).
package parquetview
