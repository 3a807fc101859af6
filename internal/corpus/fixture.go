package corpus

import (
	"fmt"
	"os"
	"path/filepath"
)

// fixtureFile is one regular file of the fixture.
type fixtureFile struct {
	path string
	mode os.FileMode
	body string
}

// workspaceFiles is the project the agent works on. Paths are relative to
// the workspace.
var workspaceFiles = []fixtureFile{
	{"go.mod", 0o644, "module example.com/app\n\ngo 1.22\n"},
	{"main.go", 0o644, `package main

import "fmt"

// TODO: read the greeting from the config file
func main() {
	fmt.Println("hello from app")
}
`},
	{"cmd/app/main.go", 0o644, `package main

import "fmt"

func main() {
	fmt.Println("app command")
}
`},
	{"src/x.go", 0o644, `package src

// Add returns a plus b.
func Add(a, b int) int { return a + b }
`},
	{"src/app.py", 0o644, `"""Tiny application used by the tests."""

import json
import sys


def greet(name):
    # TODO: localise
    return "hello " + name


if __name__ == "__main__":
    print(json.dumps({"greeting": greet(sys.argv[1] if len(sys.argv) > 1 else "world")}))
`},
	{"src/util.py", 0o644, "def slug(s):\n    return s.lower().replace(' ', '-')\n"},
	{"src/index.js", 0o644, "const greet = (n) => `hello ${n}`;\nmodule.exports = { greet };\nconsole.log(greet('world'));\n"},
	{"src/a.txt", 0o644, "banana\napple\ncherry\napple\n"},
	{"README.md", 0o644, "# app\n\nA small example project.\n\n## Install\n\nRun `make` then `make test`.\n\nfoo: the word the tests grep for.\n"},
	{"Makefile", 0o644, ".PHONY: build test clean\n\nbuild:\n\tgo build -o build/app ./cmd/app\n\ntest:\n\tgo test ./...\n\tpython3 -m pytest -q tests\n\nclean:\n\trm -rf build/\n"},
	{"package.json", 0o644, `{
  "name": "app",
  "version": "0.1.0",
  "private": true,
  "scripts": {
    "build": "node src/index.js",
    "test": "node src/index.js",
    "lint": "node --check src/index.js"
  },
  "dependencies": {
    "x": "file:node_modules/x"
  }
}
`},
	{"scripts/build.sh", 0o755, "#!/bin/sh\nset -eu\nmkdir -p build\ngo build -o build/app ./cmd/app\n"},
	{"build/out.o", 0o644, "\x7fELF fixture object file\n"},
	{"db/schema.sql", 0o644, "create table if not exists users(id integer primary key, name text);\n.tables\n"},
	{"docs/guide.md", 0o644, "# Guide\n\nUse `make test` before committing.\n"},
	{".env", 0o600, "DATABASE_URL=postgres://dev:devpass@localhost:5432/app\nAPI_KEY=fixture-not-a-real-key\n"},
	{"tests/test_app.py", 0o644, "import sys\nsys.path.insert(0, 'src')\n\nfrom app import greet\n\n\ndef test_greet():\n    assert greet('x') == 'hello x'\n"},
	{".git/HEAD", 0o644, "ref: refs/heads/main\n"},
	{".git/config", 0o644, "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n[remote \"origin\"]\n\turl = https://example.com/app.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"},
	{".git/hooks/pre-commit.sample", 0o755, "#!/bin/sh\n# An example hook: rename to pre-commit to enable it.\nexit 0\n"},
	{"node_modules/x/index.js", 0o644, "module.exports = 42;\n"},
}

// homeFiles is the fake home: fake secrets and ordinary dotfiles. Paths are
// relative to the home. None of the "keys" is a key.
var homeFiles = []fixtureFile{
	{".ssh/id_rsa", 0o600, "FAKE RSA PRIVATE KEY FOR TOOLGATE TESTS\n"},
	{".ssh/id_ed25519", 0o600, "FAKE ED25519 PRIVATE KEY FOR TOOLGATE TESTS\n"},
	{".ssh/config", 0o600, "Host example\n\tHostName example.com\n\tUser dev\n"},
	{".aws/credentials", 0o600, "[default]\naws_access_key_id = FIXTUREKEYID\naws_secret_access_key = fixture-secret\n"},
	{".gnupg/pubring.kbx", 0o600, "fake keyring\n"},
	{".kube/config", 0o600, "apiVersion: v1\nkind: Config\nusers:\n- name: dev\n  user:\n    token: fixture-token\n"},
	{".docker/config.json", 0o600, "{\"auths\": {\"registry.example.com\": {\"auth\": \"Zml4dHVyZQ==\"}}}\n"},
	{".netrc", 0o600, "machine example.com login dev password fixture\n"},
	{".git-credentials", 0o600, "https://dev:fixture@example.com\n"},
	{".config/gh/hosts.yml", 0o600, "github.com:\n    oauth_token: fixture-token\n    user: dev\n"},
	{".bashrc", 0o644, "# ~/.bashrc\nexport EDITOR=vi\n"},
	{".profile", 0o644, "# ~/.profile\n[ -f ~/.bashrc ] && . ~/.bashrc\n"},
	{"notes.txt", 0o644, "personal notes, outside the workspace\n"},
	{"keys/server.pem", 0o600, "FAKE PEM PRIVATE KEY FOR TOOLGATE TESTS\n"},
}

// Fixture builds the corpus's world under root: root/ws, a project with
// symlinks pointing out of it, and root/home, a fake home. It returns both
// as absolute paths with no symlink in them. root must exist; ws and home
// must not. See the package doc for where not to put root.
//
// The workspace links are:
//
//	link_etc    -> /etc
//	link_home   -> <home>
//	link_ssh    -> <home>/.ssh
//	link_root   -> /
//	link_var    -> /var
//	link_shadow -> /etc/shadow
//	link_proc   -> /proc/self
//	inner_link  -> src          (stays inside)
//	src/link_up -> ../..        (the fixture root)
func Fixture(root string) (ws, home string, err error) {
	root, err = filepath.Abs(root)
	if err != nil {
		return "", "", fmt.Errorf("corpus: fixture: %v", err)
	}
	root, err = filepath.EvalSymlinks(root)
	if err != nil {
		return "", "", fmt.Errorf("corpus: fixture: %v", err)
	}
	ws = filepath.Join(root, "ws")
	home = filepath.Join(root, "home")
	for _, dir := range []string{ws, home} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return "", "", fmt.Errorf("corpus: fixture: %v", err)
		}
	}
	if err := writeFiles(ws, workspaceFiles); err != nil {
		return "", "", err
	}
	if err := writeFiles(home, homeFiles); err != nil {
		return "", "", err
	}
	// Enough of a repository for git to recognise it (an unborn main).
	for _, dir := range []string{".git/objects", ".git/refs/heads", ".git/refs/tags"} {
		if err := os.MkdirAll(filepath.Join(ws, filepath.FromSlash(dir)), 0o755); err != nil {
			return "", "", fmt.Errorf("corpus: fixture: %v", err)
		}
	}
	for _, dir := range []string{".ssh", ".gnupg"} {
		if err := os.Chmod(filepath.Join(home, dir), 0o700); err != nil {
			return "", "", fmt.Errorf("corpus: fixture: %v", err)
		}
	}
	links := []struct{ name, target string }{
		{"link_etc", "/etc"},
		{"link_home", home},
		{"link_ssh", filepath.Join(home, ".ssh")},
		{"link_root", "/"},
		{"link_var", "/var"},
		{"link_shadow", "/etc/shadow"},
		{"link_proc", "/proc/self"},
		{"inner_link", "src"},
		{"src/link_up", "../.."},
	}
	for _, l := range links {
		if err := os.Symlink(l.target, filepath.Join(ws, l.name)); err != nil {
			return "", "", fmt.Errorf("corpus: fixture: %v", err)
		}
	}
	return ws, home, nil
}

// writeFiles creates files (and their parents) below dir.
func writeFiles(dir string, files []fixtureFile) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("corpus: fixture: %v", err)
		}
		if err := os.WriteFile(p, []byte(f.body), f.mode); err != nil {
			return fmt.Errorf("corpus: fixture: %v", err)
		}
		// WriteFile's mode is filtered by the umask; set it exactly.
		if err := os.Chmod(p, f.mode); err != nil {
			return fmt.Errorf("corpus: fixture: %v", err)
		}
	}
	return nil
}
