package fs

import (
	"fmt"
	"sync"
)

// logOnce writes a line logf would, unless it wrote the same line before:
// a file that fails the same way at every stat is one line, not one per
// look at it.
func (r *root) logOnce(format string, args ...any) {
	if line := fmt.Sprintf(format, args...); r.said.first(line) {
		r.logf("%s", line)
	}
}

// saidLines remembers lines written, up to saidMax of them (then it
// starts again: a line may then be written twice, never lost).
type saidLines struct {
	mu    sync.Mutex
	lines map[string]bool // GUARDED_BY(mu)
}

const saidMax = 4096

// first reports whether line was not said before, and remembers it.
func (s *saidLines) first(line string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lines[line] {
		return false
	}
	if s.lines == nil || len(s.lines) >= saidMax {
		s.lines = map[string]bool{}
	}
	s.lines[line] = true
	return true
}
