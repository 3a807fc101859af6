package parser

import (
	"slices"
	"strings"
	"testing"
)

// TestContainerBuildPaths: a build's secret and ssh files are reads, its
// context a tree read, its exported output a write; build options that
// take a value are skipped for builds only.
func TestContainerBuildPaths(t *testing.T) {
	ws, home := world(t)
	a := New(DefaultConfig())
	paths := func(src string) []string {
		var out []string
		for _, p := range a.Analyze(src, Options{Workspace: ws, Home: home}).Paths {
			if p.Access == "cwd" {
				continue
			}
			k := p.Access + " " + strings.TrimPrefix(p.Raw, ws+"/")
			if p.Tree {
				k += " (tree)"
			}
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	for src, want := range map[string][]string{
		"docker build --secret id=k,src=key.pem -t app .":            {"read . (tree)", "read key.pem"},
		"docker build --secret=id=k,source=key.pem .":                {"read . (tree)", "read key.pem"},
		"docker build --secret id=t,env=TOKEN .":                     {"read . (tree)"},
		"docker build --ssh default=id_rsa .":                        {"read . (tree)", "read id_rsa"},
		"docker buildx build --ssh gh=a.pem,b.pem --ssh default src": {"read a.pem", "read b.pem", "read src (tree)"},
		"docker build . -t app:dev --build-arg V=1":                  {"read . (tree)"},
		"docker build -o type=local,dest=out .":                      {"read . (tree)", "write out"},
		"docker build --iidfile id.txt -":                            {"write id.txt"},
		"podman image build -f Containerfile src":                    {"read Containerfile", "read src (tree)"},
		"docker build https://github.com/x/y.git":                    nil,
		"docker run -t alpine ls":                                    nil,
	} {
		if got := paths(src); !slices.Equal(got, want) {
			t.Errorf("%q: paths %q, want %q", src, got, want)
		}
	}
}
