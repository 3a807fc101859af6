package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A glob that deletes every visible entry of the workspace root deletes the
// workspace root (rm -rf * is rm -rf . for the project); globs inside it,
// named entries and globs that leave an entry do not.
func TestEmptiesRoot(t *testing.T) {
	ws, home := world(t) // root: src build README.md .git link_etc link_ssh inner
	a := New(Config{})
	rootDeleted := func(src, wd string) bool {
		t.Helper()
		f := a.Analyze(src, Options{Workspace: ws, Home: home, WorkingDir: wd})
		if f.ParseError != nil {
			t.Fatalf("%s: %v", src, f.ParseError)
		}
		for _, p := range f.Paths {
			if p.Access == "delete" && p.Real == ws {
				if p.Zone != "workspace_root" || !p.InWorkspace || p.Cmd < 0 || f.Commands[p.Cmd].Name != "rm" && f.Commands[p.Cmd].Name != "shred" {
					t.Errorf("%s: root entry %+v", src, p)
				}
				return true
			}
		}
		return false
	}
	for _, src := range []string{
		"rm -rf *",
		"rm -rf ./*",
		"rm -rf -- *",
		"rm -rf " + ws + "/*",
		`rm -rf "$PWD"/*`,
		"rm -rf * .*",
		"rm -rf [a-z]* [A-Z]*",
		"rm -r s* b* R* l* i*",
		"echo hi; rm -rf *",
		"shred -u *",
		"sudo rm -rf *",
		"ln -s . zz && rm -rf zz/*", // through a link the script makes
		"rm -rf zz/*; ln -s . zz; rm -rf zz/*",
		"rm -rf inner/../*",
		`for f in *; do rm -rf "$f"; done`, // the glob's entries one by one
		`for f in * .*; do rm -rf -- "$f"; done`,
		"ls | xargs rm -rf", // ls prints every entry
		"ls -A . | xargs -r rm -rf",
		"ls | xargs -I{} rm -rf {}",
		"rm -rf $(echo *)", // the glob comes through the substitution
		`rm -rf $(printf '%s ' *)`,
		"x='*'; rm -rf $x", // or through an unquoted variable
		"x=*; rm -rf ${x}",
	} {
		if !rootDeleted(src, "") {
			t.Errorf("%s: the workspace root is not among the deleted paths", src)
		}
	}
	wsLink := filepath.Join(filepath.Dir(ws), "wslink")
	if err := os.Symlink(ws, wsLink); err != nil {
		t.Fatal(err)
	}
	if !rootDeleted("rm -rf "+wsLink+"/*", "") {
		t.Error("rm -rf through a link to the workspace: the workspace root is not among the deleted paths")
	}
	if !rootDeleted("rm -rf ../*", "src") {
		t.Error("rm -rf ../* from src: the workspace root is not among the deleted paths")
	}
	for _, src := range []string{
		"rm -rf src/*",
		"rm -rf s*",
		"rm -rf build src README.md link_etc link_ssh inner", // named one by one
		"rm -rf {src,build,README.md,link_etc,link_ssh,inner}",
		"ls *",
		"cp -r * /tmp/x",
		"cd src && rm -rf *",
		"rm -rf .*",
		"rm -rf [!R]*", // leaves README.md
		"rm -rf s*; rm -rf b*",
		"mv * src/", // moving is not deleting
		"mkdir new && mv * new/",
		"git rm -r --cached *",
		"rmdir *",
		`for f in *.md; do rm -f "$f"; done`,
		`for f in *; do echo "$f"; done`,
		`for f in src build; do rm -rf "$f"; done`, // named, not globbed
		"ls src | xargs rm -rf",
		"ls -I src | xargs rm -rf",
		"ls -d b* | xargs rm -rf",
		"ls | grep -v src | xargs rm -rf", // grep picks: not every entry
		`x='*'; rm -rf "$x"`,              // quoted: the file named *
		"rm -rf $(echo src build)",
		"x=src; rm -rf $x",
	} {
		if rootDeleted(src, "") {
			t.Errorf("%s: reported as deleting the workspace root", src)
		}
	}
	// A root holding only hidden entries has nothing * could empty.
	empty := filepath.Join(filepath.Dir(ws), "hidden")
	if err := os.MkdirAll(filepath.Join(empty, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := a.Analyze("rm -rf * .*", Options{Workspace: empty, Home: home})
	for _, p := range f.Paths {
		if p.Real == empty && p.Access == "delete" {
			t.Errorf("root of hidden entries only: %+v", p)
		}
	}
}

// With no home directory known, ~ is a place that cannot be told (unknown,
// so denied), and analysing it ends: classifying the relative "~/x" once
// walked path.Dir up to "." for ever.
func TestNoHomeIsUnknown(t *testing.T) {
	ws, _ := world(t)
	done := make(chan *Facts, 1)
	go func() {
		done <- New(Config{}).Analyze("ls ~; cat ~/x; cp -r ~ .; ls ~/", Options{Workspace: ws})
	}()
	select {
	case f := <-done:
		n := 0
		for _, p := range f.Paths {
			if strings.HasPrefix(p.Raw, "~") {
				n++
				if p.Zone != "unknown" {
					t.Errorf("%s: zone %s, want unknown", p.Raw, p.Zone)
				}
			}
		}
		if n != 4 {
			t.Errorf("%d paths under ~, want 4: %+v", n, f.Paths)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("analysing ~ with no home did not end")
	}
}

// One command's * over the root does not make another command's partial
// glob delete the root.
func TestEmptiesRootPerCommand(t *testing.T) {
	ws, home := world(t)
	f := New(Config{}).Analyze("ln -s . zz && rm -rf zz/*; rm -rf s*", Options{Workspace: ws, Home: home})
	n := 0
	for _, p := range f.Paths {
		if p.Access == "delete" && p.Real == ws {
			n++
			if f.Commands[p.Cmd].Name != "rm" || f.Commands[p.Cmd].Argv[len(f.Commands[p.Cmd].Argv)-1] == "src" {
				t.Errorf("root entry for the wrong command: %+v", f.Commands[p.Cmd])
			}
		}
	}
	if n != 1 {
		t.Errorf("%d root entries, want 1", n)
	}
}

// TestNamedFindOutput: the output of find . -name PATTERN never holds "."
// (nor every entry), so rm $(find . -name '*.pyc') deletes entries inside
// the workspace; a find whose output could hold "." stands for the root.
func TestNamedFindOutput(t *testing.T) {
	ws, home := world(t)
	a := New(Config{})
	rootZone := func(src string) bool {
		t.Helper()
		f := a.Analyze(src, Options{Workspace: ws, Home: home})
		if f.ParseError != nil {
			t.Fatalf("%s: %v", src, f.ParseError)
		}
		for _, p := range f.Paths {
			if p.Access == "delete" && p.Zone == "workspace_root" {
				return true
			}
		}
		return false
	}
	for src, want := range map[string]bool{
		`rm $(find . -name '*.pyc')`:              false,
		`rm -f $(find . -type f -name "*.o")`:     false,
		`rm -rf "$(find . -iname __pycache__)"`:   false,
		`rm -rf $(find .)`:                        true,
		`rm -rf $(find . -type f)`:                true,
		`rm -rf $(find . -name '*')`:              true,
		`rm -rf $(find . -name '.*')`:             true, // "." passes
		`rm -rf $(find . -name '*.o' -o -name x)`: true,
		`rm -rf $(find . ! -name '*.o')`:          true,
		`rm -rf x$(find . -name '*.o')`:           false,
	} {
		if got := rootZone(src); got != want {
			t.Errorf("%s: workspace root among the deleted paths %v, want %v", src, got, want)
		}
	}
}
