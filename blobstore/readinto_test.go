package blobstore

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadIntoChecksTheBodyEnds: a ranged body is read to its end (so an
// HTTP connection can be reused), one that goes on past the range is an
// error rather than bytes from elsewhere in the object, and a short one is
// returned short.
func TestReadIntoChecksTheBodyEnds(t *testing.T) {
	for _, c := range []struct {
		body    string
		size    int
		want    string
		wantErr bool
	}{
		{"abcdef", 6, "abcdef", false},
		{"abcdefgh", 6, "abcdef", true},
		{"abc", 6, "abc", false},
		{"ab", 6, "ab", false},
	} {
		// One byte per Read, as a network body may deliver them.
		r := &eofCounter{r: iotest.OneByteReader(strings.NewReader(c.body))}
		buf := make([]byte, c.size)
		n, err := readInto([][]byte{buf[:c.size/2], buf[c.size/2:]}, r)
		got := buf[:n]
		if string(got) != c.want || (err != nil) != c.wantErr {
			t.Errorf("body %q into %d bytes: %q, %v", c.body, c.size, got, err)
		}
		if !c.wantErr && !r.eof {
			t.Errorf("body %q into %d bytes: not read to EOF", c.body, c.size)
		}
	}
}

type eofCounter struct {
	r   io.Reader
	eof bool
}

func (e *eofCounter) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.eof = true
	}
	return n, err
}
