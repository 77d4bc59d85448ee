package main

import "testing"

// Only deltafs's own mount command serves a mount point: not a wrapper
// naming it, nor another deltafs command.
func TestServesMount(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"/usr/local/bin/deltafs", "mount", "/t", "/mnt/x"}, true},
		{[]string{"deltafs", "mount", "--refresh=1s", "/t", "/mnt/x"}, true},
		{[]string{"timeout", "5", "deltafs", "mount", "/t", "/mnt/x"}, false},
		{[]string{"sh", "-c", "deltafs mount /t /mnt/x", "/mnt/x"}, false},
		{[]string{"deltafs", "ls", "/mnt/x"}, false},
		{[]string{"deltafs", "mount", "/t", "/mnt/y"}, false},
	} {
		if got := servesMount(c.args, "/mnt/x"); got != c.want {
			t.Errorf("servesMount(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
