package replay

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/deltafs/deltafs/checkpoint"
)

// LogSegment names the log files that make up one version: the newest
// complete checkpoint at or below it (if any) and every commit after that.
type LogSegment struct {
	Version    int64
	Checkpoint *checkpoint.Checkpoint // nil: replay from commit 0
	Commits    []LogFile              // ascending and contiguous up to Version
}

// logIndex is a listing of _delta_log organised by version. The files
// stay in the listing (in key order, which is version order) and are found
// by binary search: maps of them cost a refresh 40 ms on 100,000 commits,
// under the table's lock.
type logIndex struct {
	files       []LogFile
	commits     []int   // indexes in files of the commits, by version, one each
	checkpoints []int   // indexes in files of the checkpoint files, by version
	cpVersions  []int64 // the versions of those, ascending, one each
	max         int64
}

func indexLog(files []LogFile) *logIndex {
	ix := &logIndex{files: files, commits: make([]int, 0, len(files)), max: -1}
	for i, f := range files {
		switch f.Kind {
		case Commit:
			ix.commits = append(ix.commits, i)
		case CheckpointFile:
			ix.checkpoints = append(ix.checkpoints, i)
		default:
			continue
		}
		ix.max = max(ix.max, f.Version)
	}
	byVersion := func(a, b int) int { return cmp.Compare(files[a].Version, files[b].Version) }
	for _, idx := range [][]int{ix.commits, ix.checkpoints} {
		if !slices.IsSortedFunc(idx, byVersion) { // a listing not in key order
			slices.SortStableFunc(idx, byVersion)
		}
	}
	// Of two commits of a version (keys differ only outside a listing of
	// one store), the last listed counts.
	out := ix.commits[:0]
	for k, i := range ix.commits {
		if k+1 < len(ix.commits) && files[ix.commits[k+1]].Version == files[i].Version {
			continue
		}
		out = append(out, i)
	}
	ix.commits = out
	for k, i := range ix.checkpoints {
		if v := files[i].Version; k == 0 || v != ix.cpVersions[len(ix.cpVersions)-1] {
			ix.cpVersions = append(ix.cpVersions, v)
		}
	}
	return ix
}

// commitVersion is the version of the k-th commit.
func (ix *logIndex) commitVersion(k int) int64 { return ix.files[ix.commits[k]].Version }

// firstCommitFrom returns the position of the first commit at or after v.
func (ix *logIndex) firstCommitFrom(v int64) int {
	return sort.Search(len(ix.commits), func(k int) bool { return ix.commitVersion(k) >= v })
}

// complete returns a complete checkpoint at version v, if there is one.
// Single-file checkpoints are preferred; a multi-part checkpoint counts only
// with every part present.
func (ix *logIndex) complete(v int64) *checkpoint.Checkpoint {
	var files []LogFile
	for k := sort.Search(len(ix.checkpoints), func(k int) bool { return ix.files[ix.checkpoints[k]].Version >= v }); k < len(ix.checkpoints); k++ {
		f := ix.files[ix.checkpoints[k]]
		if f.Version != v {
			break
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil
	}
	slices.SortFunc(files, func(a, b LogFile) int { return strings.Compare(a.Key, b.Key) })
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
	cps := ix.cpVersions
	for i := sort.Search(len(cps), func(i int) bool { return cps[i] > v }) - 1; i >= 0; i-- {
		if cp := ix.complete(cps[i]); cp != nil {
			seg.Checkpoint, start = cp, cps[i]+1
			break
		}
	}
	// Walks the commits listed from start, stopping at the first gap.
	k := ix.firstCommitFrom(start)
	for w := start; w <= v; w, k = w+1, k+1 {
		if k == len(ix.commits) || ix.commitVersion(k) != w {
			if seg.Checkpoint == nil && w == 0 {
				return nil, fmt.Errorf("version %d cannot be rebuilt: no complete checkpoint at or below it and no commit 0 (log history was cleaned up)", v)
			}
			return nil, fmt.Errorf("version %d cannot be rebuilt: missing commit %d", v, w)
		}
		seg.Commits = append(seg.Commits, ix.files[ix.commits[k]])
	}
	return seg, nil
}

// Rebuildable lists, ascending, the versions a listing can rebuild: those
// reachable from commit 0 or from a complete checkpoint through contiguous
// commits. It walks the versions listed, never the numbers between them, so
// one stray name like 09223372036854775807.json costs one step.
func Rebuildable(files []LogFile) []int64 {
	ix := indexLog(files)
	out := make([]int64, 0, len(ix.commits)+len(ix.cpVersions))
	prev, prevOK := int64(-1), false // the last version walked, and whether it is rebuildable
	ix.walk(func(v int64, commit bool) {
		ok := (commit && (v == 0 || (prevOK && prev == v-1))) || ix.complete(v) != nil
		if ok {
			out = append(out, v)
		}
		prev, prevOK = v, ok
	})
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
	for k := range ix.commits {
		v := ix.commitVersion(k)
		if head >= 0 && v != head+1 {
			break
		}
		head = v
	}
	return head
}

// walk calls fn, ascending, for every version that has a commit or a
// checkpoint file, saying whether it has a commit.
func (ix *logIndex) walk(fn func(v int64, commit bool)) {
	cps := ix.cpVersions
	k, c := 0, 0
	for k < len(ix.commits) || c < len(cps) {
		switch {
		case c == len(cps) || k < len(ix.commits) && ix.commitVersion(k) < cps[c]:
			fn(ix.commitVersion(k), true)
			k++
		case k == len(ix.commits) || cps[c] < ix.commitVersion(k):
			fn(cps[c], false)
			c++
		default: // both
			fn(cps[c], true)
			k, c = k+1, c+1
		}
	}
}

// CompleteCheckpoints lists the versions that have a complete checkpoint.
func CompleteCheckpoints(files []LogFile) []int64 {
	ix := indexLog(files)
	var out []int64
	for _, v := range ix.cpVersions {
		if ix.complete(v) != nil {
			out = append(out, v)
		}
	}
	return out
}
