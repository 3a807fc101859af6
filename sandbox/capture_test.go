package sandbox

import (
	"strings"
	"testing"
)

func TestCaptureKeepsHeadAndTail(t *testing.T) {
	cases := []struct {
		name       string
		writes     []string
		head, tail int
		want       Text
	}{
		{"nothing", nil, 4, 4, Text{}},
		{"fits in the head", []string{"ab", "c"}, 4, 4, Text{Head: "abc", Bytes: 3}},
		{"head then tail", []string{"abcdef"}, 4, 4, Text{Head: "abcd", Tail: "ef", Bytes: 6}},
		{"gap counted", []string{"abcd", "efgh", "ijkl"}, 4, 4, Text{Head: "abcd", Gap: 4, Tail: "ijkl", Bytes: 12}},
		{"ring wraps", []string{"abcd", "ef", "gh", "ij"}, 4, 4, Text{Head: "abcd", Gap: 2, Tail: "ghij", Bytes: 10}},
		{"one big write", []string{strings.Repeat("x", 4) + strings.Repeat("y", 10) + "zzzz"}, 4, 4, Text{Head: "xxxx", Gap: 10, Tail: "zzzz", Bytes: 18}},
		{"no tail kept", []string{"abcdefgh"}, 4, 0, Text{Head: "abcd", Gap: 4, Bytes: 8}},
		// "é" is two bytes: a cut inside it drops its bytes and counts
		// one character in the gap.
		{"character across the head's end", []string{"abcé", "wxyz"}, 4, 4, Text{Head: "abc", Gap: 1, Tail: "wxyz", Bytes: 9}},
		{"character across the tail's start", []string{"abcd", "é123"}, 4, 4, Text{Head: "abcd", Gap: 1, Tail: "123", Bytes: 9}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCapture(tc.head, tc.tail)
			for _, w := range tc.writes {
				if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := c.Text(); got != tc.want {
				t.Errorf("Text() = %+v, want %+v", got, tc.want)
			}
			if c.Total() != tc.want.Bytes {
				t.Errorf("Total() = %d, want %d", c.Total(), tc.want.Bytes)
			}
		})
	}
}

// A stream that fits in the head never gets a ring: a box per call should
// not clear buffers it does not use.
func TestCaptureGrowsWithTheStream(t *testing.T) {
	c := NewCapture(captureHead, captureTail)
	_, _ = c.Write([]byte("short\n"))
	if c.ring != nil || cap(c.head) >= captureHead {
		t.Fatalf("a 6-byte stream holds a ring of %d bytes and a head of %d", len(c.ring), cap(c.head))
	}
	_, _ = c.Write(make([]byte, captureHead))
	if len(c.ring) != captureTail || len(c.head) != captureHead {
		t.Fatalf("after a flood: ring %d, head %d", len(c.ring), len(c.head))
	}
}
