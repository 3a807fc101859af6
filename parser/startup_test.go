package parser

import "testing"

func TestFdPath(t *testing.T) {
	for s, want := range map[string]bool{
		"/dev/fd/3": true, "/proc/self/fd/10": true, "/proc/thread-self/fd/4": true,
		"/dev/fd/0": false, "/dev/stdin": false, "/dev/fd/": false, "/dev/fd/3/x": false, "/dev/fd/x": false, "fd/3": false,
	} {
		if got := fdPath(s); got != want {
			t.Errorf("fdPath(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestPlainHandler(t *testing.T) {
	for body, want := range map[string]bool{
		`echo "failed at $LINENO"`: true, `printf '%s\n' oops; exit 1`: true, `:`: true,
		`x=~`: false, `cd ~`: false, `printf -v x %s ~`: false, `echo ${x:=~}`: false, `echo $(id) > f`: false,
		`source ./f`: false, `if true; then x=1; fi`: false,
	} {
		if got := plainHandler(body); got != want {
			t.Errorf("plainHandler(%q) = %v, want %v", body, got, want)
		}
	}
}

func TestSetPositional(t *testing.T) {
	ws, home := world(t)
	a := New(Config{})
	for src, want := range map[string]string{
		`set -- a b; cat "$2"`:                  "b",
		`set -euo pipefail; set -- x; cat "$1"`: "x",
		`IFS=/; set -- src main.go; cat "$*"`:   "src/main.go",
		`set -o pipefail a; cat "$1"`:           "a",
	} {
		f := a.Analyze(src, Options{Workspace: ws, Home: home})
		c := f.Commands[len(f.Commands)-1]
		if got := c.Argv[len(c.Argv)-1]; got != want {
			t.Errorf("%s: cat %q, want %q", src, got, want)
		}
	}
}
