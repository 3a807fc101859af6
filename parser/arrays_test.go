package parser

import (
	"os"
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
		`ln -s ~/.ssh/id_rsa k.txt; x=(*.txt); cat "${x[@]}"`,
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

// TestMovedLinks: a relative link moved or copied is read from where it
// lands, whether the script made it or it is on disk below what moves.
func TestMovedLinks(t *testing.T) {
	ws, home := world(t)
	if err := os.MkdirAll(ws+"/m/n", 0o755); err != nil {
		t.Fatal(err)
	}
	// inside where it is (ws/home does not exist), the fixture's home
	// once m/n is moved one level up
	if err := os.Symlink("../../home", ws+"/m/n/k"); err != nil {
		t.Fatal(err)
	}
	a := New(Config{})
	for src, outside := range map[string]bool{
		`rm -rf m/n/k/`:            false,
		`mv m/n z; rm -rf z/k/`:    true,
		`cp -r m/n z; rm -rf z/k/`: true,
		`cp -a m z; rm -rf z/n/k/`: false, // the same depth
		`mkdir -p a; ln -s ../../home a/k; mv a/k k; rm -rf k/`:    true,
		`mkdir -p a; ln -s ../../home a/k; mv -t . a/k; rm -rf k/`: true,
		`mkdir -p a b; ln -s ../src a/s; mv a/s b/s; rm -rf b/s/`:  false,
	} {
		f := a.Analyze(src, Options{Workspace: ws, Home: home})
		got := false
		for _, p := range f.Paths {
			if p.Command == "rm" && p.Access == "delete" && !p.InWorkspace {
				got = true
			}
		}
		if got != outside {
			t.Errorf("%s: deletes outside the workspace: %v, want %v (%+v)", src, got, outside, f.Paths)
		}
	}
}

// TestMovedLinksBudget: a directory too large to read for links is not
// moved silently: the analysis says it did not look (walk_budget).
func TestMovedLinksBudget(t *testing.T) {
	ws, home := world(t)
	for _, f := range []string{"d/a", "d/b", "d/c", "d/e"} {
		if err := os.MkdirAll(ws+"/"+f, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	defer func(b int) { linkWalkBudget = b }(linkWalkBudget)
	linkWalkBudget = 2
	f := New(Config{}).Analyze(`mv d z`, Options{Workspace: ws, Home: home})
	found := false
	for _, d := range f.Dynamic {
		found = found || d.Kind == "walk_budget"
	}
	if !found {
		t.Errorf("mv of a directory past the budget: no walk_budget in %+v", f.Dynamic)
	}
	linkWalkBudget = 100
	f = New(Config{}).Analyze(`mv d z`, Options{Workspace: ws, Home: home})
	for _, d := range f.Dynamic {
		if d.Kind == "walk_budget" {
			t.Errorf("mv of a small directory: %+v", f.Dynamic)
		}
	}
}
