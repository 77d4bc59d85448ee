package serve

// A Reader follows a few streams of reads at once: the threads of one
// process that share an open file (pyarrow, DuckDB reading row groups in
// parallel) each read in sequence, but their reads reach the Reader
// interleaved. Followed as one run, each read broke the others': their
// read-ahead was dropped while it loaded and fetched again (a parallel
// read of all the columns of 227 MiB of files fetched 243-273 MiB, about
// 45 blocks abandoned a run).

// maxStreams is how many streams a Reader follows; a read that continues
// none starts a new one in place of the one read longest ago.
const maxStreams = 4

// stream is one run of sequential reads through a Reader.
type stream struct {
	lastOff   int64  // where its latest read began
	next      int64  // where it reads next
	scheduled int64  // blocks below this index are already prefetched
	runFrom   int64  // where the run began
	window    int    // blocks to keep ahead; 0 until the run goes on
	chunkEnd  int64  // end of the column chunk the run started in, until the reader passes it; else 0
	used      uint64 // Reader.clock at its latest read
}

// follow records a read of [off, end): it continues the stream whose next
// read it is (within a block of where that one ended), else it starts a
// stream. h.mu is held.
func (h *Reader) follow(off, end int64) *stream {
	r := h.files
	bs, most := r.opts.BlockSize, int64(max(r.opts.ReadAhead, 0))
	h.clock++
	var s *stream
	for _, c := range h.streams {
		if off >= c.next-bs && off <= c.next+bs && (s == nil || abs(off-c.next) < abs(off-s.next)) {
			s = c
		}
	}
	if s != nil {
		s.lastOff, s.used = off, h.clock
		s.next = max(s.next, end)
		s.window = int(min(max((rampUp*(s.next-s.runFrom)+bs-1)/bs, 1), most))
		if off >= s.chunkEnd {
			s.chunkEnd = 0 // past the chunk (a read may end a page past it: the kernel aligns them)
		}
		return s
	}
	s = &stream{lastOff: off, next: end, runFrom: off, used: h.clock}
	if off > 0 { // else a copy, or a reader of the whole file
		// Where the read's first page ends: the kernel rounds off down to
		// a page, which may lie in the chunk before.
		s.chunkEnd = r.chunkEnd(h.path, h.size, min(off+pageSize-1, end-1))
	}
	if len(h.streams) < maxStreams {
		h.streams = append(h.streams, s)
		return s
	}
	oldest := 0
	for i, c := range h.streams {
		if c.used < h.streams[oldest].used {
			oldest = i
		}
	}
	h.streams[oldest] = s
	return s
}

// trim drops the held blocks no stream needs: each keeps the blocks of its
// latest read (a direct-I/O read may span several), the one before them,
// and its window; but a stream of random reads (no window) other than
// latest's keeps none, as a random reader did before streams, so that
// readers of many files do not spend the budget on blocks the cache holds
// anyway. h.mu is held.
func (h *Reader) trim(latest *stream, bs, most int64) {
	for idx, e := range h.held {
		needed := false
		for _, s := range h.streams {
			if s != latest && s.window == 0 {
				continue
			}
			cur := (s.next - 1) / bs
			if idx >= min(s.lastOff/bs, cur-1) && idx <= cur+1+most {
				needed = true
				break
			}
		}
		if !needed {
			h.drop(idx, e)
		}
	}
}

func abs(x int64) int64 { return max(x, -x) }
