package parser

import (
	"os"
	"path/filepath"
	"testing"
)

// protectedWorld is world with toolgate's files inside the workspace: a
// policy directory, an audit log with a rotated sibling, a signing key.
func protectedWorld(t *testing.T) (ws, home string, a *Analyzer) {
	t.Helper()
	ws, home = world(t)
	for _, d := range []string{"pol", ".state/toolgate", "keys"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"pol/toolgate.rego", "pol/data.json", ".state/toolgate/audit.jsonl", ".state/toolgate/audit.jsonl.20260101T000000.000000000Z", ".state/toolgate/notes.txt", "keys/audit.key"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("pol", filepath.Join(ws, "pol_link")); err != nil {
		t.Fatal(err)
	}
	a = New(Config{Protected: []Protected{
		{Path: filepath.Join(ws, "pol")},
		{Path: filepath.Join(ws, ".state/toolgate/audit.jsonl"), Family: true},
		{Path: filepath.Join(ws, "keys/audit.key"), Secret: true},
	}})
	return ws, home, a
}

func TestProtectedPaths(t *testing.T) {
	ws, home, a := protectedWorld(t)
	kind := func(src string) string {
		t.Helper()
		f := a.Analyze(src, Options{Workspace: ws, Home: home})
		if f.ParseError != nil {
			t.Fatalf("%s: %v", src, f.ParseError)
		}
		got := ""
		for _, p := range f.Paths {
			if p.Protected == "secret" || p.Protected == "file" && got == "" {
				got = p.Protected
			}
		}
		if (got != "") != a.Index(f).Protected {
			t.Errorf("%s: present.protected disagrees with the paths", src)
		}
		return got
	}
	for src, want := range map[string]string{
		// changing the policy, however spelled
		"sed -i s/deny/allow/ pol/toolgate.rego": "file",
		"echo 'package toolgate' > pol/zz.rego":  "file",
		"cp /tmp/evil.rego pol/":                 "file",
		"rm -rf pol":                             "file",
		// git rewriting the work tree that holds the policy (and, in this
		// world, the signing key: the stronger mark wins)
		"git checkout other-branch":                       "secret",
		"git switch -":                                    "secret",
		"git checkout -- .":                               "secret",
		"git reset --hard HEAD~3":                         "secret",
		"git stash":                                       "secret",
		"git stash pop":                                   "secret",
		"git pull --rebase":                               "secret",
		"git -C src merge topic":                          "secret",
		"git restore pol":                                 "file",
		"git apply x.patch":                               "secret",
		"git clean -fdx":                                  "secret",
		"patch -p1 < fix.patch":                           "secret",
		"patch -p1 -i fix.patch":                          "secret",
		"cpio -idm < a.cpio":                              "secret",
		"patch -d src -p1 < f.patch":                      "",
		"patch -o /tmp/o.c -i x":                          "",
		"cpio -i -D src --no-absolute-filenames < a.cpio": "",
		"cpio -i -D src < a.cpio":                         "secret", // absolute names land anywhere
		"git reset --har":                                 "secret",
		"git apply --stat --apply x.patch":                "secret",
		"git merge-recursive HEAD -- HEAD evil":           "secret",
		"/usr/lib/git-core/git-reset --hard":              "secret",
		"mkdir s && cd s && git checkout evil":            "secret",
		"cp --target=pol x":                               "file",
		"cp --t=pol x":                                    "file",
		"install --target-directory=pol x":                "file",
		"mv --target=pol x":                               "file",
		"ln --target=pol x":                               "file",
		"sed --i 1d pol/toolgate.rego":                    "file",
		"tar --ext -f /tmp/evil.tar":                      "secret",
		"sort --out=pol/toolgate.rego x":                  "file",
		"csplit --pre=pol/x x 1":                          "file",
		"iconv -f a -t b --output pol/toolgate.rego x":    "file",
		"patch --output=pol/toolgate.rego a p":            "file",
		"gpg --yes --output pol/toolgate.rego x.asc":      "file",
		"grep -rl deny . | while read f; do sed -i s/a/b/ \"$f\"; done": "secret",
		"git checkout -- README.md":                                     "",
		"git checkout -b topic":                                         "",
		"git switch -c topic":                                           "",
		"git restore README.md":                                         "",
		"git clean -n":                                                  "",
		"git clean -fd build/":                                          "",
		"git read-tree HEAD":                                            "",
		"git bisect log":                                                "",
		"git mv README.md NEWS.md":                                      "",
		"git mv pol/toolgate.rego x":                                    "file",
		"jar xf /tmp/evil.jar":                                          "secret",
		"dpkg-deb -x /tmp/evil.deb .":                                   "secret",
		"ar x /tmp/evil.a --output=pol":                                 "file",
		"cd pol && ar x /tmp/evil.a":                                    "file",
		"unzstd --output-dir-flat pol x.zst":                            "file",
		"pzstd -q --rm pol/toolgate.rego":                               "file",
		"7z x /tmp/evil.7z -y":                                          "secret",
		"pax -r < /tmp/evil.pax":                                        "secret",
		"cabextract -d pol x.cab":                                       "file",
		"dos2unix pol/toolgate.rego":                                    "file",
		"7z x /tmp/evil.7z -o/tmp/out":                                  "",
		"jar tf /tmp/x.jar":                                             "",
		"git stash list":                                                "",
		"git restore --staged x":                                        "",
		"git reset HEAD~1":                                              "",
		"git apply --check x.patch":                                     "",
		"git status && git diff":                                        "",
		"git log --oneline":                                             "",
		"git commit -am wip":                                            "",
		"mv pol /tmp/old":                                               "file",
		"rm -f pol/*":                                                   "file",
		"rm -rf p*":                                                     "file",
		"rm -rf *":                                                      "secret", // keys/ goes with it
		"ln -sf /tmp/evil.rego pol/x.rego":                              "file",
		"echo x > pol_link/x.rego":                                      "file",
		"cd pol && echo x > a.rego":                                     "file",
		"ln -s pol p2 && echo x > p2/a.rego":                            "file",
		"tee pol/data.json < /dev/null":                                 "file",
		"find pol -delete":                                              "file",
		"rm -rf " + ws + "/pol/../pol":                                  "file",
		"chmod 777 pol/toolgate.rego":                                   "file",
		// the audit log, its rotated files, the directories above it
		"truncate -s0 .state/toolgate/audit.jsonl":                  "file",
		": > .state/toolgate/audit.jsonl":                           "file",
		"rm .state/toolgate/audit.jsonl.20260101T000000.000000000Z": "file",
		"rm -rf .state":   "file",
		"rm -rf .state/*": "file",
		// the signing key: any access
		"cat keys/audit.key":       "secret",
		"cp keys/audit.key /tmp/k": "secret",
		"cat keys/*":               "secret",
		// from a red-team sweep: writes into a directory above, find's
		// deletions, a lister's items fed into a template
		"cp /tmp/evil.rego .":                               "secret", // keys/ is below it too
		"mv /tmp/k .state/toolgate/":                        "file",
		"chmod -R a+rwx .":                                  "secret",
		"find . -name '*.rego' -delete":                     "file",
		"find . -iname 'TOOLGATE.REGO' -exec rm {} +":       "file",
		"find . -name pol -exec rm -rf {} +":                "file",
		"find . -name .git -prune -o -name '*.pyc' -delete": "secret",
		"find . -delete -name '*.pyc'":                      "secret",
		"ls pol | xargs -I{} rm pol/{}":                     "file",
		"find pol | xargs rm -f":                            "file",
		"ls keys | xargs -I{} cat keys/{}":                  "secret",
		// round 3: a second name by hard link; unzip into the cwd
		"ln pol/toolgate.rego notes.txt": "file",
		"cp -l pol/data.json d.json":     "file",
		"link pol/toolgate.rego n2":      "file",
		"cd src && unzip -o /tmp/e.zip":  "",
		"unzip -o /tmp/e.zip":            "secret", // into the root, keys/ included
		// what is left alone
		"cat pol/toolgate.rego":                      "",
		"grep -r deny pol":                           "",
		"tail .state/toolgate/audit.jsonl":           "",
		"echo x > .state/toolgate/notes.txt":         "",
		"echo x > .state/toolgate/audit.jsonl-notes": "",
		"ls keys":                        "",
		"echo x > src/new.go":            "",
		"rm -rf build":                   "",
		"cp -r pol /tmp/pol-copy":        "",
		"cp README.md src/":              "",
		"ln -s pol/toolgate.rego s.rego": "",
		"ln src/main.go m.go":            "",
		"find . -name '*.pyc' -delete":   "",
		"find . -type d -name __pycache__ -exec rm -rf {} +": "",
		"find src -name '*.go' -exec gofmt -w {} +":          "",
		"rm -rf */build":                  "",
		"rm -rf */node_modules":           "",
		"ls src | xargs -I{} echo src/{}": "",
	} {
		if got := kind(src); got != want {
			t.Errorf("%s: protected %q, want %q", src, got, want)
		}
	}
}

func TestProtectedFileTools(t *testing.T) {
	ws, home, a := protectedWorld(t)
	for _, c := range []struct {
		arg  PathArg
		want string
	}{
		{PathArg{Raw: "pol/zz.rego", Access: "write"}, "file"},
		{PathArg{Raw: "pol_link/data.json", Access: "write"}, "file"},
		{PathArg{Raw: ".state/toolgate/audit.jsonl", Access: "write"}, "file"},
		{PathArg{Raw: "keys/audit.key", Access: "read"}, "secret"},
		{PathArg{Raw: "keys/*.key", Access: "read", Glob: true}, "secret"},
		{PathArg{Raw: "pol/toolgate.rego", Access: "read"}, ""},
		{PathArg{Raw: "src/main.go", Access: "write"}, ""},
	} {
		f := a.Paths([]PathArg{c.arg}, Options{Workspace: ws, Home: home})
		got := ""
		for _, p := range f.Paths {
			if p.Protected != "" {
				got = p.Protected
			}
		}
		if got != c.want {
			t.Errorf("%+v: protected %q, want %q", c.arg, got, c.want)
		}
	}
}

// Without protected files nothing is marked (the default set-up).
func TestNothingProtectedByDefault(t *testing.T) {
	ws, home := world(t)
	f := New(Config{}).Analyze("rm -rf * && echo x > README.md", Options{Workspace: ws, Home: home})
	for _, p := range f.Paths {
		if p.Protected != "" {
			t.Errorf("%+v is marked", p)
		}
	}
}
