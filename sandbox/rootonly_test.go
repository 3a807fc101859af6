package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rootTree builds a tree of owners and modes under a fresh directory and
// returns it with the entries a host-root box must not see.
func rootTree(t *testing.T) (string, []string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root: the tree has files of other owners")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	type entry struct {
		path     string
		dir      bool
		mode     os.FileMode
		uid, gid int
	}
	entries := []entry{
		{"pub", false, 0o644, 0, 0},
		{"secret", false, 0o600, 0, 0},
		{"group-secret", false, 0o640, 1000, 0}, // readable through gid 0
		{"theirs", false, 0o600, 1000, 1000},    // the box cannot read it either
		{"user", true, 0o755, 1000, 1000},       // a user's directory, walked all the same
		{"user/root-key", false, 0o600, 0, 0},
		{"user/deeper", true, 0o755, 1000, 1000},
		{"user/deeper/key", false, 0o400, 0, 0},
		{"user/closed", true, 0o700, 1000, 1000}, // the box cannot enter it
		{"private", true, 0o700, 0, 0},           // masked whole
		{"private/inner", false, 0o644, 0, 0},
		{"listonly", true, 0o711, 0, 0}, // enterable by all: its files decide
		{"listonly/key", false, 0o600, 0, 0},
		{"listonly/ok", false, 0o644, 0, 0},
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.path)
		var err error
		if e.dir {
			err = os.Mkdir(p, 0o700)
		} else {
			err = os.WriteFile(p, []byte("CONTENT-"+e.path+"\n"), 0o600)
		}
		if err == nil {
			err = os.Chown(p, e.uid, e.gid)
		}
		if err == nil {
			err = os.Chmod(p, e.mode)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// A link to a secret is not masked itself: its target is.
	if err := os.Symlink("secret", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range []string{"group-secret", "listonly/key", "private", "secret", "user/deeper/key", "user/root-key"} {
		want = append(want, filepath.Join(dir, p))
	}
	slices.Sort(want)
	return dir, want
}

func TestRootOnlyWalkFindsWhatOnlyRootReads(t *testing.T) {
	dir, want := rootTree(t)
	if got := walkRootOnly([]string{dir}, 1000); !slices.Equal(got, want) {
		t.Fatalf("masked:\n%q\nwant:\n%q", got, want)
	}
}

// Past its budget the walk fails closed: whatever it did not look at is
// masked, so no root-only file is left visible.
func TestRootOnlyWalkOverBudgetMasksTheRest(t *testing.T) {
	dir, want := rootTree(t)
	for i := 0; i < 40; i++ {
		sub := filepath.Join(dir, "user", fmt.Sprintf("d%02d", i))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "key"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		want = append(want, filepath.Join(sub, "key"))
	}
	for _, budget := range []int64{0, 1, 5, 20, 60} {
		got := walkRootOnly([]string{dir}, budget)
		for _, w := range want {
			covered := false
			for _, g := range got {
				if within(w, g) {
					covered = true
				}
			}
			if !covered {
				t.Errorf("budget %d: %s is visible (masked: %q)", budget, w, got)
			}
		}
		if budget == 0 && !slices.Equal(got, []string{dir}) {
			t.Errorf("budget 0: masked %q, want the whole tree", got)
		}
	}
	if got := walkRootOnly([]string{dir}, 1000); slices.Contains(got, filepath.Join(dir, "user")) {
		t.Errorf("within budget the user's directory was masked whole: %q", got)
	}
}

func TestOutermostDropsWhatIsInsideAMask(t *testing.T) {
	got := outermost([]string{"/etc/b/c", "/etc/b", "/etc/b-x", "/etc/a", "/etc/b/c/d", "/etc/a"})
	if want := []string{"/etc/a", "/etc/b", "/etc/b-x"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// A host-root box reads in a system directory what an ordinary user could
// and nothing more, through the idmapped view and through the walk's masks
// where no view can be made.
func TestHostRootBoxReadsWhatOthersMay(t *testing.T) {
	dir, _ := rootTree(t)
	readable := map[string]bool{"pub": true, "listonly/ok": true}
	files := []string{"pub", "secret", "group-secret", "theirs", "user/root-key", "user/deeper/key", "private/inner", "listonly/key", "listonly/ok"}
	savedDirs, savedTrees := systemDirs, rootOnlyTrees
	systemDirs = append(append([]string{}, savedDirs...), dir)
	rootOnlyTrees = append(append([]string{}, savedTrees...), dir)
	defer func() { systemDirs, rootOnlyTrees = savedDirs, savedTrees }()
	for _, mode := range []string{"mapped", "view", "walk"} {
		t.Run(mode, func(t *testing.T) {
			noViews, noMapped = mode == "walk", mode != "mapped"
			defer func() { noViews, noMapped = false, false }()
			w := newWorld(t)
			s := box(t, w, nil)
			<-s.fixedDone
			if mode == "mapped" {
				if !s.mapped {
					t.Skip("no mapped box here")
				}
			} else if !s.HostRoot() {
				t.Skip("the box is not host root")
			}
			if (s.hostFS.view != nil) != (mode != "walk") {
				t.Skipf("no %s here (view %v)", mode, s.hostFS.view != nil)
			}
			for _, p := range files {
				out := output(run(t, s, "cat "+filepath.Join(dir, p)+" 2>/dev/null"))
				if got := strings.Contains(out, "CONTENT-"+p); got != readable[p] {
					t.Errorf("%s: read %v, want %v (%q)", p, got, readable[p], out)
				}
			}
			// Nor root's kernel heap, IRQ and bus settings in /proc.
			if out := output(run(t, s, `cat /proc/slabinfo /proc/vmallocinfo 2>/dev/null | head -3
for f in /proc/irq/*/smp_affinity; do [ -f "$f" ] && (cat "$f" > "$f") 2>/dev/null && echo "WROTE $f"; done`)); strings.TrimSpace(out) != "" {
				t.Errorf("the box sees root's /proc files:\n%s", out)
			}
			// The view's staging directory is not in the box.
			if s.hostFS.view != nil {
				if out := output(run(t, s, "test -e "+s.hostFS.view.dir+" && echo VISIBLE")); strings.Contains(out, "VISIBLE") {
					t.Errorf("the staging directory is in the box")
				}
			}
		})
	}
}

// No view outlives its user: Close removes a sandbox's, Prepare's release
// one no New took, and the next view removes those of dead processes.
func TestViewsAreRemoved(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("views are made for root only")
	}
	// The views' mounts are in toolgate's own namespace, none in the
	// host's.
	ns, _ := ownMountNS()
	mounted := func(dir string) bool {
		for _, n := range []*mountNS{nil, ns} {
			points, err := n.mountPoints()
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(points, func(p string) bool { return within(p, dir) }) {
				return true
			}
		}
		return false
	}
	gone := func(what, dir string) {
		t.Helper()
		if _, err := os.Lstat(dir); err == nil || mounted(dir) {
			t.Errorf("%s: %s is still there", what, dir)
		}
	}
	v, err := newSysView([]string{"/etc"}, lookBash(), "")
	if err != nil {
		t.Skipf("no view here: %v", err)
	}
	if !mounted(v.path("/etc")) {
		t.Fatalf("view not mounted at %s", v.path("/etc"))
	}
	v.close()
	gone("close", v.dir)

	// A dead process's view.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	base, err := viewBase()
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(base, fmt.Sprintf("view-%d-test", dead.Process.Pid))
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("stale", stale, "tmpfs", 0, "size=4k"); err != nil {
		t.Fatal(err)
	}
	v, err = newSysView([]string{"/etc"}, lookBash(), "")
	if err != nil {
		t.Fatal(err)
	}
	v.close()
	gone("stale", stale)

	// Prepare's, untaken.
	ws := t.TempDir()
	release := Prepare(ws)
	prefetchMu.Lock()
	p := prefetched
	prefetchMu.Unlock()
	if p == nil {
		t.Fatal("Prepare made nothing for a root-owned workspace")
	}
	release()
	if p.fs.view != nil {
		gone("release", p.fs.view.dir)
	}

	// A sandbox's, taken from Prepare.
	release = Prepare(ws)
	defer release()
	s, err := New(Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	<-s.fixedDone
	view := s.hostFS.view
	s.Close()
	if view != nil {
		gone("Close", view.dir)
	}
}

// Either way of making a view's user namespace maps root's files, and only
// them, to viewID: the view shows a root-owned directory as viewID's, and
// another user's as that user's.
func TestViewUsernsMapsRoot(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("views are made for root only")
	}
	noKeep = true
	defer func() { newUserns, noKeep = idmapUserns, false }()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "mine"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(filepath.Join(dir, "mine"), 1000, 1000); err != nil {
		t.Fatal(err)
	}
	// Where no view can be made at all (no user namespaces, no idmapped
	// mounts), there is nothing to compare; where one can, both ways must.
	probe, err := newSysView([]string{dir}, lookBash(), "")
	if err != nil {
		t.Skipf("no view here: %v", err)
	}
	probe.close()
	for name, make := range map[string]func(string) (int, error){"unshare": unshareUserns, "fork": forkUserns} {
		t.Run(name, func(t *testing.T) {
			if _, err := exec.LookPath("unshare"); err != nil && name == "unshare" {
				t.Skip("no unshare(1) here")
			}
			fd, err := make(lookBash())
			if err != nil {
				t.Fatal(err)
			}
			unix.Close(fd)
			newUserns = make
			v, err := newSysView([]string{dir}, lookBash(), "")
			if err != nil {
				t.Fatal(err)
			}
			defer v.close()
			for sub, want := range map[string]uint32{"": viewID, "mine": 1000} {
				var st syscall.Stat_t
				var err error
				v.ns.do(func() { err = syscall.Lstat(filepath.Join(v.path(dir), sub), &st) })
				if err != nil {
					t.Fatal(err)
				}
				if st.Uid != want || st.Gid != want {
					t.Errorf("%q in the view is %d:%d, want %d:%d", sub, st.Uid, st.Gid, want, want)
				}
			}
		})
	}
}

func TestMayShow(t *testing.T) {
	for m, want := range map[string]bool{
		"/proc/*/environ":         false,
		"/proc/*/mem":             false,
		"/root":                   false,
		"/var/run/docker.sock":    false,
		"/etc/shadow*":            true,
		"/etc/ssh/ssh_host_*_key": true,
		"/etc/ssl/private":        true,
		"/*/secret":               true,
		"/[eu]*/x":                true,
		"/usr/local/*/key":        true,
	} {
		if got := mayShow(m); got != want {
			t.Errorf("mayShow(%q) = %v, want %v", m, got, want)
		}
	}
}

// The policy's masks hold on the view as everywhere. What the box could
// not touch there anyway costs no mount, and a file made readable later
// stays hidden: the next box masks it again.
func TestViewKeepsTheMasks(t *testing.T) {
	for _, mode := range []string{"mapped", "view"} {
		t.Run(mode, func(t *testing.T) {
			noMapped = mode != "mapped"
			defer func() { noMapped = false }()
			viewKeepsTheMasks(t, mode == "mapped")
		})
	}
}

func viewKeepsTheMasks(t *testing.T, mapped bool) {
	dir, _ := rootTree(t)
	savedDirs := systemDirs
	systemDirs = append(append([]string{}, savedDirs...), dir)
	defer func() { systemDirs = savedDirs }()
	w := newWorld(t)
	s := box(t, w, func(c *Config) {
		c.Mask = []string{dir + "/pub", dir + "/secret", dir + "/private", dir + "/listonly/*"}
	})
	<-s.fixedDone
	if s.mapped != mapped || (!mapped && !s.HostRoot()) || s.hostFS.view == nil {
		t.Skip("the box is not host root on a view, or not mapped")
	}
	want := []string{dir + "/listonly/key", dir + "/listonly/ok", dir + "/private", dir + "/pub", dir + "/secret"}
	if !slices.Equal(s.maskedPaths, want) {
		t.Errorf("masked %q, want %q", s.maskedPaths, want)
	}
	for _, p := range []string{"pub", "listonly/ok", "secret", "private/inner"} {
		if out := output(run(t, s, "cat "+filepath.Join(dir, p)+" 2>/dev/null")); strings.Contains(out, "CONTENT") {
			t.Errorf("%s readable in the box: %q", p, out)
		}
	}
	mounted := func() map[string]bool {
		args, err := s.args(Request{Command: "true"})
		if err != nil {
			t.Fatal(err)
		}
		on := map[string]bool{}
		for i, a := range args {
			if (a == "--ro-bind" || a == "--tmpfs") && i+2 < len(args) {
				on[args[i+1]], on[args[i+2]] = true, true
			}
		}
		return on
	}
	// Masked once on the view's copy, not on each box's command line.
	onView := map[string]bool{}
	points, err := s.hostFS.view.ns.mountPoints()
	if err != nil {
		t.Fatal(err)
	}
	cp := s.hostFS.view.path(dir)
	for _, p := range points {
		if strings.HasPrefix(p, cp+"/") {
			onView[dir+strings.TrimPrefix(p, cp)] = true
		}
	}
	on := mounted()
	for p, want := range map[string]bool{"pub": true, "listonly/ok": true, "secret": false, "private": false, "listonly/key": false} {
		if on[filepath.Join(dir, p)] {
			t.Errorf("%s is masked on the command line", p)
		}
		if onView[filepath.Join(dir, p)] != want {
			t.Errorf("%s masked on the view: %v, want %v", p, !want, want)
		}
	}
	// A mask on the view leaves the host's path free: no mount makes it
	// busy in the host's namespace.
	pub := filepath.Join(dir, "pub")
	if err := os.Rename(pub, pub+".x"); err != nil {
		t.Errorf("the host cannot rename a masked file: %v", err)
	} else if err := os.Rename(pub+".x", pub); err != nil {
		t.Fatal(err)
	}
	// Replaced on the host (a new inode, which the view's mount does not
	// cover): masked again in each box.
	if err := os.WriteFile(pub+".new", []byte("CONTENT replaced\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(pub+".new", pub); err != nil {
		t.Fatal(err)
	}
	if out := output(run(t, s, "cat "+pub+" 2>/dev/null")); strings.Contains(out, "CONTENT") {
		t.Errorf("pub replaced on the host is readable in the box: %q", out)
	}
	// Made readable while toolgate runs: masked again, and unreadable.
	for _, p := range []string{"secret", "private"} {
		if err := os.Chmod(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	on = mounted()
	for _, p := range []string{"secret", "private"} {
		if !on[filepath.Join(dir, p)] {
			t.Errorf("%s made readable is not masked again", p)
		}
	}
	for _, p := range []string{"secret", "private/inner"} {
		if out := output(run(t, s, "cat "+filepath.Join(dir, p)+" 2>/dev/null")); strings.Contains(out, "CONTENT") {
			t.Errorf("%s made readable is readable in the box: %q", p, out)
		}
	}
}

// A host-root box on a view binds the view's prepared root (makeRoot)
// instead of bubblewrap's --dev and a bind per system directory: what the
// command sees is the same.
func TestViewRootAsBwrapDev(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: views are made for host-root boxes")
	}
	const probe = `ls -la /dev | awk '{print $1, $NF}' | grep -v '^total' | sort
ls -la /dev/pts | awk '{print $1, $NF}' | grep -Ev '^total|^c' | sort
readlink /bin /var/tmp
echo shm > /dev/shm/x && cat /dev/shm/x
head -c 3 /dev/urandom | wc -c
: > /dev/null && echo null
touch /x 2>/dev/null || echo root read-only
touch /etc/x 2>/dev/null || echo etc read-only
touch /usr/x 2>/dev/null || echo usr read-only
ls / | sort | tr '\n' ' '; echo
grep -c . /proc/self/mounts >/dev/null && echo proc
if command -v python3 >/dev/null; then python3 -c 'import os; m, s = os.openpty(); print(os.ttyname(s).rstrip("0123456789"))'; else echo /dev/pts/; fi`
	outputs := map[string]string{}
	for _, mode := range []string{"view", "walk"} {
		noViews = mode == "walk"
		w := newWorld(t)
		s := box(t, w, func(c *Config) { c.Sequential = true })
		<-s.fixedDone
		noViews = false
		if mode == "view" {
			if s.hostFS.view.rootDir() == "" {
				t.Skip("no view root here (the kernel cannot idmap)")
			}
			args, err := s.args(Request{Command: "true"})
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(args, "--dev") || !slices.Contains(args, "--dev-bind") {
				t.Fatalf("the view's root is not what the box binds: %q", args)
			}
		}
		res := run(t, s, probe)
		if res.ExitCode != 0 {
			t.Fatalf("%s: exit %d\n%s", mode, res.ExitCode, output(res))
		}
		outputs[mode] = output(res)
	}
	// Boxes that may run side by side keep a pty instance each (--dev).
	s := box(t, newWorld(t), nil)
	<-s.fixedDone
	if args, err := s.args(Request{Command: "true"}); err != nil || !slices.Contains(args, "--dev") {
		t.Errorf("a sandbox that is not Sequential binds the shared root: %q %v", args, err)
	}
	if outputs["view"] != outputs["walk"] {
		t.Errorf("the box on the view's root sees:\n%s\nthe box with --dev sees:\n%s", outputs["view"], outputs["walk"])
	}
	for _, want := range []string{"shm\n", "3\n", "null\n", "root read-only\n", "etc read-only\n", "usr read-only\n", "proc\n", "/dev/pts/\n"} {
		if !strings.Contains(outputs["view"], want) {
			t.Errorf("the box on the view's root lacks %q:\n%s", want, outputs["view"])
		}
	}
}

// A run's sandbox seals the view's root: its mount points are made first
// (a workspace and a home outside /tmp here), then no box remounts it. A
// box with the network, which needs a mount point the root has not, binds
// each directory instead.
func TestSealedRoot(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: views are made for host-root boxes")
	}
	top, err := os.MkdirTemp("/", "toolgate-test-")
	if err != nil {
		t.Skip("cannot make a directory outside /tmp:", err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	ws, home := filepath.Join(top, "ws"), filepath.Join(top, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(Config{Workspace: ws, Home: home, Timeout: 20 * time.Second, Sequential: true, Mask: []string{"/etc/shadow*", "/etc/gshadow*"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	<-s.fixedDone
	if s.hostFS.view.rootDir() == "" {
		t.Skip("no view root here (the kernel cannot idmap)")
	}
	if !s.sealed {
		t.Fatal("the root was not sealed")
	}
	// Both command lines come from one reading of the secrets.
	seen := map[string]bool{}
	for _, k := range s.keptOut {
		if seen[k.path] {
			t.Errorf("%s is listed twice among the paths left unmasked", k.path)
		}
		seen[k.path] = true
	}
	remounts := func(req Request) bool {
		args, err := s.args(req)
		if err != nil {
			t.Fatal(err)
		}
		for i := range args {
			if args[i] == "--remount-ro" && i+1 < len(args) && args[i+1] == "/" {
				return true
			}
		}
		return false
	}
	if remounts(Request{Command: "true"}) {
		t.Error("a box on the sealed root remounts it")
	}
	if !remounts(Request{Command: "true", Network: true}) {
		t.Error("a box with the network does not remount its own root")
	}
	for _, req := range []Request{{Command: "touch made && touch / 2>/dev/null; touch /x 2>/dev/null || echo root read-only; echo > ~/h && echo home"}, {Command: "touch made2; touch /x 2>/dev/null || echo root read-only", Network: true}} {
		res, err := s.Run(context.Background(), req)
		if err != nil || res.ExitCode != 0 || !strings.Contains(output(res), "root read-only") {
			t.Fatalf("%+v: %v %+v %s", req, err, res, output(res))
		}
	}
	for _, f := range []string{"made", "made2"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("the box did not write the workspace: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "h")); err == nil {
		t.Error("the box wrote the host's home")
	}
}

// A view's user namespace is kept for the next toolgate on a file of the
// view base; one that is not sound (another mapping, a file without its
// mount) is replaced.
func TestViewUsernsIsKept(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("views are made for root only")
	}
	base := t.TempDir()
	kept := filepath.Join(base, keptName)
	defer func() {
		_ = syscall.Unmount(kept, syscall.MNT_DETACH)
		newUserns = idmapUserns
	}()
	made := 0
	newUserns = func(h string) (int, error) { made++; return idmapUserns(h) }
	ino := func(fd int) uint64 {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ino
	}
	get := func(wantMade int) int {
		t.Helper()
		fd, err := viewUserns(base, lookBash())
		if err != nil {
			t.Fatal(err)
		}
		if made != wantMade {
			t.Errorf("%d namespaces made, want %d", made, wantMade)
		}
		if err := checkUserns(fd, base); err != nil {
			t.Error(err)
		}
		k, err := openKept(kept)
		if err != nil {
			t.Fatalf("nothing kept: %v", err)
		}
		defer unix.Close(k)
		if ino(k) != ino(fd) {
			t.Error("the namespace returned is not the one kept")
		}
		return fd
	}
	if fd, err := idmapUserns(lookBash()); err != nil {
		t.Skipf("no user namespaces here: %v", err)
	} else {
		unix.Close(fd)
	}
	unix.Close(get(1))
	unix.Close(get(1)) // the kept one, no process started

	// Another mapping kept there is replaced.
	if err := syscall.Unmount(kept, 0); err != nil {
		t.Fatal(err)
	}
	saved := idMap
	idMap = "0 12345 1\n"
	wrong, err := unshareUserns(lookBash())
	idMap = saved
	if err != nil {
		t.Skipf("no unshare(1) here: %v", err)
	}
	if err := checkUserns(wrong, base); err == nil {
		t.Fatal("checkUserns takes a namespace mapping root to 12345")
	}
	if err := syscall.Mount("/proc/self/fd/"+strconv.Itoa(wrong), kept, "", syscall.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	unix.Close(wrong)
	unix.Close(get(2))

	// A file whose mount is gone is left alone while it may be another
	// toolgate's on its way to keeping one, and taken over after that.
	if err := syscall.Unmount(kept, 0); err != nil {
		t.Fatal(err)
	}
	if fd, err := viewUserns(base, lookBash()); err != nil {
		t.Fatal(err)
	} else {
		unix.Close(fd)
	}
	if fd, err := openKept(kept); err == nil {
		unix.Close(fd)
		t.Fatal("a young file was taken over")
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(kept, old, old); err != nil {
		t.Fatal(err)
	}
	unix.Close(get(4))
}

// A root-owned workspace on a file system that cannot be idmapped (ramfs)
// keeps the box host root, hardened as before: the view idmaps the system
// directories instead, /proc/sys is read-only, root's keys are masked, and
// the box still writes the workspace.
func TestUnmappableWorkspaceKeepsTheHostRootBox(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("views are made for root only")
	}
	ws := t.TempDir()
	if err := unix.Mount("toolgate-test", ws, "ramfs", 0, "mode=0755"); err != nil {
		t.Skipf("cannot mount a ramfs here: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(ws, unix.MNT_DETACH) })
	// A mount made after toolgate's own namespace does not reach it where
	// the host's mounts do not propagate (mountns.go): attach the same
	// ramfs there too, as a shared / would.
	if ns, err := ownMountNS(); err == nil {
		fd, err := unix.OpenTree(unix.AT_FDCWD, ws, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		var merr error
		ns.do(func() { merr = unix.MoveMount(fd, "", unix.AT_FDCWD, ws, unix.MOVE_MOUNT_F_EMPTY_PATH) })
		if merr != nil {
			t.Fatal(merr)
		}
		t.Cleanup(func() { ns.do(func() { _ = unix.Unmount(ws, unix.MNT_DETACH) }) })
	}
	w := world{ws: ws, home: t.TempDir(), outside: t.TempDir()}
	s := box(t, w, nil)
	<-s.fixedDone
	if s.hostFS.view == nil {
		t.Skip("no view here")
	}
	if s.mapped || !s.HostRoot() {
		t.Fatalf("mapped %v, host root %v: want the host-root box", s.mapped, s.HostRoot())
	}
	res := run(t, s, `touch made && echo MADE; echo x > /proc/sys/kernel/core_pattern 2>/dev/null || echo NOSYSCTL; cat /proc/keys; echo END`)
	out := output(res)
	for _, want := range []string{"MADE", "NOSYSCTL", "END"} {
		if !strings.Contains(out, want) {
			t.Errorf("box output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "keyring") {
		t.Errorf("the host-root box lists root's keys:\n%s", out)
	}
}
