package replay

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/deltafs/deltafs/checkpoint"
	"github.com/deltafs/deltafs/replay/action"
)

// Storage is what replay needs from blobstore.
type Storage interface {
	checkpoint.Storage
}

// commitFetchers bounds the commits read at once. Against an object store
// a commit read is one round trip of tens of milliseconds and a few KB, so
// reading a long tail a few at a time costs one round trip per few commits
// (500 commits, 16 at a time: 32 round trips). 512 reads the tail of a
// table whose checkpoints stopped hundreds of commits ago in one round
// trip; it is one burst well under what one key prefix serves per second
// (S3 documents 5,500 GETs/s, GCS scales from 5,000), and it costs no more
// memory than reading fewer at a time, as every commit's actions are held
// until the replay anyway. Local files take it too (Go raises the open
// file limit to the hard limit).
const commitFetchers = 512

// commitBytes bounds the bytes of commits read and not yet decoded: a log
// of big commits (hundreds of MB of adds with wide stats) was held whole
// until its replay ended. Each commit's bytes are dropped once decoded
// (action.Settle), and a few dozen MB keep both cores decoding.
const commitBytes = 64 << 20

// ErrCheckpoint is wrapped by Build's errors that come from the segment's
// checkpoint (unreadable, truncated, not a Delta checkpoint), so that a
// caller may rebuild the version without it.
var ErrCheckpoint = errors.New("unusable checkpoint")

// checkpointError names the segment's checkpoint in err.
func checkpointError(seg *LogSegment, err error) error {
	cp := seg.Checkpoint
	key := ""
	if len(cp.Parts) > 0 {
		key = " " + cp.Parts[0].Key
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("replay v%d: checkpoint v%d%s: %w", seg.Version, cp.Version, key, err)
	}
	return fmt.Errorf("replay v%d: checkpoint v%d%s: %w: %w", seg.Version, cp.Version, key, ErrCheckpoint, err)
}

// Build rebuilds the snapshot a log segment describes. root is the table
// root URL (for absolute paths). The commits and the checkpoint are fetched
// concurrently.
func Build(ctx context.Context, st Storage, seg *LogSegment, root string) (*Snapshot, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The checkpoint and the commits are fetched at the same time; the
	// checkpoint is decoded once the commits say which files they decided.
	var fetched *checkpoint.Fetched
	fetchErr := make(chan error, 1)
	if seg.Checkpoint != nil {
		go func() {
			var err error
			fetched, err = checkpoint.Fetch(ctx, st, *seg.Checkpoint, checkpoint.NoDetails)
			fetchErr <- err
		}()
	} else {
		fetchErr <- nil
	}
	commits, err := fetchCommits(ctx, st, seg.Commits)
	if err != nil {
		return nil, fmt.Errorf("replay v%d: %w", seg.Version, err)
	}
	r := newReconciler(root, fileActions(commits))
	for i := len(commits) - 1; i >= 0; i-- {
		if err := r.applyCommit(commits[i]); err != nil {
			return nil, fmt.Errorf("replay v%d: commit %d: %w", seg.Version, seg.Commits[i].Version, err)
		}
	}
	if err := <-fetchErr; err != nil {
		return nil, checkpointError(seg, err)
	}
	opts := checkpoint.Options{Root: root, Seen: r.seen, Reserve: len(r.files)}
	if fetched != nil {
		res, err := fetched.Decode(ctx, opts)
		if err != nil {
			return nil, checkpointError(seg, err)
		}
		r.applyCheckpoint(res)
	}
	snap, err := r.snapshot(seg.Version)
	if err != nil && seg.Checkpoint != nil && (r.protocol == nil || r.metadata == nil) {
		// What holds the protocol and metadata of a checkpointed version
		// is its checkpoint: name it. (Delta readers refuse such a
		// version rather than look past the checkpoint: not ErrCheckpoint.)
		return nil, fmt.Errorf("replay v%d: checkpoint v%d %s: %w", seg.Version, seg.Checkpoint.Version, seg.Checkpoint.Parts[0].Key, err)
	}
	if err != nil {
		return nil, fmt.Errorf("replay v%d: %w", seg.Version, err)
	}
	snap.tail = r.details
	if seg.Checkpoint != nil {
		cp := *seg.Checkpoint
		snap.headTombstones = func(ctx context.Context) (int, error) {
			n, err := checkpoint.CountTombstones(ctx, st, cp)
			if err != nil {
				return 0, fmt.Errorf("tombstones of v%d: %w", seg.Version, err)
			}
			return n, nil
		}
		snap.headDetails = func(ctx context.Context, partitionsOnly bool) (*Details, error) {
			opts := opts
			opts.Details = checkpoint.AllDetails
			if partitionsOnly {
				opts.Details = checkpoint.Partitions
			}
			res, err := checkpoint.Read(ctx, st, cp, opts)
			if err != nil {
				return nil, fmt.Errorf("details of v%d: %w", seg.Version, err)
			}
			d := &Details{NumRecords: res.NumRecords, Partitions: res.Partitions, NullCounted: res.NullCounted}
			if partitionsOnly {
				d.NumRecords = nil // all -1: none were read
			}
			return d, nil
		}
	}
	return snap, nil
}

// fetchCommits reads and decodes commit files concurrently, at most
// commitFetchers at once, and returns their actions in order.
func fetchCommits(ctx context.Context, st Storage, files []LogFile) ([][]action.Action, error) {
	out := make([][]action.Action, len(files))
	errs := make([]error, len(files))
	sem := make(chan struct{}, commitFetchers)
	budget := newByteBudget(commitBytes)
	var wg sync.WaitGroup
	for i, f := range files {
		if ctx.Err() != nil { // a long log is many reads: stop between them
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			n := budget.take(f.Size)
			defer budget.give(n)
			data, err := st.Read(ctx, f.Key)
			if err == nil {
				out[i], err = action.ParseAll(data)
			}
			action.Settle(out[i]) // here, on every core
			if err != nil {
				errs[i] = fmt.Errorf("commit %d: %w", f.Version, err)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// byteBudget hands out bytes of a fixed total, waiting for them.
type byteBudget struct {
	mu   sync.Mutex
	cond sync.Cond
	left int64
	all  int64
}

func newByteBudget(n int64) *byteBudget {
	b := &byteBudget{left: n, all: n}
	b.cond.L = &b.mu
	return b
}

// take waits for n bytes, or all of them where n is more, and returns
// what it took.
func (b *byteBudget) take(n int64) int64 {
	n = min(max(n, 0), b.all)
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.left < n {
		b.cond.Wait()
	}
	b.left -= n
	return n
}

func (b *byteBudget) give(n int64) {
	b.mu.Lock()
	b.left += n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// reconciler applies actions newest first: the first action seen for a
// logical file, an application id, a domain, the protocol or the metadata
// decides it.
type reconciler struct {
	root     string
	seen     *checkpoint.Seen
	files    []action.File
	details  Details // of the commit files, aligned with them
	removes  int
	protocol *action.Protocol
	metadata *action.Metadata
	txns     map[string]action.Txn
	domains  map[string]action.DomainMetadata
	interner action.Interner
}

// newReconciler returns a reconciler for commits holding files add and
// remove actions.
func newReconciler(root string, files int) *reconciler {
	return &reconciler{
		root: root, seen: checkpoint.NewSeen(files), files: make([]action.File, 0, files),
		details: Details{NumRecords: make([]int64, 0, files), Partitions: make([]*Partition, 0, files)},
		txns:    map[string]action.Txn{}, domains: map[string]action.DomainMetadata{},
	}
}

// fileActions counts the add and remove actions of commits.
func fileActions(commits [][]action.Action) int {
	n := 0
	for _, c := range commits {
		for i := range c {
			if c[i].Add != nil || c[i].Remove != nil {
				n++
			}
		}
	}
	return n
}

func (r *reconciler) applyCommit(actions []action.Action) error {
	// Actions within one commit do not conflict on a logical file (the
	// protocol forbids it), so one commit's order does not matter.
	for i := range actions {
		a := &actions[i]
		switch {
		case a.Add != nil:
			file, err := action.FileOf(a.Add, r.root)
			if err != nil {
				return fmt.Errorf("add: %w", err)
			}
			if !r.seen.Add(file.Path, file.DV.UniqueID()) {
				continue
			}
			r.files = append(r.files, file)
			r.details.NumRecords = append(r.details.NumRecords, a.Add.NumRecords())
			r.details.NullCounted = append(r.details.NullCounted, a.Add.NullCounted())
			r.details.Partitions = append(r.details.Partitions, a.Add.Partition(&r.interner))
		case a.Remove != nil:
			// A remove whose path cannot be cleaned matches no live file.
			path, err := action.CleanPath(a.Remove.Path, r.root)
			if err != nil {
				path = a.Remove.Path
			}
			if r.seen.Add(path, a.Remove.DeletionVector.UniqueID()) {
				r.removes++
			}
		default:
			r.applyOther(a)
		}
	}
	return nil
}

func (r *reconciler) applyOther(a *action.Action) {
	switch {
	case a.Protocol != nil:
		if r.protocol == nil {
			r.protocol = a.Protocol
		}
	case a.Metadata != nil:
		if r.metadata == nil {
			r.metadata = a.Metadata
		}
	case a.Txn != nil:
		if _, ok := r.txns[a.Txn.AppID]; !ok {
			r.txns[a.Txn.AppID] = *a.Txn
		}
	case a.DomainMetadata != nil:
		if _, ok := r.domains[a.DomainMetadata.Domain]; !ok {
			r.domains[a.DomainMetadata.Domain] = *a.DomainMetadata
		}
	}
}

func (r *reconciler) applyCheckpoint(res *checkpoint.Result) {
	for i := range res.Actions {
		r.applyOther(&res.Actions[i])
	}
	r.files = append(res.Files, r.files...) // res.Files has room for them
}

func (r *reconciler) snapshot(v int64) (*Snapshot, error) {
	if r.protocol == nil {
		return nil, fmt.Errorf("no protocol action in the log")
	}
	if r.metadata == nil {
		return nil, fmt.Errorf("no metaData action in the log")
	}
	if err := CheckProtocol(r.protocol); err != nil {
		return nil, err
	}
	s := &Snapshot{
		Version: v, Protocol: *r.protocol, Metadata: *r.metadata,
		Files: r.files, Txns: r.txns, Domains: map[string]action.DomainMetadata{}, removes: r.removes,
	}
	for d, m := range r.domains {
		if !m.Removed {
			s.Domains[d] = m
		}
	}
	return s, nil
}
