package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestLiteralArgv(t *testing.T) {
	for cmd, want := range map[string][]string{
		"true":                       {"true"},
		"go test -run=Foo ./...":     {"go", "test", "-run=Foo", "./..."},
		`ls -la 'a b' "c d" e'f'"g"`: {"ls", "-la", "a b", "c d", "efg"},
		`grep "" x`:                  {"grep", "", "x"},
		"git status # why":           {"git", "status"},
		"  ls  ":                     {"ls"},
	} {
		if got := literalArgv(cmd); !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", cmd, got, want)
		}
	}
	// Everything bash would interpret, or that is not one simple command.
	for _, cmd := range []string{
		"", "ls *.go", "ls ?", "ls [ab]", "echo {a,b}", "ls ~", "ls a=~/x", "echo $HOME", "echo ${x}",
		"echo $(id)", "echo `id`", `echo "$x"`, `echo "a\"b"`, `echo a\ b`, "echo $'a'", `echo $"a"`,
		"ls > out", "ls 2>&1", "ls < in", "x=1 ls", "ls; id", "ls && id", "ls | wc", "ls &", "! ls",
		"(ls)", "{ ls; }", "if true; then ls; fi", "f() { ls; }", "time ls", "[[ -e x ]]", "declare x",
		"let x=1", "ls @(a|b)", "ls !(a)", "echo a#b", "echo a!b", "ls\nid", "coproc ls", "ls <(id)",
		"echo 'unterminated",
	} {
		if got := literalArgv(cmd); got != nil {
			t.Errorf("%q: got %q, want bash to run it", cmd, got)
		}
	}
}

func TestExecMagic(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		body string
		want bool
	}{
		"elf":    {"\x7fELF\x02\x01", true},
		"script": {"#!/bin/sh\necho hi\n", true},
		"plain":  {"echo hi\n", false},
		"empty":  {"", false},
		"short":  {"#", false},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(c.body), 0o755); err != nil {
			t.Fatal(err)
		}
		if got := execMagic(p); got != c.want {
			t.Errorf("%s: got %v", name, got)
		}
	}
	if execMagic(filepath.Join(dir, "missing")) {
		t.Error("a missing file has no magic")
	}
}

// TestDirectRunChoice: which commands bubblewrap starts itself, and that a
// program bash in the box would not find the same way goes through bash.
func TestDirectRunChoice(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, nil)
	bin := filepath.Join(w.ws, "bin")
	hidden := filepath.Join(w.outside, "bin")
	for _, d := range []string{bin, hidden} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "ls"), []byte("#!/bin/sh\necho planted\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	setPath := func(p string) {
		for i, kv := range s.env {
			if strings.HasPrefix(kv, "PATH=") {
				s.env[i] = "PATH=" + p
			}
		}
	}
	setPath("/usr/local/bin:/usr/bin:/bin")
	d := s.directRun("ls -l", w.ws)
	if d == nil || !slices.Equal(d.argv, []string{"ls", "-l"}) {
		t.Fatalf("ls -l: %+v", d)
	}
	if i := slices.Index(d.env, "_"); i < 0 || filepath.Base(d.env[i+1]) != "ls" || !visible(d.env[i+1]) {
		t.Errorf("_ = %v", d.env)
	}
	for _, c := range []struct{ cmd, path, why string }{
		{"echo hi", "/usr/bin:/bin", "a builtin"},
		{"./x", "/usr/bin:/bin", "a path"},
		{"ls", bin + ":/usr/bin", "a PATH entry in the workspace"},
		{"ls", "bin:/usr/bin", "a relative PATH entry"},
		{"ls", ":/usr/bin", "an empty PATH entry (the working directory)"},
		{"no-such-program-here", "/usr/bin:/bin", "not found"},
	} {
		setPath(c.path)
		if d := s.directRun(c.cmd, w.ws); d != nil {
			t.Errorf("%s (%q, PATH=%s): got %+v, want bash", c.why, c.cmd, c.path, d)
		}
	}
	// A directory the box does not show is skipped, as bash in the box
	// finds nothing there.
	setPath(hidden + ":/usr/bin:/bin")
	if d := s.directRun("ls", w.ws); d == nil || d.env[5] != "/usr/bin/ls" && d.env[5] != "/bin/ls" {
		t.Errorf("hidden PATH entry: %+v", d)
	}
	s.env = append(s.env, "BASH_FUNC_ls%%=() { echo f; }")
	if d := s.directRun("ls", w.ws); d != nil {
		t.Errorf("an exported function: %+v", d)
	}
}

// TestDirectRunMatchesBash runs the same commands started by bubblewrap and
// through bash -c and compares what the box's programs see and say.
func TestDirectRunMatchesBash(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, nil)
	cmds := []string{
		"true", "false", "env", "printenv PWD SHLVL _ HOME", "ls -a", "cat hello.txt 'no such file'",
		"id -u", "sh -c 'echo $0 $#' a b", "bash -c 'echo $SHLVL'", "ls /root /etc/shadow",
	}
	type out struct {
		code           int
		stdout, stderr string
	}
	runBoth := func(cmd string) (direct, bashed out) {
		for i, o := range []*out{&direct, &bashed} {
			if i == 0 && s.directRun(cmd, w.ws) == nil {
				t.Fatalf("%q is not run directly", cmd)
			}
			c := cmd
			if i == 1 {
				// A builtin first makes bash run it; "command" adds
				// nothing the program sees.
				c = "command " + cmd
			}
			res, err := s.Run(context.Background(), Request{Command: c})
			if err != nil {
				t.Fatalf("%q: %v", c, err)
			}
			*o = out{res.ExitCode, res.Stdout.String(), res.Stderr.String()}
		}
		return
	}
	// With the rlimits set by a prologue (bwrap run as the workspace's
	// owner by a root without CAP_SYS_RESOURCE), whose bash starts the
	// program, too.
	prologues := []string{"", s.limitsPrologue()}
	for i := 0; i < 2*len(cmds); i++ {
		s.prologue = prologues[i/len(cmds)]
		cmd := cmds[i%len(cmds)]
		d, b := runBoth(cmd)
		if cmd == "env" {
			// Bash orders its environment its own way.
			sortLines := func(s string) string {
				l := strings.Split(strings.TrimSpace(s), "\n")
				sort.Strings(l)
				return strings.Join(l, "\n")
			}
			d.stdout, b.stdout = sortLines(d.stdout), sortLines(b.stdout)
		}
		if d != b {
			t.Errorf("%q (prologue %v):\n direct %+v\n bash   %+v", cmd, s.prologue != "", d, b)
		}
	}
}
