package parser

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// shortRacyWindow makes listings of directories unchanged for 20 ms
// cacheable for the test (a coarse clock tick is at most 10 ms).
// It skips a test whose temporary directory is on a file system whose
// listings are never kept.
func shortRacyWindow(t *testing.T) {
	var sf unix.Statfs_t
	if err := unix.Statfs(os.TempDir(), &sf); err != nil || !localFS[int64(sf.Type)] {
		t.Skipf("%s is not on a file system whose listings are kept (type %#x)", os.TempDir(), sf.Type)
	}
	old := racyWindow
	racyWindow = 20 * time.Millisecond
	t.Cleanup(func() { racyWindow = old })
}

// settle waits until the directory's last change is older than the window.
func settle() { time.Sleep(60 * time.Millisecond) }

func kept(dir string) bool {
	listings.mu.RLock()
	defer listings.mu.RUnlock()
	return listings.m[dir] != nil
}

func listing(t *testing.T, dir string) map[string]fs.FileMode {
	t.Helper()
	ents, err := readDir(dir)
	if err != nil {
		t.Fatalf("readDir %s: %v", dir, err)
	}
	want, err := os.ReadDir(dir)
	if err != nil || len(want) != len(ents) {
		t.Fatalf("readDir %s: %d entries, os.ReadDir %d (%v)", dir, len(ents), len(want), err)
	}
	m := map[string]fs.FileMode{}
	for i, e := range ents {
		if e.Name() != want[i].Name() || e.Type() != want[i].Type() {
			t.Fatalf("readDir %s: entry %d is %s %v, os.ReadDir says %s %v", dir, i, e.Name(), e.Type(), want[i].Name(), want[i].Type())
		}
		m[e.Name()] = e.Type()
	}
	return m
}

// TestListingCacheFollowsChanges: a kept listing is used only while the
// directory is unchanged; every kind of change to its entries, and
// another directory in its place, is seen at the next listing.
func TestListingCacheFollowsChanges(t *testing.T) {
	shortRacyWindow(t)
	root := resolveTempDir(t)
	dir := filepath.Join(root, "d")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "a"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "b"), nil, 0o644)
	settle()
	listing(t, dir)
	if !kept(dir) {
		t.Fatalf("a listing of a directory unchanged for longer than the window was not kept")
	}
	if _, ok := listings.lookup(dir); !ok {
		t.Fatalf("the kept listing was not used for the unchanged directory")
	}
	steps := []struct {
		what   string
		change func()
		check  func(m map[string]fs.FileMode) bool
	}{
		{"a link made", func() { os.Symlink("/etc", filepath.Join(dir, "l")) }, func(m map[string]fs.FileMode) bool { return m["l"] == fs.ModeSymlink }},
		{"an entry removed", func() { os.Remove(filepath.Join(dir, "a")) }, func(m map[string]fs.FileMode) bool { _, ok := m["a"]; return !ok }},
		{"an entry renamed", func() { os.Rename(filepath.Join(dir, "b"), filepath.Join(dir, "c")) }, func(m map[string]fs.FileMode) bool { _, b := m["b"]; _, c := m["c"]; return !b && c }},
		{"a file replaced by a link", func() {
			os.Remove(filepath.Join(dir, "c"))
			os.Symlink("/root", filepath.Join(dir, "c"))
		}, func(m map[string]fs.FileMode) bool { return m["c"] == fs.ModeSymlink }},
		{"a directory made", func() { os.Mkdir(filepath.Join(dir, "sub"), 0o755) }, func(m map[string]fs.FileMode) bool { return m["sub"] == fs.ModeDir }},
		{"a rename into it from elsewhere", func() {
			os.WriteFile(filepath.Join(root, "moved"), nil, 0o644)
			os.Rename(filepath.Join(root, "moved"), filepath.Join(dir, "moved"))
		}, func(m map[string]fs.FileMode) bool { _, ok := m["moved"]; return ok }},
		{"another directory in its place", func() {
			os.Rename(dir, filepath.Join(root, "old"))
			os.Mkdir(dir, 0o755)
			os.Symlink("/", filepath.Join(dir, "other"))
		}, func(m map[string]fs.FileMode) bool { return len(m) == 1 && m["other"] == fs.ModeSymlink }},
		{"a link to another directory in its place", func() {
			os.Rename(dir, filepath.Join(root, "old2"))
			os.Symlink("old", dir)
		}, func(m map[string]fs.FileMode) bool { _, ok := m["l"]; return ok && len(m) == 4 }},
	}
	for _, s := range steps {
		// the listing before the change is kept, and the change is made at
		// once (in the same clock tick when the clock is coarse)
		settle()
		listing(t, dir)
		if !kept(dir) {
			t.Fatalf("before %s: the listing was not kept", s.what)
		}
		s.change()
		if m := listing(t, dir); !s.check(m) {
			t.Errorf("%s: the listing after it is %v", s.what, m)
		}
	}
	// a touch that sets the modification time back does not hide a change
	settle()
	listing(t, dir)
	fi, _ := os.Stat(dir)
	os.Symlink("/etc/shadow", filepath.Join(dir, "s"))
	os.Chtimes(dir, fi.ModTime(), fi.ModTime())
	if m := listing(t, dir); m["s"] != fs.ModeSymlink {
		t.Errorf("a link made and the mtime set back: the listing is %v", m)
	}
}

// TestListingCacheRacy: a directory changed within the window is read
// afresh every time and its listing is not kept.
func TestListingCacheRacy(t *testing.T) {
	dir := resolveTempDir(t)
	os.WriteFile(filepath.Join(dir, "a"), nil, 0o644)
	listing(t, dir)
	if kept(dir) {
		t.Fatalf("a listing of a directory changed just now was kept")
	}
	os.Symlink("/etc", filepath.Join(dir, "l"))
	if m := listing(t, dir); m["l"] != fs.ModeSymlink {
		t.Errorf("the link made just now is not listed: %v", m)
	}
}

// TestListingCacheLocalOnly: /proc's listings change without its ctime
// (processes come and go) and are never kept; neither are those of /sys.
func TestListingCacheLocalOnly(t *testing.T) {
	shortRacyWindow(t)
	for _, d := range []string{"/proc", "/proc/self", "/sys", "/sys/kernel"} {
		if _, err := os.Stat(d); err != nil {
			continue
		}
		if _, err := readDir(d); err != nil {
			t.Fatalf("readDir %s: %v", d, err)
		}
		if kept(d) {
			t.Errorf("%s: a listing of a file system whose ctime does not follow its entries was kept", d)
		}
	}
}

// TestListingCacheAnalysis: an analysis after a change in the workspace
// sees the change, though the listing before it was kept.
func TestListingCacheAnalysis(t *testing.T) {
	shortRacyWindow(t)
	ws := resolveTempDir(t)
	os.WriteFile(filepath.Join(ws, "a.txt"), nil, 0o644)
	settle()
	a := New(Config{})
	real := func() []string {
		f := a.Analyze("cat *", Options{Workspace: ws, Home: "/nonexistent"})
		var out []string
		for _, p := range f.Paths {
			out = append(out, p.Real)
		}
		return out
	}
	if got := real(); !slices.Contains(got, filepath.Join(ws, "a.txt")) {
		t.Fatalf("cat *: paths %q", got)
	}
	if !kept(ws) {
		t.Fatalf("the workspace's listing was not kept")
	}
	os.Symlink("/etc/hostname", filepath.Join(ws, "e"))
	if got := real(); !slices.Contains(got, "/etc/hostname") {
		t.Errorf("cat * after a link to /etc/hostname was made: paths %q", got)
	}
	// the listing kept with the link's target, then the link given
	// another target at once
	settle()
	if got := real(); !slices.Contains(got, "/etc/hostname") || !kept(ws) {
		t.Fatalf("cat * with the link: paths %q, kept %v", got, kept(ws))
	}
	os.Remove(filepath.Join(ws, "e"))
	os.Symlink("/etc/passwd", filepath.Join(ws, "e"))
	if got := real(); !slices.Contains(got, "/etc/passwd") || slices.Contains(got, "/etc/hostname") {
		t.Errorf("cat * after the link was given another target: paths %q", got)
	}
}

// TestListingCacheSeeds: what a kept listing seeds the stat memo with,
// links and their targets included, is what lstat and readlink say.
func TestListingCacheSeeds(t *testing.T) {
	shortRacyWindow(t)
	dir := resolveTempDir(t)
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
	os.Symlink("d", filepath.Join(dir, "l"))
	os.Symlink("/nonexistent/x", filepath.Join(dir, "dangling"))
	settle()
	readDir(dir)
	ents, err := readDir(dir)
	if err != nil || !kept(dir) {
		t.Fatalf("readDir: %v, kept %v", err, kept(dir))
	}
	seeded := statMemo{}
	seeded.seed(dir, ents)
	for _, name := range []string{"d", "f", "l", "dangling"} {
		p := dir + "/" + name
		got, ok := seeded[p]
		if !ok {
			t.Errorf("%s was not seeded from the kept listing", name)
			continue
		}
		if want := (statMemo{}).look(p); got != want {
			t.Errorf("%s: seeded %+v, lstat %+v", name, got, want)
		}
	}
}

// TestListingCacheConcurrent: analyses list directories from several
// goroutines while the directories change (run with -race).
func TestListingCacheConcurrent(t *testing.T) {
	shortRacyWindow(t)
	root := resolveTempDir(t)
	for _, d := range []string{"a", "b", "c"} {
		os.Mkdir(filepath.Join(root, d), 0o755)
		os.WriteFile(filepath.Join(root, d, "f"), nil, 0o644)
	}
	settle()
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 200 {
				d := filepath.Join(root, []string{"a", "b", "c"}[i%3])
				ents, err := readDir(d)
				if err != nil || len(ents) == 0 {
					t.Errorf("readDir %s: %d entries, %v", d, len(ents), err)
					return
				}
			}
		}()
	}
	for i := range 50 {
		os.WriteFile(filepath.Join(root, "b", fmt.Sprint("g", i)), nil, 0o644)
	}
	for range 4 {
		<-done
	}
	if m := listing(t, filepath.Join(root, "b")); len(m) != 51 {
		t.Errorf("after the writes b lists %d entries, want 51", len(m))
	}
}

// TestListingCacheBounded: the cache drops listings to stay within its
// count of listings and of entries, and keeps its count of entries right.
func TestListingCacheBounded(t *testing.T) {
	var c listingCache
	ents := func(n int) []fs.DirEntry {
		out := make([]fs.DirEntry, n)
		for i := range out {
			out[i] = &dirEntry{name: fmt.Sprint(i), known: true}
		}
		return out
	}
	st := &unix.Stat_t{}
	for i := range maxListings + 10 {
		c.store(fmt.Sprint("/d", i), st, ents(1))
	}
	if len(c.m) != maxListings || c.entries != maxListings {
		t.Errorf("%d listings, %d entries kept; want %d of each", len(c.m), c.entries, maxListings)
	}
	for i := range 200 {
		c.store(fmt.Sprint("/big", i), st, ents(maxListingEntries))
	}
	sum := 0
	for _, k := range c.m {
		sum += len(k.ents)
	}
	if c.entries != sum || sum > maxKeptEntries || len(c.m) > maxListings {
		t.Errorf("%d listings, %d entries counted, %d kept; at most %d listings and %d entries", len(c.m), c.entries, sum, maxListings, maxKeptEntries)
	}
	c.store("/big0", st, ents(3)) // again, smaller
	sum = 0
	for _, k := range c.m {
		sum += len(k.ents)
	}
	if c.entries != sum {
		t.Errorf("after a listing was replaced: %d entries counted, %d kept", c.entries, sum)
	}
}
