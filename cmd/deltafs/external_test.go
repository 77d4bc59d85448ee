package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// shallowClone writes a table (source) with two files, one of them with
// a deletion vector, and a clone of it naming both by absolute URIs
// beside a file of its own (v0); v1 removes the source's first file.
func shallowClone(t *testing.T) (source, clone string) {
	source, clone = t.TempDir(), t.TempDir()
	src, gen := deltagen.New(source), deltagen.New(clone)
	plain, err := src.DataFileAdd("part-0.parquet", 100, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	withDV, err := src.DataFileAdd("part-2.parquet", 100, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	dvs, err := src.WriteDVFileAbsolute("dv.bin", []uint64{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	own, err := gen.DataFileAdd("part-1.parquet", 50, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	plain.Add.Path = "file://" + filepath.Join(source, plain.Add.Path)
	withDV.Add.Path = "file://" + filepath.Join(source, withDV.Add.Path)
	withDV.Add.DeletionVector = &dvs[0]
	features := []string{"deletionVectors"}
	for _, actions := range [][]action.Action{
		{deltagen.Protocol(3, 7, features, features), deltagen.Metadata(deltagen.SimpleSchema, nil, nil), own, plain, withDV},
		{deltagen.Remove(plain.Add.Path, 1)},
	} {
		if _, err := gen.Commit(actions...); err != nil {
			t.Fatal(err)
		}
	}
	return source, clone
}

// TestExternalFilesInspected: ls --json, diff --json and doctor take
// --allow-external as mount does: the files under it are given the paths
// and sizes a mount serves them with, and checked; without it they are
// not served, said so.
func TestExternalFilesInspected(t *testing.T) {
	source, clone := shallowClone(t)
	allow := []string{"--allow-external", source}

	served := func(args ...string) map[string]lsEntry {
		t.Helper()
		code, out, errOut := runCLI(append([]string{"ls", "--json"}, args...)...)
		if code != 0 || errOut != "" {
			t.Fatalf("ls --json %v: exit %d: %s", args, code, errOut)
		}
		byName := map[string]lsEntry{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e lsEntry
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatal(err)
			}
			byName[filepath.Base(e.Path)] = e
		}
		return byName
	}
	if e := served(clone)["part-2.parquet"]; e.ServedPath != "" || e.ServedSize != nil {
		t.Errorf("ls --json without --allow-external: %+v, want no servedPath nor servedSize", e)
	}
	e := served(append(allow, clone)...)["part-2.parquet"]
	if e.ServedPath != "part-2.parquet" || e.ServedSize == nil || *e.ServedSize >= e.Size {
		t.Errorf("ls --json --allow-external: %+v, want served at part-2.parquet, smaller (3 rows deleted)", e)
	}

	code, out, errOut := runCLI(append([]string{"diff", "--json"}, append(allow, clone, "0", "1")...)...)
	if code != 0 || !strings.Contains(out, `{"change":"removed","servedPath":"part-0.parquet","path":"file://`) {
		t.Errorf("diff --json --allow-external 0 1: exit %d, %s:\n%s", code, errOut, out)
	}
	if _, out, _ := runCLI("diff", "--json", clone, "0", "1"); strings.Contains(out, "servedPath") {
		t.Errorf("diff --json 0 1 without --allow-external serves the removed file:\n%s", out)
	}

	r := doctorJSONOf(t, clone)
	if r.Files.External != 1 || r.Files.Checked != 1 || level(r, "external files") != "warn" {
		t.Errorf("doctor: %d external, %d checked, external files %q; want 1, 1, warn", r.Files.External, r.Files.Checked, level(r, "external files"))
	}
	r = doctorJSONOf(t, append(allow, clone)...)
	if r.Files.External != 0 || r.Files.Checked != 2 || r.Files.problems() != 0 || level(r, "external files") != "" {
		t.Errorf("doctor --allow-external: %+v, external files %q; want none external, 2 checked, no problem", r.Files, level(r, "external files"))
	}
}
