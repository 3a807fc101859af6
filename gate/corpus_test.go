package gate_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/internal/corpus"
	"github.com/toolgate/toolgate/parser"
)

const corpusDir = "../testdata/attacks"

// corpusGate builds the corpus fixture and a gate on it with the default policy.
func corpusGate(t testing.TB) (*gate.Gate, string, string) {
	t.Helper()
	ws, home, err := corpus.Fixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// a fixed environment, so verdicts do not depend on the machine's
	g, err := gate.New(context.Background(), gate.Options{Workspace: ws, Home: home, Environ: corpusEnviron})
	if err != nil {
		t.Fatal(err)
	}
	return g, ws, home
}

// corpusEnviron is the environment corpus calls are judged in.
var corpusEnviron = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "TMPDIR=/tmp"}

// TestCorpus runs every spelling of every case through the whole gate and
// checks the verdict. Attacks must never be allowed; every case must get
// exactly the verdict it names.
func TestCorpus(t *testing.T) {
	cases, err := corpus.Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	g, ws, home := corpusGate(t)
	ctx := context.Background()
	type tally struct{ total, ok int }
	byCat := map[string]*tally{}
	var failures []string
	for _, c := range cases {
		tl := byCat[c.Category]
		if tl == nil {
			tl = &tally{}
			byCat[c.Category] = tl
		}
		for i, line := range c.Lines(ws, home) {
			results := g.DecideLine(ctx, []byte(line), i+1)
			got := verdictOf(results)
			tl.total++
			if got == c.Want {
				tl.ok++
				continue
			}
			failures = append(failures, fmt.Sprintf("%s %q spelling %d: want %s, got %s %s\n    %s", c.File, c.Note, i+1, c.Want, got, reasonsOf(results), line))
		}
	}
	cats := make([]string, 0, len(byCat))
	for k := range byCat {
		cats = append(cats, k)
	}
	sort.Strings(cats)
	for _, k := range cats {
		t.Logf("%-13s %4d/%4d", k, byCat[k].ok, byCat[k].total)
	}
	for _, f := range failures {
		t.Error(f)
	}
}

// verdictOf folds the results of one line: any deny wins, then ask.
func verdictOf(rs []gate.Result) string {
	v := "allow"
	for _, r := range rs {
		switch {
		case r.Decision == "deny":
			return "deny"
		case r.Decision == "ask":
			v = "ask"
		case r.Decision != "allow":
			return "invalid:" + r.Decision
		}
	}
	if len(rs) == 0 {
		return "none"
	}
	return v
}

func reasonsOf(rs []gate.Result) string {
	var out []string
	for _, r := range rs {
		for _, x := range r.Reasons {
			out = append(out, x.Rule)
		}
	}
	return "[" + strings.Join(out, " ") + "]"
}

// corpusAndFixture loads the corpus and builds its fixture workspace and home.
func corpusAndFixture(t testing.TB) (cases []corpus.Case, ws, home string) {
	t.Helper()
	cases, err := corpus.Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	ws, home, err = corpus.Fixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return cases, ws, home
}

// TestCorpusParser runs every exec spelling through the analyser alone: it
// must never fail internally, and every command it reports must carry argv.
func TestCorpusParser(t *testing.T) {
	cases, ws, home := corpusAndFixture(t)
	a := parser.New(parser.Config{})
	n := 0
	for _, c := range cases {
		for _, cmd := range c.Commands {
			n++
			f := a.Analyze(strings.NewReplacer(corpus.PlaceholderWS, ws, corpus.PlaceholderHome, home).Replace(cmd), parser.Options{Workspace: ws, Home: home, WorkingDir: c.WorkingDir})
			if f.ParseError != nil && f.ParseError.Code == parser.CodeInternal {
				t.Errorf("%s %q: analyser failed: %s", c.File, cmd, f.ParseError.Message)
			}
			for _, k := range f.Commands {
				if len(k.Argv) == 0 {
					t.Errorf("%s %q: a command with empty argv", c.File, cmd)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no exec spellings in the corpus")
	}
}
