package tests

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestExternalFilesAllowed: a shallow clone names its source's files by
// absolute URIs. By default they are not shown; under a location the
// user allowed (--allow-external) they are served with the source's
// bytes, and a deletion vector stored there ('p') is applied. A file in
// a sibling folder whose name merely starts with the allowed one's stays
// hidden (a path climbing out of the allowed one with ".." is refused
// by replay: action's TestCleanPath). The binary's flag likewise.
func TestExternalFilesAllowed(t *testing.T) {
	requireFUSE(t)
	src := t.TempDir()
	srcGen := deltagen.New(src)
	shared, err := srcGen.DataFileAdd("part-0.parquet", 100, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	withDV, err := srcGen.DataFileAdd("part-2.parquet", 100, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	dvs, err := srcGen.WriteDVFileAbsolute("dv.bin", []uint64{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	sibling := src + "-other"
	if err := os.Mkdir(sibling, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sibling) })
	outside, err := deltagen.New(sibling).DataFileAdd("part-9.parquet", 10, 1, nil)
	if err != nil {
		t.Fatal(err)
	}

	clone := t.TempDir()
	gen := deltagen.New(clone)
	own := mustAdd(t, gen, "part-1.parquet", 50)
	abs := func(a action.Action, dir string) action.Action {
		a.Add.Path = "file://" + filepath.Join(dir, a.Add.Path)
		return a
	}
	ext := abs(withDV, src)
	ext.Add.DeletionVector = &dvs[0]
	mustCommit(t, gen, deltagen.Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors"}), deltagen.Metadata(deltagen.SimpleSchema, nil, nil),
		own, abs(shared, src), ext, abs(outside, sibling))

	m := mountLayout(t, clone, fs.Options{RefreshInterval: -1})
	if files, err := walkFiles(filepath.Join(m.dir, "v", "0")); err != nil || fmt.Sprint(files) != "[part-1.parquet]" {
		t.Errorf("not allowed: files %v, %v", files, err)
	}
	if logs := m.logs.String(); !strings.Contains(logs, "part-0.parquet: it lies outside the table root") {
		t.Errorf("the mount did not say why files are hidden:\n%s", logs)
	}
	m.unmount()

	allowed, err := blobstore.Open(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	defer allowed.Close()
	m = mountElsewhere(t, clone, []*blobstore.Store{allowed}, fs.Options{RefreshInterval: -1})
	v0 := filepath.Join(m.dir, "v", "0")
	if files, err := walkFiles(v0); err != nil || fmt.Sprint(files) != "[part-0.parquet part-1.parquet part-2.parquet]" {
		t.Errorf("allowed: files %v, %v", files, err)
	}
	want, err := os.ReadFile(filepath.Join(src, "part-0.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(v0, "part-0.parquet")); err != nil || !bytes.Equal(got, want) {
		t.Errorf("part-0.parquet: %d bytes read (want the source's %d): %v", len(got), len(want), err)
	}
	data, err := os.ReadFile(filepath.Join(v0, "part-2.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data))); err != nil || f.NumRows() != 97 {
		t.Errorf("part-2.parquet: %v, want 97 rows (3 deleted by its vector)", err)
	}
	m.unmount()

	// deltafs mount says which files it does not show and what shows
	// them; given that, as a URI, it shows them as above.
	hint := func(p *mountProc, n int, under string) {
		t.Helper()
		want := fmt.Sprintf("%d of 4 live files lie outside the table (under file://%s) and are not shown: mount with --allow-external file://%[2]s to show them", n, under)
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("deltafs mount: stderr %q, want it to say %q", p.stderr.String(), want)
		}
	}
	dir := t.TempDir()
	p := startMount(t, deltafsBin(t), clone, dir)
	p.ready(t)
	p.stop(t, syscall.SIGTERM)
	hint(p, 3, filepath.Dir(src))
	p = startMount(t, deltafsBin(t), clone, dir, "--allow-external", "file://"+src)
	p.ready(t)
	if files, err := walkFiles(filepath.Join(dir, "v", "0")); err != nil || fmt.Sprint(files) != "[part-0.parquet part-1.parquet part-2.parquet]" {
		t.Errorf("deltafs mount --allow-external: files %v, %v", files, err)
	}
	p.stop(t, syscall.SIGTERM) // its log lines are all written once it exits
	hint(p, 1, sibling)
}
