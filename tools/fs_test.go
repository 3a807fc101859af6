package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// canary is the content of files outside the workspace. No tool output may
// ever contain it.
const canary = "CANARY-outside-7f3a91"

// fixture is a temporary directory holding a workspace and, beside it, a
// directory "out" the tools must never reach.
type fixture struct {
	w    *Workspace
	root string // the workspace, symlinks resolved
	out  string // outside the workspace; holds canary.txt and sub/canary.txt
}

// newFixture builds
//
//	out/canary.txt, out/sub/canary.txt    (content: canary)
//	ws/a.txt                              "alpha\n"
//	ws/dir/inner.txt                      "inner\n"
//	ws/escape     -> ../out               relative link leaving the workspace
//	ws/escapeabs  -> <abs out>            absolute link leaving it
//	ws/escfile    -> ../out/canary.txt    link to an outside file
//	ws/deep/up    -> ../../out            climbs out from a subdirectory
//	ws/inlink     -> dir                  link inside the workspace
//	ws/infile     -> a.txt
//	ws/dir/back   -> ../a.txt             ".." that stays inside
//	ws/loop       -> loop
//
// and opens ws, through the component walk when fallback is set.
func newFixture(t testing.TB, fallback bool) *fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	out := filepath.Join(base, "out")
	mustMkdir(t, filepath.Join(out, "sub"))
	mustWrite(t, filepath.Join(out, "canary.txt"), canary+"\n")
	mustWrite(t, filepath.Join(out, "sub", "canary.txt"), canary+"\n")
	mustMkdir(t, filepath.Join(ws, "dir"))
	mustMkdir(t, filepath.Join(ws, "deep"))
	mustWrite(t, filepath.Join(ws, "a.txt"), "alpha\n")
	mustWrite(t, filepath.Join(ws, "dir", "inner.txt"), "inner\n")
	for link, target := range map[string]string{
		"escape":    "../out",
		"escapeabs": out,
		"escfile":   "../out/canary.txt",
		"deep/up":   "../../out",
		"inlink":    "dir",
		"infile":    "a.txt",
		"dir/back":  "../a.txt",
		"loop":      "loop",
	} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	return &fixture{w: openTestWorkspace(t, ws, fallback), root: ws, out: out}
}

// openTestWorkspace opens dir as a workspace, forcing the fallback walk when
// asked, and closes it at the end of the test.
func openTestWorkspace(t testing.TB, dir string, fallback bool) *Workspace {
	t.Helper()
	forceFallback = fallback
	w, err := OpenWorkspace(dir)
	forceFallback = false
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if !fallback && !w.openat2 {
		t.Log("openat2 is not available here; both modes use the component walk")
	}
	if fallback && w.openat2 {
		t.Fatal("forceFallback did not disable openat2")
	}
	return w
}

// bothModes runs f once with openat2 and once with the component walk.
func bothModes(t *testing.T, f func(t *testing.T, fx *fixture)) {
	for _, mode := range []struct {
		name     string
		fallback bool
	}{{"openat2", false}, {"fallback", true}} {
		t.Run(mode.name, func(t *testing.T) { f(t, newFixture(t, mode.fallback)) })
	}
}

func mustMkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t testing.TB, name, content string) {
	t.Helper()
	mustMkdir(t, filepath.Dir(name))
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fdPath is where an open descriptor really is, from /proc.
func fdPath(t testing.TB, fd int) string {
	t.Helper()
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func inside(root, p string) bool { return p == root || strings.HasPrefix(p, root+"/") }

func TestResolvePath(t *testing.T) {
	fx := newFixture(t, false)
	w := fx.w
	for _, c := range []struct {
		in, want string
		err      error
	}{
		{"a.txt", "a.txt", nil},
		{"./dir/../a.txt", "a.txt", nil},
		{"dir//inner.txt/", "dir/inner.txt", nil},
		{"", ".", nil},
		{".", ".", nil},
		{fx.root, ".", nil},
		{fx.root + "/", ".", nil},
		{fx.root + "/dir/inner.txt", "dir/inner.txt", nil},
		{fx.root + "/../ws/a.txt", "a.txt", nil},
		{"..", "", errOutside},
		{"../x", "", errOutside},
		{"dir/../../x", "", errOutside},
		{"/etc/passwd", "", errOutside},
		{fx.root + "x/a", "", errOutside},
		{fx.out + "/canary.txt", "", errOutside},
		{"/", "", errOutside},
		{"~", "", errOutside},
		{"~/x", "", errOutside},
		{"~root/.ssh", "", errOutside},
		{"a\x00b", "", errNUL},
	} {
		got, err := w.resolvePath(c.in)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil && err != nil) {
			t.Errorf("resolvePath(%q) = %q, %v; want %q, %v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestRootAlias(t *testing.T) {
	fx := newFixture(t, false)
	alias := filepath.Join(filepath.Dir(fx.root), "alias")
	if err := os.Symlink("ws", alias); err != nil {
		t.Fatal(err)
	}
	w := openTestWorkspace(t, alias, false)
	if w.Root() != fx.root {
		t.Fatalf("Root() = %q, want the resolved %q", w.Root(), fx.root)
	}
	for _, p := range []string{alias + "/a.txt", fx.root + "/a.txt"} {
		if r := w.ReadFile(p, 0, 0); r.Output != "alpha\n" {
			t.Errorf("ReadFile(%q) = %q", p, r.Output)
		}
	}
}

func TestOpenWorkspaceErrors(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "f"), "x")
	for _, p := range []string{filepath.Join(dir, "missing"), filepath.Join(dir, "f")} {
		if w, err := OpenWorkspace(p); err == nil {
			w.Close()
			t.Errorf("OpenWorkspace(%q) succeeded", p)
		}
	}
}

// TestOpenBeneath checks the open layer directly in both modes: links
// inside are followed, links and ".." leaving are refused, and whatever
// opens is inside the root.
func TestOpenBeneath(t *testing.T) {
	bothModes(t, func(t *testing.T, fx *fixture) {
		for _, c := range []struct {
			rel  string
			want string // where it must open, relative to the root; "" for an error
			err  error
		}{
			{".", ".", nil},
			{"a.txt", "a.txt", nil},
			{"inlink", "dir", nil},
			{"inlink/inner.txt", "dir/inner.txt", nil},
			{"infile", "a.txt", nil},
			{"dir/back", "a.txt", nil},
			{"inlink/back", "a.txt", nil},
			{"escape", "", errOutside},
			{"escape/canary.txt", "", errOutside},
			{"escapeabs/canary.txt", "", errOutside},
			{"escfile", "", errOutside},
			{"deep/up/canary.txt", "", errOutside},
			{"missing", "", unix.ENOENT},
			{"a.txt/x", "", unix.ENOTDIR},
			{"loop", "", unix.ELOOP},
		} {
			fd, err := fx.w.open(c.rel, unix.O_PATH)
			if c.want == "" {
				if err == nil {
					t.Errorf("open(%q) opened %s", c.rel, fdPath(t, fd))
					unix.Close(fd)
				} else if !errors.Is(err, c.err) {
					t.Errorf("open(%q) = %v, want %v", c.rel, err, c.err)
				}
				continue
			}
			if err != nil {
				t.Errorf("open(%q): %v", c.rel, err)
				continue
			}
			got := fdPath(t, fd)
			unix.Close(fd)
			if want := filepath.Join(fx.root, c.want); got != want {
				t.Errorf("open(%q) opened %s, want %s", c.rel, got, want)
			}
		}
		// A directory flag on a file, and reading flags on the last component.
		if _, err := fx.w.open("a.txt", unix.O_PATH|unix.O_DIRECTORY); !errors.Is(err, unix.ENOTDIR) {
			t.Errorf("open(a.txt, O_DIRECTORY) = %v, want ENOTDIR", err)
		}
		fd, err := fx.w.open("infile", unix.O_RDONLY)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := readAllFd(fd, 100)
		unix.Close(fd)
		if string(data) != "alpha\n" {
			t.Errorf("reading through infile gave %q", data)
		}
		if _, err := fx.w.open("a.txt", unix.O_WRONLY|unix.O_CREAT); err == nil {
			t.Error("open accepted O_CREAT")
		}
	})
}

// TestEscapesRefusedByEveryTool is the main security test: every way out
// of the workspace, through every tool, in both modes, gives the outside
// error, and the outside files are neither shown nor changed.
func TestEscapesRefusedByEveryTool(t *testing.T) {
	bothModes(t, func(t *testing.T, fx *fixture) {
		w := fx.w
		outsidePaths := []string{
			"../out/canary.txt",
			"dir/../../out/canary.txt",
			fx.out + "/canary.txt",
			"escape/canary.txt",
			"escape/sub/canary.txt",
			"escapeabs/canary.txt",
			"deep/up/canary.txt",
			"escfile",
			"~/canary.txt",
		}
		outsideDirs := []string{"..", "../out", fx.out, "escape", "escapeabs", "deep/up", "escape/sub", "/"}
		check := func(what string, r Result, p string) {
			t.Helper()
			if strings.Contains(r.Output, canary) {
				t.Errorf("%s leaked the canary: %q", what, r.Output)
			}
			want := "Error: Path " + p + " is outside the workspace"
			if r.Output != want || !r.IsError {
				t.Errorf("%s = %+v, want %q", what, r, want)
			}
		}
		for _, p := range outsidePaths {
			check("ReadFile("+p+")", w.ReadFile(p, 0, 0), p)
			check("ReadFile("+p+", 1, 1)", w.ReadFile(p, 1, 1), p)
			check("EditFile("+p+")", w.EditFile(p, canary, "owned"), p)
			check("Search(path="+p+")", w.Search("CANARY", p, "", 0), p)
			check("ListDir("+p+")", w.ListDir(p), p)
		}
		for _, p := range outsideDirs {
			check("ListDir("+p+")", w.ListDir(p), p)
			check("Search(path="+p+")", w.Search(".", p, "", 0), p)
		}
		// Writes that would create something outside: through a directory
		// link, or by ".." and absolute paths.
		for _, p := range []string{
			"../out/new.txt", fx.out + "/new.txt", "escape/new.txt", "escapeabs/new.txt",
			"deep/up/new.txt", "escape/sub/canary.txt", "escape/newdir/new.txt", "~/new.txt",
		} {
			check("WriteFile("+p+")", w.WriteFile(p, "owned"), p)
		}
		for _, p := range []string{"../*", "../out/*", "/etc/*", fx.out + "/*", "~/*", "{a.txt,../out/canary.txt}", "dir/../../*"} {
			check("Glob("+p+")", w.Glob(p), p)
		}
		// Globs through escaping links find nothing; a whole-workspace
		// search and glob never show the canary.
		for _, p := range []string{"escape/*", "escape/**", "escapeabs/*", "deep/up/*", "*/canary.txt", "**/canary.txt", "e*/*", "deep/*/*"} {
			r := w.Glob(p)
			if r.Output != "No files found matching: "+p {
				t.Errorf("Glob(%q) = %q, want no match", p, r.Output)
			}
		}
		for _, r := range []Result{w.Search("CANARY", "", "", 0), w.Search(".", "", "", 1000), w.Search("CANARY", "", "**/*", 0), w.Glob("**"), w.Glob("**/*"), w.ListDir(".")} {
			if strings.Contains(r.Output, canary) || strings.Contains(r.Output, "canary.txt") {
				t.Errorf("a workspace-wide call showed the outside: %q", r.Output)
			}
		}
		// Nothing outside changed or appeared.
		for _, f := range []string{"canary.txt", "sub/canary.txt"} {
			if got := mustRead(t, filepath.Join(fx.out, f)); got != canary+"\n" {
				t.Errorf("out/%s changed to %q", f, got)
			}
		}
		ents, _ := os.ReadDir(fx.out)
		if len(ents) != 2 {
			t.Errorf("out holds %d entries, want 2", len(ents))
		}
	})
}

// TestInsideLinksFollowed: symlinks that stay in the workspace work like
// the files they point to, in both modes.
func TestInsideLinksFollowed(t *testing.T) {
	bothModes(t, func(t *testing.T, fx *fixture) {
		w := fx.w
		for p, want := range map[string]string{"infile": "alpha\n", "inlink/inner.txt": "inner\n", "dir/back": "alpha\n", "inlink/back": "alpha\n"} {
			if r := w.ReadFile(p, 0, 0); r.Output != want || r.IsError {
				t.Errorf("ReadFile(%q) = %+v, want %q", p, r, want)
			}
		}
		if r := w.ListDir("inlink"); r.Output != "📄 back\n📄 inner.txt" {
			t.Errorf("ListDir(inlink) = %q", r.Output)
		}
		if r := w.WriteFile("inlink/new.txt", "n"); r.IsError {
			t.Fatal(r.Output)
		}
		if got := mustRead(t, filepath.Join(fx.root, "dir", "new.txt")); got != "n" {
			t.Errorf("write through inlink gave %q", got)
		}
		if r := w.Search("inner", "inlink", "", 0); r.Output != "inlink/inner.txt:1: inner" {
			t.Errorf("Search(path=inlink) = %q", r.Output)
		}
		if r := w.ReadFile("loop", 0, 0); r.Output != "Error: File not found: loop" {
			t.Errorf("ReadFile(loop) = %q", r.Output)
		}
	})
}

// TestWriteReplacesOutsideLink: a symlink at the name written is replaced
// by the new file; the file it pointed to is untouched.
func TestWriteReplacesOutsideLink(t *testing.T) {
	bothModes(t, func(t *testing.T, fx *fixture) {
		r := fx.w.WriteFile("escfile", "mine")
		if r.IsError {
			t.Fatal(r.Output)
		}
		if got := mustRead(t, filepath.Join(fx.out, "canary.txt")); got != canary+"\n" {
			t.Fatalf("the outside file changed: %q", got)
		}
		fi, err := os.Lstat(filepath.Join(fx.root, "escfile"))
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("escfile is %v, %v; want a regular file", fi, err)
		}
		if got := mustRead(t, filepath.Join(fx.root, "escfile")); got != "mine" {
			t.Errorf("escfile holds %q", got)
		}
		// A dangling link is replaced the same way.
		if err := os.Symlink(filepath.Join(fx.out, "created.txt"), filepath.Join(fx.root, "dangling")); err != nil {
			t.Fatal(err)
		}
		if r := fx.w.WriteFile("dangling", "x"); r.IsError {
			t.Fatal(r.Output)
		}
		if _, err := os.Lstat(filepath.Join(fx.out, "created.txt")); err == nil {
			t.Error("writing a dangling link created its outside target")
		}
	})
}

func TestProtectedGitPaths(t *testing.T) {
	bothModes(t, func(t *testing.T, fx *fixture) {
		w := fx.w
		root := fx.root
		mustWrite(t, filepath.Join(root, ".git", "config"), "[core]\n")
		mustWrite(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
		mustMkdir(t, filepath.Join(root, ".git", "objects"))
		mustMkdir(t, filepath.Join(root, ".git", "refs"))
		mustMkdir(t, filepath.Join(root, ".git", "hooks"))
		mustWrite(t, filepath.Join(root, "sub", ".git", "config"), "[core]\n")
		// A linked git directory and a bare repository, which git treats as
		// repositories although no component is called .git.
		for _, d := range []string{"real.git", "bare"} {
			mustWrite(t, filepath.Join(root, d, "HEAD"), "ref: refs/heads/main\n")
			mustWrite(t, filepath.Join(root, d, "config"), "[core]\n")
			mustMkdir(t, filepath.Join(root, d, "objects"))
			mustMkdir(t, filepath.Join(root, d, "refs"))
		}
		mustMkdir(t, filepath.Join(root, "wt"))
		for link, target := range map[string]string{"h": ".git/hooks", "g": ".git", "wt/.git": "../real.git", "sub/hk": "../.git/hooks"} {
			if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
				t.Fatal(err)
			}
		}
		hooks := "it is inside a .git/hooks directory, and git runs the files there as programs"
		config := "it is a .git/config file, which can make git run programs"
		for _, c := range []struct{ path, reason string }{
			{".git/hooks/pre-commit", hooks},
			{".git/hooks/sub/x", hooks},
			{".git/hooks", hooks},
			{".GIT/Hooks/pre-push", hooks},
			{"a/b/.git/hooks/post-checkout", hooks},
			{".git/config", config},
			{"sub/.git/config", config},
			{"new/.git/config", config},
			{fx.root + "/.git/config", config},
			{"h/pre-commit", hooks},
			{"sub/hk/post-merge", hooks},
			{"g/config", config},
			{"g/hooks/pre-commit", hooks},
			{"wt/.git/hooks/pre-commit", hooks},
			{"wt/.git/config", config},
			{"real.git/config", config},
			{"real.git/hooks/pre-commit", hooks},
			{"bare/hooks/post-update", hooks},
			{"bare/config", config},
			{".git/commondir", "it is a .git/commondir file, which points git at another configuration that can make it run programs"},
			{"sub/.git/config.worktree", "it is a .git/config.worktree file, which points git at another configuration that can make it run programs"},
			{"g/commondir", "it is a .git/commondir file, which points git at another configuration that can make it run programs"},
			{"nested/.git", "it is a .git file, which points git at another repository and its configuration"},
		} {
			want := "Error: Refusing to write " + c.path + ": " + c.reason
			if r := w.WriteFile(c.path, "#!/bin/sh\nevil\n"); r.Output != want || !r.IsError {
				t.Errorf("WriteFile(%q) = %q, want %q", c.path, r.Output, want)
			}
		}
		for _, c := range []struct{ path, reason string }{
			{".git/config", config}, {"g/config", config}, {"sub/.git/config", config}, {"real.git/config", config},
		} {
			want := "Error: Refusing to edit " + c.path + ": " + c.reason
			if r := w.EditFile(c.path, "[core]", "[core]\n\thooksPath = /tmp"); r.Output != want || !r.IsError {
				t.Errorf("EditFile(%q) = %q, want %q", c.path, r.Output, want)
			}
		}
		// Nothing was written or created.
		for _, p := range []string{".git/hooks/pre-commit", ".git/hooks/sub", "new", "a", "real.git/hooks", "bare/hooks"} {
			if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
				t.Errorf("%s was created", p)
			}
		}
		if got := mustRead(t, filepath.Join(root, ".git", "config")); got != "[core]\n" {
			t.Errorf(".git/config changed: %q", got)
		}
		// Reading is fine, and so are neighbours.
		if r := w.ReadFile(".git/config", 0, 0); r.Output != "[core]\n" {
			t.Errorf("ReadFile(.git/config) = %q", r.Output)
		}
		for _, p := range []string{".git/description", ".git/configs", "config", "hooks/x", "src/config", ".github/hooks/x", ".git/info/exclude", "dir/.gitconfig"} {
			if r := w.WriteFile(p, "ok\n"); r.IsError {
				t.Errorf("WriteFile(%q) = %q, want success", p, r.Output)
			}
		}
	})
}

// TestFallbackIsUsed makes sure the forced fallback really walks by hand
// and that openat2 is the default where the kernel has it.
func TestFallbackIsUsed(t *testing.T) {
	dir := t.TempDir()
	w := openTestWorkspace(t, dir, true)
	if w.openat2 {
		t.Fatal("fallback workspace uses openat2")
	}
	w2, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if w2.openat2 != probeOpenat2(w2.fd) {
		t.Error("OpenWorkspace did not pick openat2 when it works")
	}
}

// TestSymlinkRace flips a directory of the workspace into a symlink to the
// outside and back while reading through it. Whatever the timing, no read
// may return the canary.
func TestSymlinkRace(t *testing.T) {
	bothModes(t, func(t *testing.T, fx *fixture) {
		root := fx.root
		mustWrite(t, filepath.Join(root, "real", "canary.txt"), "inside\n")
		if err := os.Symlink("../out", filepath.Join(root, "lnk")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(fx.out, filepath.Join(root, "lnkabs")); err != nil {
			t.Fatal(err)
		}
		var stop atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			at := func(n string) string { return filepath.Join(root, n) }
			for !stop.Load() {
				// "d" is in turn the real directory, a relative link out and
				// an absolute link out.
				for _, n := range []string{"real", "lnk", "lnkabs"} {
					os.Rename(at(n), at("d"))
					os.Rename(at("d"), at(n))
				}
			}
		}()
		deadline := time.Now().Add(300 * time.Millisecond)
		reads, inside := 0, 0
		for time.Now().Before(deadline) {
			for _, r := range []Result{
				fx.w.ReadFile("d/canary.txt", 0, 0),
				fx.w.Search("CANARY|inside", "d", "", 0),
				fx.w.ListDir("d"),
				fx.w.Glob("d/*"),
			} {
				reads++
				if strings.Contains(r.Output, canary) {
					stop.Store(true)
					wg.Wait()
					t.Fatalf("a read during the race returned the canary: %q", r.Output)
				}
				if strings.Contains(r.Output, "inside") {
					inside++
				}
			}
		}
		stop.Store(true)
		wg.Wait()
		t.Logf("%d calls, %d saw the inside file", reads, inside)
	})
}

// TestWriteRace: writes through a path whose directory flips to an outside
// link never land outside.
func TestWriteRace(t *testing.T) {
	bothModes(t, func(t *testing.T, fx *fixture) {
		root := fx.root
		mustMkdir(t, filepath.Join(root, "real"))
		if err := os.Symlink("../out", filepath.Join(root, "lnk")); err != nil {
			t.Fatal(err)
		}
		var stop atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				for _, n := range []string{"real", "lnk"} {
					os.Rename(filepath.Join(root, n), filepath.Join(root, "d"))
					os.Rename(filepath.Join(root, "d"), filepath.Join(root, n))
				}
			}
		}()
		deadline := time.Now().Add(200 * time.Millisecond)
		for time.Now().Before(deadline) {
			fx.w.WriteFile("d/written.txt", "x")
			fx.w.WriteFile("d/canary.txt", "x")
		}
		stop.Store(true)
		wg.Wait()
		if _, err := os.Lstat(filepath.Join(fx.out, "written.txt")); err == nil {
			t.Fatal("a write during the race landed outside")
		}
		if got := mustRead(t, filepath.Join(fx.out, "canary.txt")); got != canary+"\n" {
			t.Fatalf("the outside canary changed: %q", got)
		}
		ents, _ := os.ReadDir(fx.out)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".toolgate-") {
				t.Fatalf("a temporary file was left outside: %s", e.Name())
			}
		}
	})
}

func TestClosedWorkspace(t *testing.T) {
	w, err := OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	for _, r := range []Result{w.ReadFile("a", 0, 0), w.WriteFile("a", "x"), w.EditFile("a", "x", "y"), w.ListDir("."), w.Search("x", "", "", 0), w.Glob("*")} {
		if r.Output != "Error: The workspace is closed" || !r.IsError {
			t.Errorf("call on a closed workspace = %+v", r)
		}
	}
}

// FuzzResolvePath checks that no path the lexical layer accepts ever opens
// anything outside the root, in either mode, whatever links it goes
// through.
func FuzzResolvePath(f *testing.F) {
	fxs := []*fixture{newFixture(f, false), newFixture(f, true)}
	for _, s := range []string{
		"a.txt", "../x", "/etc/passwd", "escape/canary.txt", "inlink/../escape", "dir/back/..",
		"deep/up", "deep/up/sub", "~", "a\x00b", "inlink/back/../escape/sub", "loop/x", ".", "",
		fxs[0].root + "/escape", fxs[0].out, "escapeabs/sub/canary.txt", "dir/../..", "./././escfile",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		for _, fx := range fxs {
			rel, err := fx.w.resolvePath(p)
			if err != nil {
				if !errors.Is(err, errOutside) && !errors.Is(err, errNUL) {
					t.Fatalf("resolvePath(%q): unexpected error %v", p, err)
				}
				continue
			}
			if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") || filepath.Clean(rel) != rel {
				t.Fatalf("resolvePath(%q) = %q, not a clean relative path", p, rel)
			}
			fd, err := fx.w.open(rel, unix.O_PATH)
			if err != nil {
				continue
			}
			got := fdPath(t, fd)
			unix.Close(fd)
			if !inside(fx.root, got) {
				t.Fatalf("path %q (rel %q) opened %s, outside %s", p, rel, got, fx.root)
			}
		}
	})
}

func TestFileToolsDoNotAssembleARepository(t *testing.T) {
	root := t.TempDir()
	w, err := OpenWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Any order: the last piece is refused.
	for i, order := range [][]string{
		{"config", "HEAD", "objects/info/keep", "refs/heads/keep"},
		{"objects/x", "refs/y", "HEAD"},
		{"sub/HEAD", "sub/refs/a", "sub/objects/b"},
	} {
		var last Result
		for _, p := range order {
			if i > 0 {
				p = fmt.Sprintf("o%d/%s", i, p)
			}
			last = w.WriteFile(p, "ref: refs/heads/main\n")
		}
		if !strings.Contains(last.Output, "look like") && !strings.Contains(last.Output, "HEAD, objects and refs") {
			t.Errorf("%v: last write was allowed: %q", order, last.Output)
		}
	}
	// A file called HEAD elsewhere is fine.
	if r := w.WriteFile("docs/HEAD", "x"); r.IsError {
		t.Errorf("docs/HEAD refused: %s", r.Output)
	}
}
