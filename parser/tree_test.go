package parser

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTreeReads: a command that reads a whole directory reads the secrets
// below it. The workspace here holds the home (an agent started in ~), so
// "." holds ~/.ssh.
func TestTreeReads(t *testing.T) {
	_, home := world(t)
	if err := os.MkdirAll(home+"/src", 0o755); err != nil {
		t.Fatal(err)
	}
	a := New(Config{SensitivePaths: []string{"~/.ssh", "~/.aws", "~/plain-secrets", "~/keys/*.key"}})
	opts := Options{Workspace: home, Home: home}
	// found returns the sensitive tree path of the facts, if any.
	found := func(f *Facts) (Path, bool) {
		for _, p := range f.Paths {
			if p.Tree && p.Sensitive {
				return p, true
			}
		}
		return Path{}, false
	}
	for _, src := range []string{
		"grep -r token .", "grep -R token .", "grep --recursive token", "grep -r token", "egrep -rl x .",
		"grep -d recurse x .", "grep --directories=recurse x .",
		"rg --hidden token", "rg -uu token", "rg -u -u token .", "rg -. token", "ag --hidden x", "ag -u x", "ack x",
		"tar czf /tmp/h.tgz .", "tar -cf /tmp/h.tar .", "tar cf /tmp/h.tar .", "tar --create -f /tmp/h.tar .", "tar -C / -czf /tmp/h.tgz " + home[1:],
		"zip -r /tmp/h.zip .", "7z a /tmp/h.7z .", "cp -r . /tmp/x", "cp -a . /tmp/x", "cp -R ./ /tmp/x",
		"rsync -a ./ /tmp/x/", "rsync -r . /tmp/x", "scp -r . host:x", "diff -r . /tmp/y",
		"cd / && grep -r x " + home[1:], "sh -c 'grep -r x .'",
		"printf '!.ssh\\n' > .ignore && rg x", "RIPGREP_CONFIG_PATH=/tmp/cfg rg x", "rg --ignore-file /tmp/i x",
		"grep -r -f /tmp/patterns", "grep -r --file=/tmp/patterns",
		"ln -s .. src/up && grep -R x src", "ln -s " + home + " src/up && cp -rL src /tmp/o", "ln -s .. src/up && rsync -aL src /tmp/o",
		"grep -r foo --exclude-dir=.git .", "grep -r foo --include='id_*' .", "rg --hidden -g '!.git' foo",
		"rgrep x .", "git add -A", "git add .", "git stash -u", "git diff --no-index src .", "jar cf /tmp/x.jar .",
		"jar cf /tmp/e.jar -C " + home + " .", "zip -qR /tmp/x.zip '*'", "7z a /tmp/x.7z -r '*'", "pax -w .", "pax -rw . /tmp/o",
		"mksquashfs . /tmp/x.sqfs", "rsync -d . /tmp/o",
		"ugrep -r x .", "ug x", "git grep --no-index x", "git -C . grep --no-index x .", "gzip -rc . > /tmp/x.gz", "gzip -r .", "zstd -r . -o /tmp/x",
	} {
		f := a.Analyze(src, opts)
		if f.ParseError != nil {
			t.Errorf("%s: parse error %v", src, f.ParseError)
			continue
		}
		p, ok := found(f)
		if !ok {
			t.Errorf("%s: no tree path holding a secret in %+v", src, f.Paths)
			continue
		}
		if p.SensitiveMatch != "~/.ssh" && p.SensitiveMatch != "~/.aws" {
			t.Errorf("%s: sensitive_match %q", src, p.SensitiveMatch)
		}
	}
	for _, src := range []string{
		"grep token .", "grep -r token src", "rg token", "rg token .", "ag x", "cat f | rg token", "rg x < list",
		"ls -R .", "find . -name x", "du -a .", "tar --no-recursion -cf /tmp/h.tar .", "tar xf /tmp/h.tar",
		"cp . /tmp/x", "zip /tmp/h.zip .", "rsync ./a /tmp/x", "diff . /tmp/y", "tree .",
		"grep -r foo --exclude-dir=.ssh .", "grep -rn foo --include=*.py .", "rg --hidden -g '!.ssh' foo", "rg --hidden -g '*.py' foo",
		"git grep x", "gzip -r src", "cat f | ug x", "rg -f /tmp/patterns", "grep -r -f /tmp/patterns src", "git add src", "git stash", "jar cf /tmp/s.jar src", "jar xf x.jar",
	} {
		f := a.Analyze(src, opts)
		if p, ok := found(f); ok {
			t.Errorf("%s: %s marked as holding %s", src, p.Raw, p.SensitiveMatch)
		}
	}

	// Entries a lister prints, read one by one in a loop: any of them
	// could be a secret below.
	for _, src := range []string{
		`find . -type f | while read f; do cat "$f"; done`,
		`while IFS= read -r f; do cat -- "$f"; done < <(find . -type f)`,
		`find . | while read -r a; do head "$a"; done`,
	} {
		sensitive := false
		for _, p := range a.Analyze(src, opts).Paths {
			sensitive = sensitive || p.Sensitive && p.Command != "find"
		}
		if !sensitive {
			t.Errorf("%s: no read of a secret", src)
		}
	}

	// Names read from a list: from a lister feeding stdin, its entries;
	// from a file, any path.
	for src, want := range map[string]bool{
		"find . | cpio -o > /tmp/x.cpio":                true,
		"find src | cpio -o > /tmp/x.cpio":              false,
		"find . -type f -print0 | sort --files0-from=-": true,
		"echo .ssh/id_rsa | xz -c --files":              true,
		"zstd -qc --filelist=/tmp/l":                    true,
		"rsync --files-from=/tmp/l . /tmp/p":            true,
		"7z a /tmp/x.7z @list":                          true,
		"wc --files0-from=/tmp/l":                       true,
		"sort -o out.txt src/in.txt":                    false,
	} {
		sensitive := false
		for _, p := range a.Analyze(src, opts).Paths {
			sensitive = sensitive || p.Sensitive || p.Zone == "unknown"
		}
		if sensitive != want {
			t.Errorf("%s: reads a secret or an unknown path %v, want %v", src, sensitive, want)
		}
	}

	// A listed secret that is not hidden counts for rg too; one that does
	// not exist does not count; nor does a pattern's match elsewhere.
	if err := os.MkdirAll(home+"/plain-secrets", 0o755); err != nil {
		t.Fatal(err)
	}
	if p, ok := found(a.Analyze("rg token", opts)); !ok || p.SensitiveMatch != "~/plain-secrets" {
		t.Errorf("rg token with ~/plain-secrets: %+v %v", p, ok)
	}
	if p, ok := found(a.Analyze("grep -r x src", opts)); ok {
		t.Errorf("grep -r x src: %+v", p)
	}
	if err := os.MkdirAll(home+"/keys", 0o755); err != nil {
		t.Fatal(err)
	}
	if p, ok := found(a.Analyze("grep -r x keys", opts)); ok {
		t.Errorf("grep -r x keys (no key yet): %+v", p)
	}
	if err := os.WriteFile(filepath.Join(home, "keys", "a.key"), []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, ok := found(a.Analyze("grep -r x keys", opts)); !ok || p.SensitiveMatch != "~/keys/*.key" {
		t.Errorf("grep -r x keys: %+v %v", p, ok)
	}

	// The search tool without a filter reads the tree; hidden entries too.
	f := a.Paths([]PathArg{{Raw: ".", Access: "read", Tree: true}}, opts)
	if p, ok := found(f); !ok || p.Raw != "." {
		t.Errorf("search tool over .: %+v", f.Paths)
	}
	f = a.Paths([]PathArg{{Raw: "src", Access: "read", Tree: true}}, opts)
	if len(f.Paths) != 1 || !f.Paths[0].Tree || f.Paths[0].Sensitive {
		t.Errorf("search tool over src: %+v", f.Paths)
	}
}

// TestTreeReadsUnreadable: a secret the caller cannot read is not read by
// its recursive reads either (root reads everything, so this runs as
// another user only).
func TestTreeReadsUnreadable(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root can read every file")
	}
	_, home := world(t)
	if err := os.Chmod(home+"/.ssh", 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(home+"/.ssh", 0o755) })
	f := New(Config{SensitivePaths: []string{"~/.ssh"}}).Analyze("grep -r x .", Options{Workspace: home, Home: home})
	for _, p := range f.Paths {
		if p.Sensitive {
			t.Errorf("unreadable ~/.ssh counted: %+v", p)
		}
	}
}
