package checkpoint

import (
	"context"
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

// Read reads a whole checkpoint: all its parts in parallel, then the
// sidecars a v2 checkpoint points to, also in parallel.
func Read(ctx context.Context, st Storage, cp Checkpoint, opts Options) (*Result, error) {
	var res *Result
	var err error
	if cp.Kind == V2JSON {
		res, err = readJSON(ctx, st, cp.Parts[0], opts)
	} else {
		res, err = readAll(ctx, st, cp.Parts, opts)
	}
	if err != nil {
		return nil, err
	}
	var sidecars []Part
	for _, a := range res.Actions {
		if a.Sidecar != nil {
			p, err := sidecarPart(a.Sidecar)
			if err != nil {
				return nil, fmt.Errorf("checkpoint %d: %w", cp.Version, err)
			}
			sidecars = append(sidecars, p)
		}
	}
	if len(sidecars) > 0 {
		side, err := readAll(ctx, st, sidecars, opts)
		if err != nil {
			return nil, err
		}
		res.Files = append(res.Files, side.Files...)
		res.NumRecords = append(res.NumRecords, side.NumRecords...)
		res.Tombstones += side.Tombstones
	}
	return res, nil
}

// readAll reads Parquet files in parallel and joins them in order.
func readAll(ctx context.Context, st Storage, parts []Part, opts Options) (*Result, error) {
	results := make([]*Result, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = ReadParquet(ctx, st, p, opts)
		}()
	}
	wg.Wait()
	out := &Result{}
	for i, r := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out.append(r)
	}
	return out, nil
}

// readJSON reads a v2 checkpoint written as newline-delimited JSON.
func readJSON(ctx context.Context, st Storage, p Part, opts Options) (*Result, error) {
	data, err := st.Read(ctx, p.Key)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", p.Key, err)
	}
	res := &Result{}
	var files []action.File
	var records []int64
	in := &action.Interner{}
	err = action.ParseLines(data, func(a *action.Action) error {
		switch {
		case a.Add != nil:
			f, err := action.FileOf(a.Add, opts.Root, in)
			if err != nil {
				return fmt.Errorf("add: %w", err)
			}
			if opts.Seen.Has(f.Path, f.DV) {
				return nil
			}
			files = append(files, f)
			records = append(records, action.NumRecords([]byte(a.Add.Stats)))
		case a.Remove != nil:
			res.Tombstones++
		case a.CommitInfo != nil:
		default:
			res.Actions = append(res.Actions, *a)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", p.Key, err)
	}
	res.Files = append(res.Files, files)
	if opts.Stats {
		res.NumRecords = append(res.NumRecords, records)
	}
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
