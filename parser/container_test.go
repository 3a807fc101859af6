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
	paths := pathKeys(t)
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
		// the engine's global options and their values come first
		"docker --context ctx build src":                              {"read src (tree)"},
		"docker -H tcp://h:2375 -l debug build src":                   {"read src (tree)"},
		"docker buildx --builder b build src":                         {"read src (tree)"},
		"docker build --build-context lib=src .":                      {"read . (tree)", "read src (tree)"},
		"docker build --build-context=base=docker-image://alpine src": {"read src (tree)"},
		"docker --tlskey key.pem ps":                                  {"read key.pem"},
		"podman --out out.txt --identity id_ed25519 ps":               {"read id_ed25519", "write out.txt"},
	} {
		if got := paths(src); !slices.Equal(got, want) {
			t.Errorf("%q: paths %q, want %q", src, got, want)
		}
	}
}

// pathKeys returns a function listing the paths a command line names in a
// fresh world, as sorted "ACCESS RAW" (RAW relative to the workspace,
// " (tree)" for a whole-tree read), the working directory and uploads left
// out.
func pathKeys(t *testing.T) func(src string) []string {
	ws, home := world(t)
	a := New(DefaultConfig())
	return func(src string) []string {
		var out []string
		for _, p := range a.Analyze(src, Options{Workspace: ws, Home: home}).Paths {
			if p.Access == "cwd" || p.Access == "upload" {
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
}

// TestGlobalOptionValues: a program's global options that take a value
// keep that value from being read as the subcommand, or from hiding the
// command a runner starts.
func TestGlobalOptionValues(t *testing.T) {
	for _, c := range []struct {
		argv []string
		sub  string
	}{
		{[]string{"systemctl", "-H", "host", "enable", "x"}, "enable"},
		{[]string{"systemctl", "--root", "/", "enable", "x"}, "enable"},
		{[]string{"systemctl", "--root=/", "enable", "x"}, "enable"},
		{[]string{"npm", "--registry", "https://r", "publish"}, "publish"},
		{[]string{"npm", "-w", "pkg", "publish"}, "publish"},
		{[]string{"hg", "-R", "repo", "push"}, "push"},
		{[]string{"docker", "-H", "tcp://h", "push", "img"}, "push"},
		{[]string{"kubectl", "-n", "ns", "exec", "pod"}, "exec"},
		{[]string{"nix", "--option", "k", "v", "run", "x"}, "run"},
		{[]string{"git", "-C", "dir", "push"}, "push"},
		// after the subcommand an option's value is not skipped for others
		{[]string{"docker", "run", "-c", "512", "img"}, "run"},
	} {
		if _, sub := flagsOf(c.argv[0], c.argv); sub != c.sub {
			t.Errorf("%q: subcommand %q, want %q", c.argv, sub, c.sub)
		}
	}
	ws, home := world(t)
	a := New(DefaultConfig())
	for _, src := range []string{
		"uv --directory d run sh -c 'rm -rf /x'",
		"poetry -C d run sh -c 'rm -rf /x'",
		"pnpm --dir d exec sh -c 'rm -rf /x'",
		"uv --unknown-opt v run sh -c 'rm -rf /x'", // a value the table does not know
		"uv $OPTS run sh -c 'rm -rf /x'",
		"uv $V sh -c 'rm -rf /x'", // the unknown word may be the verb itself
	} {
		found := false
		for _, c := range a.Analyze(src, Options{Workspace: ws, Home: home}).Commands {
			found = found || c.Name == "rm"
		}
		if !found {
			t.Errorf("%q: the command the runner starts was not analysed", src)
		}
	}
}
