package parser

import "testing"

func TestFdPath(t *testing.T) {
	for s, want := range map[string]bool{
		"/dev/fd/3": true, "/proc/self/fd/10": true, "/proc/thread-self/fd/4": true,
		"/dev/fd/0": false, "/dev/stdin": false, "/dev/fd/": false, "/dev/fd/3/x": false, "/dev/fd/x": false, "fd/3": false,
	} {
		if got := fdPath(s); got != want {
			t.Errorf("fdPath(%q) = %v, want %v", s, got, want)
		}
	}
}
