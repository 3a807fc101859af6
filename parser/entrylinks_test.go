package parser

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// reachesSSH says whether the facts hold a path through which the command
// reaches ~/.ssh (a sensitive path, or one the lister walk added).
func reachesSSH(f *Facts) bool {
	for _, p := range f.Paths {
		if p.Sensitive && strings.Contains(p.Real, "/.ssh") {
			return true
		}
	}
	return false
}

// catReachesSSH is reachesSSH for the paths of cat only.
func catReachesSSH(f *Facts) bool {
	for _, p := range f.Paths {
		if p.Command == "cat" && p.Sensitive && strings.Contains(p.Real, "/.ssh") {
			return true
		}
	}
	return false
}

// TestEntryLinks: a command given the entries a lister printed follows
// the links among them (find . -type l -exec cat {} + reads what
// link_ssh points to), unless the lister prints no links, the links fail
// its -name tests, or the command takes a link as it is.
func TestEntryLinks(t *testing.T) {
	ws, home := world(t)
	a := New(Config{SensitivePaths: []string{"~/.ssh"}})
	opts := Options{Workspace: ws, Home: home}
	for _, src := range []string{
		`find . -type l -exec cat {} +`,
		`find . -exec cat {} \;`,
		`find . | xargs cat`,
		`find . -type l | xargs -I{} cat {}`,
		`find . | while read f; do cat "$f"; done`,
		`find . | while read f; do if [ -f "$f" ]; then :; fi; cat "$f"; done`,
		`cat $(find . -type l)`,
		`cat $(find . | sort)`,
		`for f in $(find .); do cat "$f"; done`,
		`find . | grep link | xargs cat`,
		`find . -name 'link_*' | xargs cat`,
		`find . -L -type f | xargs cat`,
		`git ls-files --others | xargs cat`,
		`ls | xargs cat`,
		`find . -print0 | xargs -0 cp -t /tmp/out`,
		`find . | cpio -o -L > /tmp/x.cpio`,
	} {
		if f := a.Analyze(src, opts); !reachesSSH(f) {
			t.Errorf("%s: no path through link_ssh in %+v", src, f.Paths)
		}
	}
	for _, src := range []string{
		`find . -type f -exec cat {} +`,
		`find . -type f | xargs cat`,
		`find . -name '*.go' | xargs grep x`,
		`find . -name '*.go' -not -path './vendor/*' -exec grep -l x {} +`,
		`find src -name '*.py' | while read f; do cat "$f"; done`,
		`cat $(find . -name '*.go')`,
		`find . -type l | xargs rm -f`,
		`find . -type l -exec rm {} +`,
		`find . | cpio -o > /tmp/x.cpio`,
		`find . | xargs tar cf /tmp/x.tar`,
		`git ls-files | xargs wc -l`, // no link in git's index
		`go vet $(go list ./...)`,
		`gofmt -l $(find . -name '*.go' | xargs -n1 dirname | sort -u)`,
		`mkdir "$(date +%F)"`,
	} {
		if f := a.Analyze(src, opts); reachesSSH(f) {
			t.Errorf("%s: a path through link_ssh in %+v", src, f.Paths)
		}
	}
}

// TestEntryLinksGitIndex: a git lister prints the links git tracks, read
// from the index in each of its versions.
func TestEntryLinksGitIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ws, home := world(t)
	if err := os.RemoveAll(ws + "/.git"); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "README.md", "src/main.go")
	a := New(Config{SensitivePaths: []string{"~/.ssh"}})
	opts := Options{Workspace: ws, Home: home, EnvKnown: true, Environ: map[string]string{}}
	for _, src := range []string{`git ls-files | xargs cat`, `cat $(git ls-files)`, `git diff --name-only | grep x | xargs cat`} {
		if f := a.Analyze(src, opts); reachesSSH(f) {
			t.Errorf("%s, link untracked: a path through link_ssh in %+v", src, f.Paths)
		}
	}
	git("add", "link_ssh")
	for _, version := range []string{"2", "3", "4"} {
		git("update-index", "--index-version", version)
		if version == "3" {
			git("update-index", "--skip-worktree", "README.md") // an extended flag
		}
		links, ok := indexLinks(filepath.Join(ws, ".git", "index"))
		if !ok || len(links) != 1 || !links["link_ssh"] {
			t.Errorf("index version %s: links %v, ok %v", version, links, ok)
		}
		for _, src := range []string{`git ls-files | xargs cat`, `cat $(git ls-files)`, `for f in $(git ls-files); do cat "$f"; done`} {
			if f := a.Analyze(src, opts); !reachesSSH(f) {
				t.Errorf("index version %s, %s: no path through the tracked link_ssh in %+v", version, src, f.Paths)
			}
		}
	}
	// An index changed by the script itself (git add) or split in two:
	// every link counts.
	git("rm", "-q", "--cached", "link_ssh")
	for _, src := range []string{`git add link_ssh && git ls-files | xargs cat`, `git update-index --add link_ssh; git ls-files | xargs cat`, `git ls-files --others | xargs cat`} {
		if f := a.Analyze(src, opts); !catReachesSSH(f) {
			t.Errorf("%s: no path through link_ssh in %+v", src, f.Paths)
		}
	}
	git("update-index", "--split-index")
	if _, ok := indexLinks(filepath.Join(ws, ".git", "index")); ok {
		t.Errorf("a split index was read as whole")
	}
	git("update-index", "--no-split-index")
	git("add", "link_ssh")
	// Another index than the one read: every link counts.
	opts.Environ = map[string]string{"GIT_INDEX_FILE": "/tmp/other"}
	git("rm", "-q", "--cached", "link_ssh")
	if f := a.Analyze(`git ls-files | xargs cat`, opts); !reachesSSH(f) {
		t.Errorf("GIT_INDEX_FILE set: no path through link_ssh in %+v", f.Paths)
	}
	// A damaged index is not read as holding no links.
	if err := os.WriteFile(filepath.Join(ws, ".git", "index"), []byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x05"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Environ = map[string]string{}
	if f := a.Analyze(`git ls-files | xargs cat`, opts); !reachesSSH(f) {
		t.Errorf("damaged index: no path through link_ssh in %+v", f.Paths)
	}
}

// TestAnalysisReadsNoFIFO: files the analysis reads (a sed script, git's
// index and config) are read only when regular: a FIFO in their place
// would block the decision, and a timed-out hook lets the call through.
func TestAnalysisReadsNoFIFO(t *testing.T) {
	ws, home := world(t)
	for _, p := range []string{ws + "/s.sed", ws + "/.git/index", ws + "/.git/config"} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	a := New(Config{SensitivePaths: []string{"~/.ssh"}})
	done := make(chan *Facts, 1)
	go func() {
		done <- a.Analyze(`sed -f s.sed README.md > src/out; git ls-files | xargs cat`, Options{Workspace: ws, Home: home})
	}()
	select {
	case f := <-done:
		if !catReachesSSH(f) {
			t.Errorf("an unreadable index counted no link: %+v", f.Paths)
		}
		nested := false
		for _, d := range f.Dynamic {
			nested = nested || d.Kind == "nested_script"
		}
		if !nested {
			t.Errorf("a sed script that is a FIFO was not an unknown script: %+v", f.Dynamic)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the analysis blocked on a FIFO")
	}
}

// TestLinkWalkBudget: past the budget of entries below a directory whose
// links a command follows, what lies below is unknown, and the facts say
// which directory was too large (workspace.walk_budget).
func TestLinkWalkBudget(t *testing.T) {
	ws, home := world(t)
	saved := linkWalkBudget
	linkWalkBudget = 5
	defer func() { linkWalkBudget = saved }()
	big := filepath.Join(ws, "big")
	if err := os.Mkdir(big, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := os.WriteFile(filepath.Join(big, "f"+strings.Repeat("x", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := New(Config{SensitivePaths: []string{"~/.ssh"}})
	for src, want := range map[string]bool{"grep -R k big": true, "grep -r k big": false, "grep -R k src": false} {
		f := a.Analyze(src, Options{Workspace: ws, Home: home})
		got := false
		for _, d := range f.Dynamic {
			if d.Kind == "walk_budget" && d.Text == big {
				got = true
			}
		}
		if got != want {
			t.Errorf("%s: walk_budget %v, want %v (%+v)", src, got, want, f.Dynamic)
		}
	}
}

// TestLinkFollowingTreeReaders: tree readers told to follow links (and
// jar, which always does) reach what a link below the tree points to;
// the same commands without their follow option do not.
func TestLinkFollowingTreeReaders(t *testing.T) {
	ws, home := world(t)
	a := New(Config{SensitivePaths: []string{"~/.ssh"}})
	opts := Options{Workspace: ws, Home: home}
	for _, src := range []string{
		`ugrep -R KEY .`,
		`ugrep --dereference-recursive KEY`,
		`ugrep -rS KEY .`,
		`ug -R KEY`,
		`ack --follow KEY`,
		`ack-grep --follow KEY .`,
		`pax -wL -f /tmp/x.pax .`,
		`bsdtar -cLf /tmp/x.tar .`,
		`tar -cLf /tmp/x.tar .`,
		`tar cLf /tmp/x.tar .`,
		`genisoimage -f -R -o /tmp/x.iso .`,
		`mkisofs -follow-links -o /tmp/x.iso .`,
		`xorrisofs -f -o /tmp/x.iso .`,
		`fd -L -H id_rsa -x cat`,
		`fdfind --follow . -X cat`,
		`jar cf /tmp/x.jar .`,
	} {
		if f := a.Analyze(src, opts); !reachesSSH(f) {
			t.Errorf("%s: no path through link_ssh in %+v", src, f.Paths)
		}
	}
	for _, src := range []string{
		`ugrep -r KEY .`,
		`ug KEY`,
		`ack KEY`,
		`pax -w -f /tmp/x.pax .`,
		`tar -cf /tmp/x.tar .`,
		`genisoimage -R -o /tmp/x.iso .`,
		`fd -L id_rsa`,
		`fd -H id_rsa -x cat`,
		`jar tf x.jar`,
		`ugrep -R KEY src`,
	} {
		if f := a.Analyze(src, opts); reachesSSH(f) {
			t.Errorf("%s: a path through link_ssh in %+v", src, f.Paths)
		}
	}
}
