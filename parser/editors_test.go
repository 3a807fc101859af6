package parser

import "testing"

// TestExCommandsOnStdin: ex-mode editors (ex, vim -es) and debuggers read
// their commands from stdin when it is not the terminal; literal commands
// are judged as -c commands are, others cannot be known.
func TestExCommandsOnStdin(t *testing.T) {
	ws, home := world(t)
	a := New(Config{})
	flagged := func(src string) bool {
		f := a.Analyze(src, Options{Workspace: ws, Home: home})
		if f.ParseError != nil {
			t.Fatalf("%s: %v", src, f.ParseError)
		}
		for _, d := range f.Dynamic {
			if d.Kind == "nested_script" || d.Kind == "stdin_script" {
				return true
			}
		}
		for _, c := range f.Commands {
			if c.Name == "rm" {
				return true
			}
		}
		return false
	}
	for src, want := range map[string]bool{
		`vim -es README.md <<< 'w! /tmp/x'`:    true,
		`ex README.md <<< "r ~/.ssh/id_rsa"`:   true,
		"vim -es README.md < /tmp/cmds":        true,
		"gdb -batch < /tmp/cmds":               true,
		`echo '!rm -rf ~' | ex -s`:             true,
		`ex -s README.md <<< '%s/a/b/g|wq'`:    false,
		"vim -es -c '%s/a/b/' -c wq README.md": false,
		"less README.md < /dev/null":           false,
		`vim README.md`:                        false,
	} {
		if got := flagged(src); got != want {
			t.Errorf("%s: flagged %v, want %v", src, got, want)
		}
	}
}

// TestFunctionCalls: a call to a function the script declares walks its
// body again with the call's arguments as $1 … $@, so a body that passes
// them on is judged with them; calls are bounded.
func TestFunctionCalls(t *testing.T) {
	ws, home := world(t)
	a := New(Config{SensitivePaths: []string{"~/.ssh"}})
	opts := Options{Workspace: home, Home: home}
	for src, want := range map[string]bool{
		`g() { grep "$@"; }; g -r SECRET .`:          true,
		`g() { grep $*; }; g -r SECRET .`:            true,
		`g() { tar czf "$1" "${@:2}"; }; g /tmp/x .`: true,
		`g() { grep "$@"; }; g -r SECRET src`:        false,
	} {
		f := a.Analyze(src, opts)
		got := false
		for _, p := range f.Paths {
			got = got || p.Tree && p.Sensitive
		}
		if got != want {
			t.Errorf("%s: reads a tree holding a secret %v, want %v", src, got, want)
		}
	}
	// mutual recursion stays bounded
	f := a.Analyze(`a() { b "$@" "$@"; }; b() { a "$@" "$@"; }; a x`, Options{Workspace: ws, Home: home})
	if f.ParseError != nil || len(f.Commands) > 400 {
		t.Errorf("mutual recursion: %v, %d commands", f.ParseError, len(f.Commands))
	}
}

// TestLinksThemselves: rm, unlink, readlink, stat and ls -l act on a
// symbolic link operand itself, and the file tools name their matches
// without following them; a trailing slash or "." follows the link.
func TestLinksThemselves(t *testing.T) {
	ws, home := world(t) // ws/link_ssh -> home/.ssh, ws/src/link_up -> ../..
	a := New(Config{SensitivePaths: []string{"~/.ssh"}})
	opts := Options{Workspace: ws, Home: home}
	inWS := func(f *Facts) bool {
		for _, p := range f.Paths {
			if !p.InWorkspace || p.Sensitive {
				return false
			}
		}
		return true
	}
	for src, want := range map[string]bool{
		"rm link_ssh":          true,
		"rm -rf src/link_up":   true,
		"unlink link_ssh":      true,
		"readlink link_ssh":    true,
		"stat link_ssh":        true,
		"ls -la link_ssh":      true,
		"ls -ld src/link_up":   true,
		"rm -rf link_ssh/":     false,
		"rm -rf link_ssh/.":    false,
		"rm -rf src/link_up/*": false,
		"readlink -f link_ssh": false,
		"stat -L link_ssh":     false,
		"ls link_ssh":          false,
		"ls -laL link_ssh":     false,
		"cat link_ssh/id_rsa":  false,
	} {
		if got := inWS(a.Analyze(src, opts)); got != want {
			t.Errorf("%s: judged inside the workspace %v, want %v", src, got, want)
		}
	}
	f := a.Paths([]PathArg{{Raw: "*", Access: "read", Glob: true}}, opts)
	for _, p := range f.Paths {
		if p.Sensitive || !p.InWorkspace && p.Raw != "*" {
			t.Errorf("glob tool match followed: %+v", p)
		}
	}
}
