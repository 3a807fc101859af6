package parser

import (
	"strings"
	"testing"
)

func TestURLFileName(t *testing.T) {
	for _, c := range []struct {
		url        string
		curl, wget string // "" when no name
	}{
		{"https://x.example/a/b/x.sh", "x.sh", "x.sh"},
		{"https://x.example/a/inst.sh?v=1#top", "inst.sh", "inst.sh?v=1"},
		{"https://x.example/", "", "index.html"},
		{"https://x.example", "", "index.html"},
		{"x.example/dir/", "", "index.html"},
		{"ftp://x.example/pub/.bashrc", ".bashrc", ".bashrc"},
	} {
		for _, k := range []struct {
			curl bool
			want string
		}{{true, c.curl}, {false, c.wget}} {
			got, ok := urlFileName(field{text: c.url}, k.curl)
			if ok != (k.want != "") || got != k.want {
				t.Errorf("%s (curl %v): got %q %v, want %q", c.url, k.curl, got, ok, k.want)
			}
		}
	}
	if _, ok := urlFileName(field{text: "https://$HOST/x.sh", dynamic: true}, true); ok {
		t.Error("a URL that is not literal has no known name")
	}
}

// TestDownloadedNames: the files curl -O and wget name themselves are
// writes, and running one later in the script is running unseen code.
func TestDownloadedNames(t *testing.T) {
	ws, home := world(t)
	a := New(DefaultConfig())
	writes := func(f *Facts) []string {
		var out []string
		for _, p := range f.Paths {
			if p.Access == "write" {
				out = append(out, strings.TrimPrefix(p.Real, ws+"/"))
			}
		}
		return out
	}
	unseen := func(f *Facts) bool {
		for _, d := range f.Dynamic {
			if d.Kind == "nested_script" {
				return true
			}
		}
		return false
	}
	for src, want := range map[string]string{
		"curl -O https://x.example/a/x.sh":              "x.sh",
		"curl -fsSLO https://x.example/a/x.sh":          "x.sh",
		"curl --remote-name https://x.example/y.py":     "y.py",
		"curl --output-dir dl -O https://x.example/z":   "dl/z dl",
		"curl -XPOST https://x.example/api":             "",
		"curl -o out.html https://x.example/":           "out.html",
		"wget https://x.example/x.sh":                   "x.sh",
		"wget -P dl https://x.example/x.sh":             "dl/x.sh dl",
		"wget --directory-prefix=dl https://x.example/": "dl/index.html dl",
		"wget -O page https://x.example/x.sh":           "page",
	} {
		got := strings.Join(writes(a.Analyze(src, Options{Workspace: ws, Home: home})), " ")
		if got != want {
			t.Errorf("%q: writes %q, want %q", src, got, want)
		}
	}
	for src, want := range map[string]bool{
		"curl -O https://x.example/x.sh && sh x.sh":         true,
		"curl -O https://x.example/x.sh; ./x.sh":            true,
		"wget https://x.example/x.sh && bash x.sh.1":        true,
		"curl -JO https://x.example/get && sh anything":     true,
		"wget -r https://x.example/ && sh x.example/i.sh":   true,
		"curl -O https://x.example/data.tgz && sh build.sh": false,
		"wget https://x.example/data.tgz && sh build.sh":    false,
		"curl https://x.example/x.sh && sh x.sh":            false,
	} {
		if got := unseen(a.Analyze(src, Options{Workspace: ws, Home: home})); got != want {
			t.Errorf("%q: runs unseen code %v, want %v", src, got, want)
		}
	}
}
