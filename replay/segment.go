package replay

import (
	"fmt"
	"slices"
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
// The work is bounded by the files listed, whatever numbers they carry.
func NewLogSegment(files []LogFile, v int64) (*LogSegment, error) {
	ix := indexLog(files)
	if v < 0 || v > ix.max {
		return nil, fmt.Errorf("version %d does not exist (latest is %d)", v, ix.max)
	}
	seg := &LogSegment{Version: v}
	start := int64(0)
	cps := ix.checkpointVersions()
	for i := sort.Search(len(cps), func(i int) bool { return cps[i] > v }) - 1; i >= 0; i-- {
		if cp := ix.complete(cps[i]); cp != nil {
			seg.Checkpoint, start = cp, cps[i]+1
			break
		}
	}
	// Stops at the first missing commit: at most len(ix.commits)+1 rounds.
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
// commits. It walks the versions listed, never the numbers between them, so
// one stray name like 09223372036854775807.json costs one step.
func Rebuildable(files []LogFile) []int64 {
	ix := indexLog(files)
	var out []int64
	prev, prevOK := int64(-1), false // the last version walked, and whether it is rebuildable
	for _, v := range ix.versions() {
		_, commit := ix.commits[v]
		ok := (commit && (v == 0 || (prevOK && prev == v-1))) || ix.complete(v) != nil
		if ok {
			out = append(out, v)
		}
		prev, prevOK = v, ok
	}
	return out
}

// Head is the newest version a listing can be trusted to reach: the newest
// rebuildable one; in a listing of the log's tail that holds no complete
// checkpoint, the end of the run of contiguous commits from its oldest.
// A stray commit far beyond the log's end is never the head. -1: no commit
// or checkpoint.
func Head(files []LogFile) int64 {
	if rb := Rebuildable(files); len(rb) > 0 {
		return rb[len(rb)-1]
	}
	ix := indexLog(files)
	head := int64(-1)
	for _, v := range ix.versions() {
		if _, commit := ix.commits[v]; commit && (head < 0 || v == head+1) {
			head = v
		} else if head >= 0 {
			break
		}
	}
	return head
}

// versions lists, ascending, every version that has a commit or a
// checkpoint file.
func (ix *logIndex) versions() []int64 {
	out := make([]int64, 0, len(ix.commits)+len(ix.checkpoints))
	for v := range ix.commits {
		out = append(out, v)
	}
	for v := range ix.checkpoints {
		if _, dup := ix.commits[v]; !dup {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// checkpointVersions lists, ascending, the versions with checkpoint files.
func (ix *logIndex) checkpointVersions() []int64 {
	out := make([]int64, 0, len(ix.checkpoints))
	for v := range ix.checkpoints {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// CompleteCheckpoints lists the versions that have a complete checkpoint.
func CompleteCheckpoints(files []LogFile) []int64 {
	ix := indexLog(files)
	var out []int64
	for _, v := range ix.checkpointVersions() {
		if ix.complete(v) != nil {
			out = append(out, v)
		}
	}
	return out
}
