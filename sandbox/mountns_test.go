package sandbox

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// mountPoints lists the mount points of a mount table.
func mountPoints(t *testing.T, ns *mountNS) []string {
	t.Helper()
	points, err := ns.mountPoints()
	if err != nil {
		t.Fatal(err)
	}
	return points
}

// A mount made on the namespace's thread is not the host's, and the
// namespace carries no /sys for bubblewrap to copy into every box.
func TestOwnMountNamespace(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: mounts")
	}
	ns, err := ownMountNS()
	if err != nil {
		t.Skipf("no mount namespace of toolgate's own here: %v", err)
	}
	dir := t.TempDir()
	var merr error
	ns.do(func() { merr = unix.Mount("toolgate-test", dir, "tmpfs", 0, "size=4k") })
	if merr != nil {
		t.Fatal(merr)
	}
	defer ns.do(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	has := func(points []string, p string) bool {
		for _, q := range points {
			if q == p {
				return true
			}
		}
		return false
	}
	own, host := mountPoints(t, ns), mountPoints(t, nil)
	if !has(own, dir) {
		t.Errorf("the mount is not in toolgate's namespace: %q", own)
	}
	if has(host, dir) {
		t.Error("the mount is in the host's namespace")
	}
	// The host may rename what is mounted over there: the mount makes the
	// path busy in its own namespace only.
	if err := os.Rename(dir, dir+".moved"); err != nil {
		t.Errorf("the host cannot rename a directory mounted over in toolgate's namespace: %v", err)
	} else if err := os.Rename(dir+".moved", dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range own {
		if within(p, "/sys") || within(p, "/dev/pts") || within(p, "/proc") && p != "/proc" {
			t.Errorf("%s is in toolgate's namespace", p)
		}
	}
	for _, p := range []string{"/", "/dev", "/proc"} {
		if !has(own, p) {
			t.Errorf("%s is not in toolgate's namespace", p)
		}
	}
	if got := unescapeMountPath(`/a\040b\011c\134d`); got != "/a b\tc\\d" {
		t.Errorf("unescaped %q", got)
	}
	if !has(host, "/sys") {
		t.Log("the host has no /sys mount")
	}
}

// The namespace's thread is never the main thread, whose namespaces
// /proc/self shows for the whole process.
func TestOwnMountNamespaceIsNotTheMainThread(t *testing.T) {
	ns, err := ownMountNS()
	if err != nil {
		t.Skipf("no mount namespace of toolgate's own here: %v", err)
	}
	if ns.tid == os.Getpid() {
		t.Error("the namespace's thread is the main thread")
	}
	self, err1 := os.Readlink("/proc/self/ns/mnt")
	thread, err2 := os.Readlink("/proc/" + strconv.Itoa(os.Getpid()) + "/task/" + strconv.Itoa(ns.tid) + "/ns/mnt")
	if err1 != nil || err2 != nil || self == thread {
		t.Errorf("/proc/self shows the namespace's own mount namespace: %s %s %v %v", self, thread, err1, err2)
	}
}

// Where toolgate has no mount namespace of its own, a view is made in the
// host's as before, and nothing that would make host paths busy is
// mounted: no masks on it, no staged workspace.
func TestViewWithoutOwnMountNamespace(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("views are made for root only")
	}
	noPrivateNS.Store(true)
	defer noPrivateNS.Store(false)
	w := newWorld(t)
	s := box(t, w, func(c *Config) {
		c.Sequential = true
		c.Mask = []string{"/etc/hostname"}
	})
	<-s.fixedDone
	v := s.hostFS.view
	if v == nil {
		t.Skip("no view here")
	}
	if v.ns != nil {
		t.Fatal("the view is in a namespace of toolgate's own")
	}
	if len(s.onView) != 0 {
		t.Errorf("masked on a view in the host's namespace: %v", s.onView)
	}
	args, err := s.args(Request{Command: "true"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(args, "/etc/hostname") {
		t.Errorf("the mask is not on the command line: %q", args)
	}
	for i := 0; i+2 < len(args); i++ {
		if args[i] == "--bind" && args[i+2] == w.ws && args[i+1] != w.ws {
			t.Errorf("the workspace is bound from %s", args[i+1])
		}
	}
	if out := output(run(t, s, "cat /etc/hostname 2>&1; echo done")); !strings.Contains(out, "done") || strings.Contains(out, hostname(t)) {
		t.Errorf("the box: %q", out)
	}
}

func hostname(t *testing.T) string {
	b, err := os.ReadFile("/etc/hostname")
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		return "\x00none"
	}
	return strings.TrimSpace(string(b))
}

// A workspace on one of the host's mounts below /dev (/dev/shm) is still
// there for the boxes: toolgate's namespace keeps those mounts.
func TestWorkspaceInDevShm(t *testing.T) {
	ws, err := os.MkdirTemp("/dev/shm", "toolgate-test-")
	if err != nil {
		t.Skip("no /dev/shm here:", err)
	}
	defer os.RemoveAll(ws)
	box(t, newWorld(t), nil) // skips where there is no sandbox at all
	for _, seq := range []bool{false, true} {
		s, err := New(Config{Workspace: ws, Home: t.TempDir(), Timeout: 20 * time.Second, Sequential: seq})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background(), Request{Command: "echo x > made && cat made"})
		s.Close()
		if err != nil || res.ExitCode != 0 || !strings.Contains(output(res), "x") {
			t.Errorf("sequential %v: %v %+v %s", seq, err, res, output(res))
		}
	}
}
