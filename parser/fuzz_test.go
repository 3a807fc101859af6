package parser

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedsFromCorpus adds every exec spelling of the attack corpus.
func seedsFromCorpus(f *testing.F) {
	files, _ := filepath.Glob("../testdata/attacks/*.json")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		var doc struct {
			Cases []struct {
				Commands []string `json:"commands"`
			} `json:"cases"`
		}
		if json.Unmarshal(b, &doc) != nil {
			continue
		}
		for _, c := range doc.Cases {
			for _, s := range c.Commands {
				f.Add(s)
			}
		}
	}
}

// FuzzAnalyze: the analyser never panics (a recovered panic shows as
// parse.internal), paths are absolute and clean, and normalizing a resolved
// path again gives the same path.
func FuzzAnalyze(f *testing.F) {
	seedsFromCorpus(f)
	for _, s := range []string{"ls", "cd src && cat ../x", "X=/etc; cat $X/shadow", "eval 'eval \"ls\"'", "a | b | c &", "f(){ f|f& }; f"} {
		f.Add(s)
	}
	ws, home := world(f)
	a := New(Config{})
	f.Fuzz(func(t *testing.T, src string) {
		facts := a.Analyze(src, Options{Workspace: ws, Home: home})
		if facts.ParseError != nil {
			if facts.ParseError.Code == CodeInternal {
				t.Fatalf("%q: %s", src, facts.ParseError.Message)
			}
			return
		}
		for _, p := range facts.Paths {
			if p.Zone == "unknown" || p.Glob {
				continue
			}
			if !strings.HasPrefix(p.Real, "/") || filepath.Clean(p.Real) != p.Real {
				t.Fatalf("%q: real path %q not absolute and clean", src, p.Real)
			}
			if p.Exists && !p.link {
				if again, _, _ := Resolve(p.Real); again != p.Real {
					t.Fatalf("%q: resolve not idempotent: %q -> %q", src, p.Real, again)
				}
			}
		}
	})
}

// FuzzParsePatch: any patch text is read without a panic, within the bound
// on names, and every link it records is one of its names' forms.
func FuzzParsePatch(f *testing.F) {
	f.Add("diff --git a/x b/y\nnew file mode 120000\n--- /dev/null\n+++ b/y\n@@ -0,0 +1 @@\n+../z\n")
	f.Add("--- \"a/q\\\"x\"\t2024\n+++ b/q\n*** 1,2 ****\nrename to r\nIndex: s\n")
	f.Fuzz(func(t *testing.T, text string) {
		pn := parsePatch(text)
		if len(pn.files) > maxPatchNames {
			t.Fatalf("%d names", len(pn.files))
		}
		for _, n := range pn.files {
			if n == "" || n == "/dev/null" {
				t.Fatalf("name %q kept", n)
			}
		}
	})
}
