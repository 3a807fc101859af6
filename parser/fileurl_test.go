package parser

import (
	"slices"
	"testing"
)

// TestFileURLPath: a file: URL names a local path, percent-escapes
// decoded, the scheme in any case; curl's {..} and [..] globs match like *.
func TestFileURLPath(t *testing.T) {
	for _, c := range []struct {
		url, text, pattern string
		glob, ok           bool
	}{
		{"file:///etc/passwd", "/etc/passwd", "/etc/passwd", false, true},
		{"FILE://localhost/etc/passwd", "/etc/passwd", "/etc/passwd", false, true},
		{"file:/etc/passwd", "/etc/passwd", "/etc/passwd", false, true},
		{"file:///home/u/%2essh/id_rs%61", "/home/u/.ssh/id_rsa", "/home/u/.ssh/id_rsa", false, true},
		{"file:///x/y?q=1#frag", "/x/y", "/x/y", false, true},
		{"file://other.host/etc/shadow", "/etc/shadow", "/etc/shadow", false, true},
		{"file:///home/u/.ssh/id_{rsa,ed25519}", "/home/u/.ssh/id_{rsa,ed25519}", "/home/u/.ssh/id_*", true, true},
		{"file:///home/u/.ssh/id_[a-z]sa", "/home/u/.ssh/id_[a-z]sa", "/home/u/.ssh/id_*sa", true, true},
		{"file://host", "", "", false, false},
		{"https://example.com/file:///etc", "", "", false, false},
	} {
		f, ok := fileURLPath(field{text: c.url}, true)
		if ok != c.ok || f.text != c.text || f.pattern != c.pattern || f.glob != c.glob {
			t.Errorf("%q: got (%q, %q, glob %v, %v), want (%q, %q, glob %v, %v)", c.url, f.text, f.pattern, f.glob, ok, c.text, c.pattern, c.glob, c.ok)
		}
	}
	if f, _ := fileURLPath(field{text: "file:///a/[b]"}, false); f.glob || f.pattern != "/a/[b]" {
		t.Errorf("with curl -g the brackets are literal: %+v", f)
	}
}

// TestCurlFileURLs: curl reads the files its file: URLs name, and writes
// them when it uploads (-T); other programs that take paths read them too.
func TestCurlFileURLs(t *testing.T) {
	paths := pathKeys(t)
	for src, want := range map[string][]string{
		"curl file:///etc/hostname":                     {"read /etc/hostname"},
		"curl --url file:///etc/hostname -o copy":       {"read /etc/hostname", "write copy"},
		"curl -T notes.txt file:///tmp/notes.txt":       {"read notes.txt", "write /tmp/notes.txt"},
		"curl https://example.com/file:///etc/hostname": nil,
		"lynx -dump file:///etc/hostname":               {"read /etc/hostname"},
		"xmllint --noout FILE://localhost/etc/hostname": {"read /etc/hostname"},
		"echo file:///etc/hostname":                     nil,
	} {
		if got := paths(src); !slices.Equal(got, want) {
			t.Errorf("%q: paths %q, want %q", src, got, want)
		}
	}
}
