// Package versions knows which versions of a table exist and can be rebuilt,
// tracks the latest one, and caches one snapshot per version.
//
// Opening a table follows the cost model of DESIGN.md: read
// _last_checkpoint, list _delta_log from the checkpoint's key, then read the
// checkpoint and the commits after it in parallel. When _last_checkpoint is
// missing, corrupt or points at a checkpoint that is not there, the log is
// probed with parallel listings that start at chosen keys instead of being
// listed from version 0.
package versions
