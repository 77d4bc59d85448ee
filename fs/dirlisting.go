package fs

import (
	"sync"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// listingIdle is how long a directory keeps its listing after the last
// READDIR that used it.
const listingIdle = 5 * time.Second

// keptListing is a directory's listing, kept between the READDIRs of one
// listing. The kernel, which opens directories itself, reads a long
// listing a page of entries at a time, each READDIR through a handle of
// its own (noopendir.go): building the listing for each made reading it
// quadratic in its length (50,000 files: 2.7 s instead of 0.3). The
// entries are dropped once idle, as the kernel keeps its own copy.
type keptListing struct {
	mu      sync.Mutex
	entries []fuse.DirEntry // GUARDED_BY(mu); nil when not kept
	idle    *time.Timer     // GUARDED_BY(mu): drops entries after listingIdle
}

// get returns the kept entries, or those build makes, kept from now on.
func (l *keptListing) get(build func() []fuse.DirEntry) []fuse.DirEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.entries == nil {
		l.entries = build()
		if l.entries == nil {
			l.entries = []fuse.DirEntry{}
		}
	}
	if l.idle == nil {
		l.idle = time.AfterFunc(listingIdle, l.drop)
	} else {
		l.idle.Reset(listingIdle)
	}
	return l.entries
}

func (l *keptListing) drop() {
	l.mu.Lock()
	l.entries = nil
	l.mu.Unlock()
}

// keptEntries lists the directory, building the listing only if it is
// not kept (keptListing); every build is counted in root.listings.
func (d *dirNode) keptEntries() []fuse.DirEntry {
	return d.listing.get(func() []fuse.DirEntry {
		d.root.listings.Add(1)
		return d.entries()
	})
}
