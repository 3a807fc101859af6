package parser

import (
	"slices"
	"testing"
)

// TestArrays: indexed arrays filled with elements known statically are
// followed as bash fills them; anything else about an array makes its
// elements unknown and possibly any path (zone "unknown" or a secret).
func TestArrays(t *testing.T) {
	ws, home := world(t)
	a := New(Config{})
	argv := func(src string) [][]string {
		f := a.Analyze(src, Options{Workspace: ws, Home: home})
		if f.ParseError != nil {
			t.Fatalf("%s: %v", src, f.ParseError)
		}
		var out [][]string
		for _, c := range f.Commands {
			out = append(out, c.Argv)
		}
		return out
	}
	for src, want := range map[string][]string{
		`x=(a b); cat "${x[@]}"`:                      {"cat", "a", "b"},
		`x=(a b); cat "${x[1]}"`:                      {"cat", "b"},
		`x=(a); x+=(~/k); cat "${x[@]}"`:              {"cat", "a", home + "/k"},
		`x=(a b); x=c; cat "${x[@]}"`:                 {"cat", "c", "b"}, // NAME=v sets element 0
		`x=('a b' "c"); cat "${x[@]}"`:                {"cat", "a b", "c"},
		`x=(a); if true; then x=(a); fi; cat ${x[0]}`: {"cat", "a"}, // every branch alike
		`declare -a x=(a b); cat "${x[@]}"`:           {"cat", "a", "b"},
	} {
		got := argv(src)
		if len(got) == 0 || !slices.Equal(got[len(got)-1], want) {
			t.Errorf("%s: argv %q, want %q", src, got, want)
		}
	}
	// Not followed: the element is dynamic and may be any path.
	for _, src := range []string{
		`x=(a); if true; then x=(/etc/shadow); fi; cat "${x[0]}"`,
		`x=(*.txt); cat "${x[@]}"`,
		`x=($y); cat "${x[@]}"`,
		`x=(a); x[1]=/etc/shadow; cat "${x[1]}"`,
		`x=(a); read i; cat "${x[i]}"`,
		`printf -v 'x[0]' %s /etc/shadow; cat "${x[0]}"`,
	} {
		f := a.Analyze(src, Options{Workspace: ws, Home: home})
		open := false
		for _, p := range f.Paths {
			if p.Command == "cat" && p.Dynamic && (p.Zone == "unknown" || p.Sensitive || p.Zone != "workspace") {
				open = true
			}
		}
		if !open {
			t.Errorf("%s: the element is judged as a known path: %+v", src, f.Paths)
		}
	}
}
