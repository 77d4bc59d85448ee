package replay

import (
	"fmt"
	"sort"

	"github.com/deltafs/deltafs/checkpoint"
)

// LogSegment names the log files that make up one version: the newest
// complete checkpoint at or below it (if any) and every commit after that.
type LogSegment struct {
	Version    int64
	Checkpoint *checkpoint.Checkpoint // nil: replay from commit 0
	Commits    []LogFile              // ascending and contiguous up to Version
}

// logIndex is a listing of _delta_log organised by version.
type logIndex struct {
	commits     map[int64]LogFile
	checkpoints map[int64][]LogFile
	min, max    int64
}

func indexLog(files []LogFile) *logIndex {
	ix := &logIndex{commits: map[int64]LogFile{}, checkpoints: map[int64][]LogFile{}, min: -1, max: -1}
	for _, f := range files {
		switch f.Kind {
		case Commit:
			ix.commits[f.Version] = f
		case CheckpointFile:
			ix.checkpoints[f.Version] = append(ix.checkpoints[f.Version], f)
		default:
			continue
		}
		if ix.min < 0 || f.Version < ix.min {
			ix.min = f.Version
		}
		ix.max = max(ix.max, f.Version)
	}
	return ix
}

// complete returns a complete checkpoint at version v, if there is one.
// Single-file checkpoints are preferred; a multi-part checkpoint counts only
// with every part present.
func (ix *logIndex) complete(v int64) *checkpoint.Checkpoint {
	files := ix.checkpoints[v]
	if len(files) == 0 {
		return nil
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Key < files[j].Key })
	for _, kind := range []checkpoint.Kind{checkpoint.Classic, checkpoint.V2Parquet, checkpoint.V2JSON} {
		for _, f := range files {
			if f.Checkpoint == kind {
				return &checkpoint.Checkpoint{Version: v, Kind: kind, Parts: []checkpoint.Part{{Key: f.Key, Size: f.Size}}}
			}
		}
	}
	// Multi-part: group by the number of parts; any complete set will do.
	byParts := map[int]map[int]LogFile{}
	for _, f := range files {
		if f.Checkpoint == checkpoint.MultiPart {
			if byParts[f.Parts] == nil {
				byParts[f.Parts] = map[int]LogFile{}
			}
			byParts[f.Parts][f.Part] = f
		}
	}
	for n, parts := range byParts {
		if len(parts) != n {
			continue
		}
		cp := &checkpoint.Checkpoint{Version: v, Kind: checkpoint.MultiPart}
		for i := 1; i <= n; i++ {
			cp.Parts = append(cp.Parts, checkpoint.Part{Key: parts[i].Key, Size: parts[i].Size})
		}
		return cp
	}
	return nil
}

// NewLogSegment chooses, from a listing of _delta_log, the files that make
// up version v: the newest complete checkpoint at or below v and the commits
// after it. A missing commit in that range is an error, never a guess.
func NewLogSegment(files []LogFile, v int64) (*LogSegment, error) {
	ix := indexLog(files)
	if v < 0 || v > ix.max {
		return nil, fmt.Errorf("version %d does not exist (latest is %d)", v, ix.max)
	}
	seg := &LogSegment{Version: v}
	start := int64(0)
	for c := v; c >= ix.min && c >= 0; c-- {
		if cp := ix.complete(c); cp != nil {
			seg.Checkpoint, start = cp, c+1
			break
		}
	}
	for w := start; w <= v; w++ {
		f, ok := ix.commits[w]
		if !ok {
			if seg.Checkpoint == nil && w == 0 {
				return nil, fmt.Errorf("version %d cannot be rebuilt: no complete checkpoint at or below it and no commit 0 (log history was cleaned up)", v)
			}
			return nil, fmt.Errorf("version %d cannot be rebuilt: missing commit %d", v, w)
		}
		seg.Commits = append(seg.Commits, f)
	}
	return seg, nil
}

// Rebuildable lists, ascending, the versions a listing can rebuild: those
// reachable from commit 0 or from a complete checkpoint through contiguous
// commits.
func Rebuildable(files []LogFile) []int64 {
	ix := indexLog(files)
	var out []int64
	ok := false // whether version v-1 is rebuildable
	for v := int64(0); v <= ix.max; v++ {
		_, commit := ix.commits[v]
		ok = (commit && (ok || v == 0)) || ix.complete(v) != nil
		if ok {
			out = append(out, v)
		}
	}
	return out
}

// CompleteCheckpoints lists the versions that have a complete checkpoint.
func CompleteCheckpoints(files []LogFile) []int64 {
	ix := indexLog(files)
	var out []int64
	for v := range ix.checkpoints {
		if ix.complete(v) != nil {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
