package replay

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestIndexMatchesMaps: the listing index (segment.go) answers as the
// plain maps it replaced, on random listings in key order and shuffled:
// gaps, checkpoints of every kind, incomplete multi-part ones, versions
// with only a checkpoint.
func TestIndexMatchesMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 2000 {
		files := randomListing(rng)
		if round%2 == 1 {
			rng.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
		}
		name := fmt.Sprintf("round %d (%d files)", round, len(files))
		want := mapsRebuildable(files)
		if got := Rebuildable(files); !slices.Equal(got, want) {
			t.Fatalf("%s: Rebuildable = %v, want %v\n%v", name, got, want, keysOf(files))
		}
		if got, want := Head(files), mapsHead(files); got != want {
			t.Fatalf("%s: Head = %d, want %d\n%v", name, got, want, keysOf(files))
		}
		for v := int64(-1); v <= 42; v++ {
			got, gotErr := NewLogSegment(files, v)
			want, wantErr := mapsSegment(files, v)
			if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: NewLogSegment(%d) = %+v, %v; want %+v, %v\n%v", name, v, got, gotErr, want, wantErr, keysOf(files))
			}
		}
	}
}

func randomListing(rng *rand.Rand) []LogFile {
	var keys []string
	from := rng.Int64N(5)
	for v := from; v < from+rng.Int64N(40); v++ {
		if rng.IntN(10) > 0 {
			keys = append(keys, CommitKey(v))
		}
		if rng.IntN(6) > 0 {
			continue
		}
		cp := LogDir + Padded(v) + ".checkpoint."
		switch rng.IntN(4) {
		case 0:
			keys = append(keys, cp+"parquet")
		case 1:
			keys = append(keys, cp+"3a0d65cd-4056-49b8-937b-95f9e3ee90e5.json")
		default:
			parts := 1 + rng.IntN(3)
			for p := 1; p <= parts; p++ {
				if rng.IntN(4) > 0 {
					keys = append(keys, cp+fmt.Sprintf("%010d.%010d.parquet", p, parts))
				}
			}
		}
	}
	slices.Sort(keys)
	var files []LogFile
	for i, k := range keys {
		f, ok := ParseLogFile(k, int64(i), int64(i))
		if !ok {
			panic(k)
		}
		files = append(files, f)
	}
	return files
}

func keysOf(files []LogFile) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Key[len(LogDir):])
	}
	return out
}

// The maps the index replaced, and the walks over them.

func mapsOf(files []LogFile) (commits map[int64]LogFile, cps map[int64][]LogFile, versions []int64) {
	commits, cps = map[int64]LogFile{}, map[int64][]LogFile{}
	for _, f := range files {
		switch f.Kind {
		case Commit:
			commits[f.Version] = f
		case CheckpointFile:
			cps[f.Version] = append(cps[f.Version], f)
		}
	}
	for v := range commits {
		versions = append(versions, v)
	}
	for v := range cps {
		if _, dup := commits[v]; !dup {
			versions = append(versions, v)
		}
	}
	slices.Sort(versions)
	return commits, cps, versions
}

// mapsComplete: complete's choice among the files of one version, which
// the index finds in the listing, is not what it replaced.
func mapsComplete(cps map[int64][]LogFile, v int64) bool {
	return len(cps[v]) > 0 && indexLog(cps[v]).complete(v) != nil
}

func mapsRebuildable(files []LogFile) []int64 {
	commits, cps, versions := mapsOf(files)
	out := []int64{}
	prev, prevOK := int64(-1), false
	for _, v := range versions {
		_, commit := commits[v]
		ok := commit && (v == 0 || prevOK && prev == v-1) || mapsComplete(cps, v)
		if ok {
			out = append(out, v)
		}
		prev, prevOK = v, ok
	}
	return out
}

func mapsHead(files []LogFile) int64 {
	if rb := mapsRebuildable(files); len(rb) > 0 {
		return rb[len(rb)-1]
	}
	commits, _, versions := mapsOf(files)
	head := int64(-1)
	for _, v := range versions {
		if _, commit := commits[v]; commit && (head < 0 || v == head+1) {
			head = v
		} else if head >= 0 {
			break
		}
	}
	return head
}

func mapsSegment(files []LogFile, v int64) (*LogSegment, error) {
	commits, cps, versions := mapsOf(files)
	last := int64(-1)
	if len(versions) > 0 {
		last = versions[len(versions)-1]
	}
	if v < 0 || v > last {
		return nil, fmt.Errorf("version %d does not exist (latest is %d)", v, last)
	}
	seg := &LogSegment{Version: v}
	start := int64(0)
	for w := v; w >= 0; w-- {
		if mapsComplete(cps, w) {
			seg.Checkpoint, start = indexLog(cps[w]).complete(w), w+1
			break
		}
	}
	for w := start; w <= v; w++ {
		f, ok := commits[w]
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
