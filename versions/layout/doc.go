// Package layout turns a snapshot into the table as a Delta reader sees
// it, for tools that know nothing of Delta: which path each live file is
// served under, and which column names its Parquet footer must carry.
//
// Under the logical layout (the default) a partitioned table's files sit
// under <column>=<value>/ folders built from the log's partitionValues, in
// the order of partitionColumns, with the logical column names and values
// escaped as Spark escapes partition paths; a non-partitioned table is
// served flat. Under column mapping ('name' or 'id' mode) the served
// files carry the logical column names of the version (see Columns);
// where the table widened a column, its type; where its files may hold
// columns outside the schema (row tracking, change data feed), only the
// schema's (renameOf). The physical layout serves the stored paths and
// names unchanged.
//
// Everything here is pure: no storage, no FUSE.
package layout
