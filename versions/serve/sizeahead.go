package serve

// sizeAheadTokens bounds what SizeAhead builds at once: a view that
// reads only a footer takes one token, so that many footer reads
// overlap the round trips of a remote store; one that re-encodes row
// groups (a deletion vector, a widened column) takes one per
// sizeAheadTokenBytes of its file, so that builds in the background
// hold at most about sizeAheadTokens*sizeAheadTokenBytes of row groups.
// A file of that size or more is built alone.
const (
	sizeAheadTokens     = 16
	sizeAheadTokenBytes = 8 << 20
)

// SizeAhead learns in the background the served sizes of files about to
// be looked up. A listing (READDIRPLUS, ls -l) stats its files one after
// another; a file served as a view costs a footer read, and a vector's,
// before its size is known, so in order they are that many round trips
// in a row. Built ahead, they overlap. Errors are left for the lookup,
// which builds the view again and reports them.
func (fs *Files) SizeAhead(files []Sized) {
	var todo []Sized
	for _, s := range files {
		if _, ok := fs.sizes.Get(viewKey(s.File, s.Rename)); !ok && !s.KeepsSize() {
			todo = append(todo, s)
		}
	}
	if len(todo) == 0 {
		return
	}
	go func() {
		for _, s := range todo {
			tokens := sizingTokens(s)
			if !fs.takeSizing(tokens) {
				return
			}
			go func() {
				defer fs.putSizing(tokens)
				_, _ = fs.ServedSize(fs.ctx, s)
			}()
		}
	}()
}

// sizingTokens is what building the view of a file takes of the
// sizeAheadTokens.
func sizingTokens(s Sized) int {
	if s.File.DV == nil && !s.Rename.Widens() {
		return 1
	}
	return int(min(max(s.File.Size/sizeAheadTokenBytes, 1), sizeAheadTokens))
}

// takeSizing takes n of the sizeAheadTokens, waiting for them; false if
// the Files closed first. One taker at a time: two each holding part of
// what they need would wait for each other.
func (fs *Files) takeSizing(n int) bool {
	fs.sizingMu.Lock()
	defer fs.sizingMu.Unlock()
	for i := range n {
		select {
		case fs.sizing <- struct{}{}:
		case <-fs.ctx.Done():
			fs.putSizing(i)
			return false
		}
	}
	return true
}

func (fs *Files) putSizing(n int) {
	for range n {
		<-fs.sizing
	}
}
