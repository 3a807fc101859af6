package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPathProgram: a bare name runs the program a PATH the script set puts
// first; names the system's directories hold, builtins, functions and a
// PATH the script did not touch stay as they are; a PATH not known here
// makes the name unknown.
func TestPathProgram(t *testing.T) {
	ws, home := world(t)
	if err := os.WriteFile(filepath.Join(ws, "build", "tool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := New(DefaultConfig())
	env := map[string]string{"PATH": "/usr/local/bin:/usr/bin:/bin"}
	// first: argv[0] of the first command named like want
	first := func(src, want string) (string, bool) {
		f := a.Analyze(src, Options{Workspace: ws, Home: home, Environ: env, EnvKnown: true})
		dyn := false
		for _, d := range f.Dynamic {
			dyn = dyn || d.Kind == "command_name"
		}
		for _, c := range f.Commands {
			if len(c.Argv) > 0 && filepath.Base(c.Argv[0]) == filepath.Base(want) {
				return strings.TrimPrefix(c.Argv[0], ws+"/"), dyn
			}
		}
		return "", dyn
	}
	for src, want := range map[string]string{
		"PATH=build:$PATH tool":                               "build/tool",
		"export PATH=$PWD/build:$PATH; tool -x":               "build/tool",
		"env PATH=./build:$PATH tool":                         "build/tool",
		"ln -s /usr/bin/curl build/ls && PATH=build:$PATH ls": "build/ls", // made by the script
		"cd src && PATH=../build:$PATH tool":                  "build/tool",
		"PATH=build:$PATH sh -c true":                         "sh", // the system's, found first
		"PATH=build:$PATH cd src":                             "cd",
		"tool() { :; }; PATH=build:$PATH tool":                "tool",
		"PATH=$PATH:build ls":                                 "ls",
		"tool":                                                "tool",
	} {
		if got, dyn := first(src, want); got != want || dyn {
			t.Errorf("%q: runs %q (unknown %v), want %q", src, got, dyn, want)
		}
	}
	// a directory of the environment's PATH holds what the script put there
	envWS := map[string]string{"PATH": ws + "/tools:/usr/bin:/bin"}
	f := a.Analyze("mkdir -p tools && cp /usr/bin/curl tools/git && PATH=$PATH:/opt git push", Options{Workspace: ws, Home: home, Environ: envWS, EnvKnown: true})
	if c := f.Commands[len(f.Commands)-1]; c.Argv[0] != ws+"/tools/git" {
		t.Errorf("a program written into a PATH directory runs as %q", c.Argv[0])
	}
	for _, src := range []string{"PATH=$X:$PATH ls", "read p; PATH=$p ls", "PATH=$(cat p); ls", "PATH=$X:$PATH; ls", "PATH+=\":$X\"; ls"} {
		if _, dyn := first(src, "ls"); !dyn {
			t.Errorf("%q: a PATH not known here should make the name unknown", src)
		}
	}
}

// TestTildePlus: ~+ is the working directory (bash), not a user's home.
func TestTildePlus(t *testing.T) {
	ws, home := world(t)
	a := New(DefaultConfig())
	f := a.Analyze("cd src && cat ~+/main.go", Options{Workspace: ws, Home: home})
	found := false
	for _, p := range f.Paths {
		found = found || p.Access == "read" && p.Real == filepath.Join(ws, "src", "main.go")
	}
	if !found {
		t.Errorf("~+/main.go after cd src is not src/main.go: %+v", f.Paths)
	}
}
