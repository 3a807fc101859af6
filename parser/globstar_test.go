package parser

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGlobStarAsBash: a ** word expands to every path bash 5 expands it
// to (the analysis may see more, never less), and a link to an ancestor
// is not walked around: the expansion lists each entry of the tree once.
// Checked against the machine's bash when it has one of version 5.
func TestGlobStarAsBash(t *testing.T) {
	ws, home := world(t)
	for _, d := range []string{"a/b", "a/.hid", "t/u", "d e/f"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a/x.py", "a/b/y.py", "a/.hid/h.py", "t/z.py", "t/u/w.py", "d e/f/s.py", "a/*.py", "top.py"} {
		if err := os.WriteFile(filepath.Join(ws, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"a/l": "../t", "a/b/l2": "../../t", "a/lf.py": "../t/z.py", "a/up": "..", "a/gone": "nowhere", "t/u/loop": "../.."} {
		if err := os.Symlink(to, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	patterns := []string{"a/**/*.py", "a/**", "a/**/", "a/**/u", "a/**/u/*", "**/z.py", "**/*.py", "**", "**/", "./**/z.py",
		"a/**/w.py", "a/b/**/z.py", `"a"/**/*.py`, `a/**/'*.py'`, `"d e"/**/*.py`, "a/**/l", "a/**/**", "**/u/../*.py", "t/**/loop/*.py",
		"a/**/nope", "nope/**", "$d/**/*.py", `"$d"/**/*.py`, "~/**", "$(echo a)/**/*.py", "a/**/$f", "{a,t}/**/*.py"}
	bash, err := exec.LookPath("bash")
	haveBash := err == nil
	if haveBash {
		out, err := exec.Command(bash, "-c", "echo ${BASH_VERSINFO[0]}").Output()
		haveBash = err == nil && strings.TrimSpace(string(out)) >= "5"
	}
	a := New(Config{})
	for _, dot := range []bool{false, true} {
		opts := "globstar"
		if dot {
			opts += " dotglob"
		}
		for _, p := range patterns {
			src := "d=a f='*.py'; shopt -s " + opts + "; printf '%s\\n' " + p
			f := a.Analyze(src, Options{Workspace: ws, Home: home, WorkingDir: ws})
			if f.ParseError != nil || len(f.Commands) < 2 || f.Commands[len(f.Commands)-1].Name != "printf" {
				t.Fatalf("%s: %v %+v", src, f.ParseError, f.Commands)
			}
			got := f.Commands[len(f.Commands)-1].Argv[2:]
			seen := map[string]bool{}
			for _, m := range got {
				if seen[m] {
					t.Errorf("%s: %s twice", src, m)
				}
				seen[m] = true
				// a link ** reaches is a match, its entries may be
				// matched by the next part, nothing deeper (a second
				// ** walks from it, as bash's does)
				for _, l := range []string{"up/", "loop/"} {
					if strings.Count(p, "**") > 1 {
						break
					}
					if _, rest, ok := strings.Cut(m, l); ok && strings.Contains(strings.TrimSuffix(rest, "/"), "/") {
						t.Errorf("%s: walked a link to an ancestor: %s", src, m)
					}
				}
			}
			if !haveBash {
				continue
			}
			cmd := exec.Command(bash, "-c", src)
			cmd.Dir = ws
			cmd.Env = append(os.Environ(), "HOME="+home)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("bash %s: %v", src, err)
			}
			for _, m := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
				// bash writes the directory a/**/** starts from as "a"
				// where mvdan/sh and the analysis write "a/"
				if !slices.Contains(got, m) && !slices.Contains(got, m+"/") {
					t.Errorf("%s: bash matches %q, the analysis does not: %q", src, m, got)
				}
			}
		}
	}
}

// TestGlobBaseIsTheWorkingDirectory: a script that assigns PWD does not
// move where bash globs relative patterns; $PWD itself expands to what
// was assigned, until a cd sets it to where it lands.
func TestGlobBaseIsTheWorkingDirectory(t *testing.T) {
	ws, home := world(t)
	secret := filepath.Join(home, "vault")
	if err := os.MkdirAll(secret, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "key"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(ws, "lnk")); err != nil {
		t.Fatal(err)
	}
	a := New(Config{})
	for src, want := range map[string]string{
		"PWD=/usr; cat l*/key":                      filepath.Join(secret, "key"),
		"PWD=/usr; shopt -s globstar; cat **/key":   filepath.Join(secret, "key"),
		"PWD=" + secret + "; cat $PWD/key":          filepath.Join(secret, "key"),
		"PWD=" + secret + "; cd " + ws + "; cat *":  filepath.Join(secret), // lnk, a link to the directory
		"PWD=/usr; cd " + ws + "; cat $PWD/lnk/key": filepath.Join(secret, "key"),
		"PWD=/usr; cat ${PWD:0:0}l*/key":            filepath.Join(secret, "key"),
	} {
		f := a.Analyze(src, Options{Workspace: ws, Home: home, WorkingDir: ws})
		found := false
		for _, p := range f.Paths {
			found = found || p.Real == want
		}
		if !found {
			t.Errorf("%s: %s is not among the paths %+v", src, want, f.Paths)
		}
	}
}
