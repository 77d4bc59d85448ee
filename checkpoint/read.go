package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/deltafs/deltafs/replay/action"
)

// Kind is the kind of a checkpoint, as its file names tell.
type Kind int

const (
	Classic   Kind = iota // %020d.checkpoint.parquet (may hold v2 content)
	MultiPart             // %020d.checkpoint.%010d.%010d.parquet
	V2JSON                // %020d.checkpoint.<uuid>.json
	V2Parquet             // %020d.checkpoint.<uuid>.parquet
)

func (k Kind) String() string {
	return [...]string{"classic", "multi-part", "v2-json", "v2-parquet"}[k]
}

// Checkpoint names the files of one checkpoint.
type Checkpoint struct {
	Version int64
	Kind    Kind
	Parts   []Part // one, or every part of a multi-part checkpoint in order
}

// SidecarDir is where v2 checkpoints keep their sidecar files.
const SidecarDir = "_delta_log/_sidecars/"

// Read reads and decodes a whole checkpoint.
func Read(ctx context.Context, st Storage, cp Checkpoint, opts Options) (*Result, error) {
	f, err := Fetch(ctx, st, cp, opts.Details)
	if err != nil {
		return nil, err
	}
	return f.Decode(ctx, opts)
}

// Fetched is a checkpoint whose needed bytes are in memory, ready to decode
// once the caller knows which files newer commits decided (Options.Seen).
// Fetching first lets a caller read the checkpoint and the commits after it
// at the same time.
type Fetched struct {
	version  int64
	json     []byte         // a v2 checkpoint in JSON, or nil
	parquets []*parquetFile // the Parquet parts, then the sidecars
	details  Detail
}

// Fetch reads the files of a checkpoint: all its parts in parallel, then the
// sidecars a v2 checkpoint points to, also in parallel. With details, the
// partition values columns are read too, and with AllDetails the stats.
func Fetch(ctx context.Context, st Storage, cp Checkpoint, details Detail) (*Fetched, error) {
	f := &Fetched{version: cp.Version, details: details}
	var actions []action.Sidecar
	if cp.Kind == V2JSON {
		var err error
		if f.json, err = st.Read(ctx, cp.Parts[0].Key); err != nil {
			return nil, fmt.Errorf("checkpoint %s: %w", cp.Parts[0].Key, err)
		}
		top, err := decodeJSON(f.json, cp.Parts[0].Key, Options{})
		if err != nil {
			return nil, err
		}
		for _, a := range top.Actions {
			if a.Sidecar != nil {
				actions = append(actions, *a.Sidecar)
			}
		}
	} else {
		var err error
		if f.parquets, err = fetchAll(ctx, st, cp.Parts, details); err != nil {
			return nil, err
		}
		for _, pf := range f.parquets {
			sc, err := pf.sidecars()
			if err != nil {
				return nil, err
			}
			actions = append(actions, sc...)
		}
	}
	var sidecars []Part
	named := make(map[string]bool, len(actions))
	for i := range actions {
		p, err := sidecarPart(&actions[i])
		if err != nil {
			return nil, fmt.Errorf("checkpoint %d: %w", cp.Version, err)
		}
		// A checkpoint lists each file action once, and sidecars have
		// unique names (PROTOCOL.md): one named twice would count its
		// files twice. (A JSON checkpoint naming a 2 MB sidecar 3,000
		// times had it fetched 3,000 times at once: out of memory.)
		if named[p.Key] {
			return nil, fmt.Errorf("checkpoint %d: sidecar %s is named more than once", cp.Version, p.Key)
		}
		named[p.Key] = true
		sidecars = append(sidecars, p)
	}
	side, err := fetchAll(ctx, st, sidecars, details)
	if err != nil {
		return nil, err
	}
	f.parquets = append(f.parquets, side...)
	return f, nil
}

// CountTombstones counts the remove actions of a checkpoint (its parts
// and sidecars), reading their paths alone.
func CountTombstones(ctx context.Context, st Storage, cp Checkpoint) (int, error) {
	f, err := Fetch(ctx, st, cp, tombstones)
	if err != nil {
		return 0, err
	}
	res, err := f.Decode(ctx, Options{})
	if err != nil {
		return 0, err
	}
	return res.Tombstones, nil
}

// Decode decodes the fetched files. opts.Details is ignored: whether details
// are read was decided by Fetch.
func (f *Fetched) Decode(ctx context.Context, opts Options) (*Result, error) {
	opts.Details = f.details
	head := &Result{}
	if f.json != nil {
		var err error
		if head, err = decodeJSON(f.json, fmt.Sprintf("v%d", f.version), opts); err != nil {
			return nil, err
		}
	}
	return decodeParquets(ctx, head, f.parquets, opts)
}

// maxFetches bounds the Parquet files fetched at once: a checkpoint may
// have thousands of parts or sidecars, and each holds buffers while its
// columns are fetched and checked. Enough for the parts of any checkpoint
// met to come in one round trip, as the cost model has them (35 parts in
// TestOpenRoundTrips: 16 at a time sometimes took a round more).
const maxFetches = 64

// fetchAll fetches Parquet files in parallel, maxFetches at a time.
func fetchAll(ctx context.Context, st Storage, parts []Part, details Detail) ([]*parquetFile, error) {
	out := make([]*parquetFile, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	slots := make(chan struct{}, maxFetches)
	for i, p := range parts {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			out[i], errs[i] = fetchParquet(ctx, st, p, details)
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// decodeJSON decodes a v2 checkpoint written as newline-delimited JSON.
func decodeJSON(data []byte, name string, opts Options) (*Result, error) {
	res := &Result{}
	var files []action.File
	var records []int64
	var parts []*action.Partition
	var counted []*action.ColumnSet
	in := &action.Interner{}
	err := action.ParseLines(data, func(a *action.Action) error {
		switch {
		case a.Add != nil:
			if opts.Details == tombstones {
				return nil
			}
			f, err := action.FileOf(a.Add, opts.Root)
			if err != nil {
				return fmt.Errorf("add: %w", err)
			}
			if opts.Seen.Has(f.Path, f.DV) {
				return nil
			}
			files = append(files, f)
			if opts.Details.partitions() {
				n := int64(-1)
				if opts.Details == AllDetails {
					n = a.Add.NumRecords()
					counted = append(counted, a.Add.NullCounted())
				}
				records = append(records, n)
				parts = append(parts, a.Add.Partition(in))
			}
		case a.Remove != nil:
			res.Tombstones++
		case a.CommitInfo != nil:
		default:
			res.Actions = append(res.Actions, *a)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", name, err)
	}
	res.Files, res.NumRecords, res.Partitions, res.NullCounted = files, records, parts, counted
	return res, nil
}

// sidecarPart maps a sidecar action to its file, which must lie in
// _delta_log/_sidecars.
func sidecarPart(s *action.Sidecar) (Part, error) {
	name, err := url.PathUnescape(s.Path)
	if err != nil {
		return Part{}, fmt.Errorf("sidecar path %q: %w", s.Path, err)
	}
	if i := strings.LastIndex(name, "/_delta_log/_sidecars/"); i >= 0 {
		name = name[i+len("/_delta_log/_sidecars/"):]
	}
	name = strings.TrimPrefix(name, SidecarDir)
	if name == "" || strings.Contains(name, "/") || name == "." || name == ".." {
		return Part{}, fmt.Errorf("sidecar path %q is not a file in %s", s.Path, SidecarDir)
	}
	return Part{Key: SidecarDir + name, Size: s.SizeInBytes}, nil
}
