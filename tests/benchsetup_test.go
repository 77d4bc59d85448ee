package tests

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// pythonOrSkip returns the test venv's interpreter ($DELTAFS_PYTHON, else
// ../.venv), or skips (failing under DELTAFS_STRICT, which CI sets).
func pythonOrSkip(t testing.TB) string {
	t.Helper()
	py := os.Getenv("DELTAFS_PYTHON")
	if py == "" {
		py = filepath.Join("..", ".venv", "bin", "python")
	}
	if _, err := os.Stat(py); err != nil {
		if os.Getenv("DELTAFS_STRICT") != "" {
			t.Fatalf("no Python venv at %s (make venv)", py)
		}
		t.Skipf("SKIPPING: no Python venv at %s (make venv)", py)
	}
	return py
}

// cachedBenchDir returns $DELTAFS_BENCH_DIR/name (default: the OS temp
// dir), calling fill on an empty folder the first time: a big table is
// built once and kept for later runs. A ".complete" marker tells a
// finished folder from one an interrupted run left behind.
func cachedBenchDir(b testing.TB, name string, fill func(dir string) error) string {
	b.Helper()
	base := os.Getenv("DELTAFS_BENCH_DIR")
	if base == "" {
		base = os.TempDir()
	}
	dir := filepath.Join(base, name)
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	if err := fill(dir); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// median is the middle value of xs (the upper one of an even count).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
