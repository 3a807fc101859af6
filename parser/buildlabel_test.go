package parser

import (
	"strings"
	"testing"
)

// TestBuildLabels: bazel's target labels (//..., //src:main) name packages
// of the build's workspace, not files below /; a path among them, or a
// label climbing with "..", is still a path.
func TestBuildLabels(t *testing.T) {
	ws, home := world(t)
	a := New(Config{})
	opts := Options{Workspace: ws, Home: home}
	outside := func(f *Facts) []string {
		var out []string
		for _, p := range f.Paths {
			if p.Access != "cwd" && !strings.HasPrefix(p.Real, ws) {
				out = append(out, p.Real)
			}
		}
		return out
	}
	for _, src := range []string{
		`bazel build //...`,
		`bazel test //src/...`,
		`bazelisk build //src:main`,
		`bazel build -- //... -//src/...`,
		`buck2 build //...`,
	} {
		if o := outside(a.Analyze(src, opts)); len(o) > 0 {
			t.Errorf("%s: paths outside the workspace %v", src, o)
		}
	}
	for _, src := range []string{
		`bazel build //... /etc/passwd`,
		`bazel build //../etc:passwd`,
		`bazel build ///etc`,
		`bazel run //tools:gen -- --out /etc/x`,
		`mytool //etc/passwd`,
	} {
		if o := outside(a.Analyze(src, opts)); len(o) == 0 {
			t.Errorf("%s: no path outside the workspace", src)
		}
	}
}
