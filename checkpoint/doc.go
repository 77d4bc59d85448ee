// Package checkpoint reads Delta checkpoints: classic single-file and
// multi-part Parquet checkpoints, v2 checkpoints in JSON or Parquet (also
// under a classic name) and the sidecar files they point to.
//
// Parquet checkpoints are read column by column, and only the columns replay
// needs: the footer first, then the byte ranges of the needed column chunks,
// fetched in parallel. Row groups are decoded in parallel. Add rows become
// compact action.File values directly, never a map or a JSON object per row,
// which is what lets a million-file checkpoint load in a fraction of a second.
package checkpoint
