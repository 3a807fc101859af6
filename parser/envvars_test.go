package parser

import "testing"

// TestEnvironmentVariables: a variable the script does not set has the
// value of the environment the command runs in, which the analyser cannot
// see: a path it leads could be anywhere (cat $GOOGLE_APPLICATION_CREDENTIALS
// reads a key), so it is not judged as a path inside the working directory.
// Variables the script sets, loop variables over known items, and entries
// read from a lister keep their values.
func TestEnvironmentVariables(t *testing.T) {
	ws, home := world(t)
	a := New(Config{})
	inside := func(src string) bool {
		t.Helper()
		f := a.Analyze(src, Options{Workspace: ws, Home: home})
		if f.ParseError != nil {
			t.Fatalf("%s: %v", src, f.ParseError)
		}
		for _, p := range f.Paths {
			if p.Command != "" && p.Command != "find" && p.Command != "git" && !p.InWorkspace {
				return false
			}
		}
		return true
	}
	for src, want := range map[string]bool{
		"cat $GOOGLE_APPLICATION_CREDENTIALS":                       false,
		`cat "$AWS_SHARED_CREDENTIALS_FILE"`:                        false,
		"grep -r x $OLDPWD":                                         false,
		`rm -rf "$BUILD_DIR/"`:                                      false,
		"cat ${FOO}/x":                                              false,
		"cat ${FOO:-README.md}":                                     false, // FOO may be set
		"cat ${FOO:+README.md}":                                     true,
		"cd src; grep -r x $OLDPWD":                                 true, // cd set it: the workspace
		"X=src; ls $X":                                              true,
		"for f in src/main.go README.md; do cat \"$f\"; done":       true,
		"for f in $(git ls-files '*.go'); do cat \"$f\"; done":      true,
		"find src -name '*.go' | while read f; do cat \"$f\"; done": true,
		`cat "$HOME/x"`:                                             false, // known: the home
	} {
		if got := inside(src); got != want {
			t.Errorf("%s: every path inside the workspace = %v, want %v", src, got, want)
		}
	}
}
