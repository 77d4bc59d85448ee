package action

import (
	"bytes"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/deltafs/deltafs/replay/prefault"
)

// parallelChunk is the size of the pieces a large commit is cut into, to
// be parsed on every core.
const parallelChunk = 4 << 20

// ParseAll decodes the actions of a whole commit, as ParseLines does,
// with the same result and the same first error. A commit larger than a
// few MiB (a table's first, from a bulk load: hundreds of thousands of
// adds in one file) is cut at line ends into pieces parsed on every core;
// replay otherwise parses each commit on one.
func ParseAll(data []byte) ([]Action, error) {
	return parseAll(data, parallelChunk)
}

// parseAll is ParseAll with pieces of about chunk bytes.
func parseAll(data []byte, chunk int) ([]Action, error) {
	pieces := cutAtLines(data, chunk)
	if len(pieces) == 1 {
		out := make([]Action, 0, lineCount(data))
		_, err := parseLines(data, func(a *Action) error {
			out = append(out, *a)
			return nil
		})
		return out, err
	}
	// The pieces' lines, counted first, give each piece its window of
	// one slice; blank lines leave gaps, closed at the end.
	starts := make([]int, len(pieces)+1)
	onEveryCore(len(pieces), func(i int) { starts[i+1] = lineCount(pieces[i]) })
	for i := range pieces {
		starts[i+1] += starts[i]
	}
	out := make([]Action, starts[len(pieces)])
	prefault.Slice(out) // filled on every core: see prefault
	kept, lines, errs := make([]int, len(pieces)), make([]int, len(pieces)), make([]error, len(pieces))
	onEveryCore(len(pieces), func(i int) {
		window := out[starts[i]:starts[i]:starts[i+1]] // a piece has no more actions than lines
		lines[i], errs[i] = parseLines(pieces[i], func(a *Action) error {
			window = append(window, *a)
			return nil
		})
		kept[i] = len(window)
	})
	// The first error is the first piece's that has one, its line counted
	// from the start of the commit: the pieces before it were read whole.
	n, line := 0, 0
	for i := range pieces {
		if err := errs[i]; err != nil {
			if le := (*lineError)(nil); errors.As(err, &le) {
				return nil, &lineError{line + le.line, le.err}
			}
			return nil, err
		}
		n += copy(out[n:], out[starts[i]:starts[i]+kept[i]])
		line += lines[i]
	}
	clear(out[n:])
	return out[:n], nil
}

// lineCount is the number of lines of data: its line ends, and one more
// for a last line without one.
func lineCount(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// onEveryCore calls fn(0) to fn(n-1), a worker per core.
func onEveryCore(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// cutAtLines cuts data into pieces of at least chunk bytes (the last may
// be shorter), each ending at a line end.
func cutAtLines(data []byte, chunk int) [][]byte {
	var pieces [][]byte
	for len(data) > chunk {
		i := bytes.IndexByte(data[chunk:], '\n')
		if i < 0 {
			break
		}
		pieces = append(pieces, data[:chunk+i+1])
		data = data[chunk+i+1:]
	}
	return append(pieces, data)
}
