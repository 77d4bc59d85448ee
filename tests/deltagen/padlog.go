package deltagen

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/deltafs/deltafs/replay/action"
)

// PadOptions say how PadLog fills a bench table's log.
type PadOptions struct {
	// Below: commits 0..Below-1 are written (commitInfo only), as a table
	// keeps them until log cleanup. Existing commits are left alone.
	Below int64
	// CRC writes a %020d.crc file beside every commit, as Spark does.
	CRC bool
	// CheckpointEvery > 0 writes a stand-in checkpoint at every multiple of
	// it below Below, in CheckpointParts parts (multi-part when > 1).
	CheckpointEvery int64
	CheckpointParts int
}

// PadLog gives the log of a bench table under dir (see WriteBenchTable)
// the object count of a long-lived table: the commits before the bench
// checkpoint, CRC files and older checkpoints. The older checkpoints are
// stand-ins, holding only the protocol and metadata: a reader that picks
// one instead of the newest reads a table with no files, which a test
// notices. Files are written directly, small, without the in-memory state
// of a Table. It returns how many objects the log holds afterwards.
func PadLog(dir string, o PadOptions) (int, error) {
	t := New(dir)
	logDir := t.LogDir()
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return 0, err
	}
	commit, err := EncodeActions([]action.Action{CommitInfo("WRITE", 1704067200000)})
	if err != nil {
		return 0, err
	}
	var commits []string
	for v := int64(0); v < o.Below; v++ {
		commits = append(commits, t.CommitPath(v))
	}
	if err := writeAllIfAbsent(commits, commit); err != nil {
		return 0, err
	}
	if o.CheckpointEvery > 0 {
		if err := padCheckpoints(t, o); err != nil {
			return 0, err
		}
	}
	if o.CRC {
		crc := []byte(`{"tableSizeBytes":0,"numFiles":0,"numMetadata":1,"numProtocol":1}` + "\n")
		matches, err := filepath.Glob(filepath.Join(logDir, "*.json"))
		if err != nil {
			return 0, err
		}
		for i, m := range matches {
			matches[i] = m[:len(m)-len(".json")] + ".crc"
		}
		if err := writeAllIfAbsent(matches, crc); err != nil {
			return 0, err
		}
	}
	entries, err := os.ReadDir(logDir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			n++
		}
	}
	return n, nil
}

// padCheckpoints writes the stand-in checkpoints of PadLog: one small
// Parquet file, copied to every name.
func padCheckpoints(t *Table, o PadOptions) error {
	proto, meta := Protocol(1, 2, nil, nil), Metadata(BenchSchema, []string{"date"}, nil)
	tmp := filepath.Join(t.LogDir(), ".standin.parquet")
	if _, err := writeParquet(tmp, newPQConfig(nil), sliceSource(toCpRows([]action.Action{proto, meta}))); err != nil {
		return fmt.Errorf("deltagen: stand-in checkpoint: %w", err)
	}
	data, err := os.ReadFile(tmp)
	os.Remove(tmp)
	if err != nil {
		return err
	}
	parts := max(o.CheckpointParts, 1)
	var names []string
	for v := int64(0); v < o.Below; v += o.CheckpointEvery {
		for p := 1; p <= parts; p++ {
			name := t.ClassicCheckpointPath(v)
			if parts > 1 {
				name = t.CheckpointPartPath(v, p, parts)
			}
			names = append(names, name)
		}
	}
	return writeAllIfAbsent(names, data)
}

// writeAllIfAbsent writes data to every name not there yet, a few files
// at a time: tens of thousands of small files one after the other take
// seconds of system calls.
func writeAllIfAbsent(names []string, data []byte) error {
	errs := make(chan error, len(names))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for _, name := range names {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := writeIfAbsent(name, data); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// writeIfAbsent writes a small file unless one is there.
func writeIfAbsent(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
