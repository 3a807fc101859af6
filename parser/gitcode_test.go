package parser

import (
	"os"
	"testing"
)

// TestGitCode: writes that change what git runs are marked git_code: a
// .git entry anywhere, files of a directory git takes for a repository,
// the entry completing one, and the directory core.hooksPath names.
func TestGitCode(t *testing.T) {
	ws, home := world(t)
	for _, d := range []string{ws + "/gd/objects", ws + "/gd/refs", ws + "/half/objects", ws + "/.githooks"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{ws + "/gd/HEAD", ws + "/half/HEAD"} {
		if err := os.WriteFile(f, []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(ws+"/.git/config", []byte("[core]\n\tbare = false\n\thooksPath = .githooks\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := New(Config{})
	opts := Options{Workspace: ws, Home: home}
	marked := func(src string) bool {
		for _, p := range a.Analyze(src, opts).Paths {
			if p.GitCode {
				return true
			}
		}
		return false
	}
	for _, src := range []string{
		"printf 'gitdir: ../gd' > src/.git", "mkdir -p sub/.git", "cp /tmp/cfg gd/config", "tee gd/hooks/post-checkout",
		"touch half/refs", "echo x > .githooks/pre-commit",
		"mkdir -p new/objects new/refs && echo 'ref: refs/heads/main' > new/HEAD", "echo x > n2/HEAD; mkdir -p n2/objects n2/refs", "sed -i s/a/b/ gd/config.worktree", "tee src/.GIT",
	} {
		if !marked(src) {
			t.Errorf("%s: no git_code path", src)
		}
	}
	for _, src := range []string{
		"echo x > src/config", "touch half/HEAD2", "cat gd/config", "mkdir -p build/objects", "echo > README.md", "touch src/HEAD",
	} {
		if marked(src) {
			t.Errorf("%s: a git_code path", src)
		}
	}
	// A changed config is read again (the cache is keyed on the file's
	// change time): the new hooksPath counts, the old one no longer does.
	if err := os.MkdirAll(ws+"/hooks2", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/.git/config", []byte("[core]\n\thooksPath = hooks2 # comment\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !marked("echo x > hooks2/pre-commit") || marked("echo x > .githooks/pre-commit") {
		t.Errorf("a changed core.hooksPath is not followed")
	}
	// husky points core.hooksPath at .husky/_, whose scripts run the
	// hooks kept in .husky: both are hooks
	if err := os.MkdirAll(ws+"/.husky/_", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/.git/config", []byte("[core]\n\thooksPath = .husky/_\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !marked("echo x > .husky/pre-commit") || !marked("echo x > .husky/_/pre-commit") || marked("echo x > husky.txt") {
		t.Errorf("husky's hooks are not counted as hooks")
	}
}
