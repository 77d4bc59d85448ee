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
	type part struct {
		actions []Action
		lines   int
		err     error
	}
	parts := make([]part, len(pieces))
	parse := func(i int) {
		p := &parts[i]
		p.actions = make([]Action, 0, bytes.Count(pieces[i], []byte{'\n'})+1)
		if len(pieces) > 1 {
			prefault.Slice(p.actions[:cap(p.actions)]) // filled on every core: see prefault
		}
		p.lines, p.err = parseLines(pieces[i], func(a *Action) error {
			p.actions = append(p.actions, *a)
			return nil
		})
	}
	if len(pieces) == 1 {
		parse(0)
		return parts[0].actions, parts[0].err
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(pieces)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(pieces); i = int(next.Add(1) - 1) {
				parse(i)
			}
		})
	}
	wg.Wait()
	// The first error is the first piece's that has one, its line counted
	// from the start of the commit: the pieces before it were read whole.
	total, lines := 0, 0
	for i := range parts {
		if err := parts[i].err; err != nil {
			if le := (*lineError)(nil); errors.As(err, &le) {
				return nil, &lineError{lines + le.line, le.err}
			}
			return nil, err
		}
		total += len(parts[i].actions)
		lines += parts[i].lines
	}
	out := make([]Action, 0, total)
	prefault.Slice(out[:total])
	for i := range parts {
		out = append(out, parts[i].actions...)
	}
	return out, nil
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
