package parser

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A name a glob matched is literal even when it holds glob characters: a
// link named "[l]ink" or "k[e]y" found by "*" is resolved like any path,
// so what it points at is judged (it was read as the pattern "[l]ink",
// matched nothing, and the link went unfollowed). An unmatched pattern
// that names an existing entry is that entry too (bash passes it on).
func TestGlobMatchesWithGlobCharacters(t *testing.T) {
	ws, home := world(t)
	for name, target := range map[string]string{"[l]ink": home + "/.ssh/id_rsa", "k[e]y": home + "/.ssh/id_rsa", "[d]": home + "/.ssh"} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	a := New(Config{})
	for _, src := range []string{"cat *", "cat k*", "cat [[]l]ink", "cat [l]ink", "cat '[l]ink'", "cat */id_rsa", "cat [[]d]/id_rsa"} {
		f := a.Analyze(src, Options{Workspace: ws, Home: home})
		if f.ParseError != nil {
			t.Fatalf("%s: %v", src, f.ParseError)
		}
		found := false
		for _, p := range f.Paths {
			if p.Real == home+"/.ssh/id_rsa" && p.Sensitive && !p.Glob {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: the link's target is not among the paths: %+v", src, f.Paths)
		}
	}
	// A pattern that matches nothing and names nothing stays a pattern.
	f := a.Analyze("cat nomatch[0-9]", Options{Workspace: ws, Home: home})
	if len(f.Paths) == 0 || !f.Paths[len(f.Paths)-1].Glob {
		t.Errorf("unmatched pattern: %+v", f.Paths)
	}
}

// A ** whose walk runs past the glob budget has a partial list: mvdan/sh
// takes the directory it was refused for an empty one. The word must be
// judged as the pattern, not as the matches found before the budget ended
// (cat /usr/** was allowed on a partial list).
func TestGlobstarPastTheBudget(t *testing.T) {
	ws, home := world(t)
	tree := filepath.Join(ws, "tree")
	for _, d := range []string{"a", "b/.ssh"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 60; i++ {
		if err := os.WriteFile(filepath.Join(tree, "a", fmt.Sprintf("f%02d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tree, "b/.ssh/id_rsa"), []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := New(Config{})
	for _, src := range []string{"shopt -s globstar; cat tree/**", "shopt -s globstar dotglob; cat tree/**/*"} {
		f := a.Analyze(src, Options{Workspace: ws, Home: home, MaxGlob: 40})
		if f.ParseError != nil {
			t.Fatalf("%s: %v", src, f.ParseError)
		}
		pattern := false
		for _, p := range f.Paths {
			pattern = pattern || (p.Glob && strings.Contains(p.Raw, "**"))
		}
		if !pattern {
			t.Errorf("%s past the budget: judged as a complete list %+v", src, f.Paths)
		}
		// within the budget the list is whole, the key in it
		f = a.Analyze(src, Options{Workspace: ws, Home: home})
		found := false
		for _, p := range f.Paths {
			found = found || (p.Real == filepath.Join(tree, "b/.ssh/id_rsa") && !p.Glob)
		}
		if src == "shopt -s globstar dotglob; cat tree/**/*" && !found {
			t.Errorf("%s within the budget: the key is not listed: %+v", src, f.Paths)
		}
	}
}
