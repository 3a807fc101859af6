package parser

import (
	"os"
	"path/filepath"
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
