package sandbox

import (
	"errors"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// The mounts toolgate makes for its boxes (a view's copies and root, the
// masks on them, the staged workspace of stage.go) are made in a mount
// namespace of toolgate's own, never in the host's: a mount on a path
// makes that path busy for every process of the namespace it is in, so
// the host's `git config` (which renames a new config over .git/config)
// or an rmdir of a masked directory would fail with EBUSY while toolgate
// runs, and a toolgate killed would leave its mounts behind.
//
// A thread may have a mount namespace of its own (unsharing it unshares
// only the thread's file system context), so one OS thread, locked to its
// goroutine for good, unshares one at start, makes every such mount, and
// starts every bwrap that binds them (a child is born in its parent
// thread's namespaces). The namespace receives the host's mount events
// and sends none (slave). It ends with the process.
//
// Everything that touches a path below a view's staging directory runs on
// that thread (mountNS.do); other threads see the directory empty.
//
// Not covered: a file system the host mounts after the namespace was made
// reaches it only where the host's mount is shared (systemd makes / so);
// on a host whose mounts are private, a workspace on such a mount is not
// found by bwrap (the box fails to start, with bwrap's reason) until
// toolgate starts again.

// mountNS is the thread.
type mountNS struct {
	*thread
	tid int
}

// thread is an OS thread of toolgate's locked to one goroutine for good,
// which runs the calls do hands it: a thread whose state (mount namespace,
// credentials) is its own. New threads of the process are cloned from Go's
// template thread, never from it.
type thread struct {
	calls chan func()
	dead  chan struct{} // closed once the thread is gone
}

// startThread starts a thread, never the main one (whose state /proc/self
// shows for the whole process), and runs setup on it first; setup's error
// ends the thread.
func startThread(setup func() error) (*thread, error) {
	t := &thread{calls: make(chan func()), dead: make(chan struct{})}
	ready := make(chan error, 1)
	go t.loop(setup, ready, nil)
	if err := <-ready; err != nil {
		return nil, err
	}
	return t, nil
}

func (t *thread) loop(setup func() error, ready chan<- error, held chan struct{}) {
	// Never unlocked: the thread must not run other goroutines, and it
	// ends when this goroutine does (also by runtime.Goexit in a call
	// that leaves the thread unfit, see bornIn).
	runtime.LockOSThread()
	if held != nil {
		close(held)
	}
	if unix.Gettid() == unix.Getpid() {
		// The main thread: another one, started while this one is held,
		// so it cannot be this.
		h := make(chan struct{})
		go t.loop(setup, ready, h)
		<-h
		runtime.UnlockOSThread()
		return
	}
	defer close(t.dead)
	if err := setup(); err != nil {
		ready <- err
		return
	}
	ready <- nil
	for f := range t.calls {
		f()
	}
}

// do runs f on the thread and waits for it; false when the thread is gone
// and f did not run.
func (t *thread) do(f func()) bool {
	done := make(chan struct{})
	select {
	case t.calls <- func() {
		defer close(done)
		f()
	}:
	case <-t.dead:
		return false
	}
	<-done
	return true
}

var (
	privateOnce sync.Once
	privateNS   *mountNS
	privateErr  error
)

// errGone is a call the namespace's thread could not run: it ended.
var errGone = errors.New("toolgate's mount namespace is gone")

// noPrivateNS makes no namespace, so tests can exercise the host's.
var noPrivateNS atomic.Bool

// ownMountNS returns the thread with toolgate's mount namespace, started
// on first use, or an error where none can be made (then views are made
// in the host's namespace as before, without masks or staging).
func ownMountNS() (*mountNS, error) {
	if noPrivateNS.Load() {
		return nil, errors.New("private mount namespace off")
	}
	privateOnce.Do(func() {
		ns := &mountNS{}
		ns.thread, privateErr = startThread(func() error {
			if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
				return err
			}
			if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
				return err
			}
			ns.tid = unix.Gettid()
			trimMounts()
			return nil
		})
		if privateErr == nil {
			privateNS = ns
		}
	})
	return privateNS, privateErr
}

// do runs f on the thread and waits for it; false when the thread is gone
// and f did not run. With a nil namespace f runs on the caller's thread.
func (ns *mountNS) do(f func()) bool {
	if ns == nil {
		f()
		return true
	}
	return ns.thread.do(f)
}

// trimMounts drops from the namespace the host's mounts no box needs:
// bubblewrap copies the whole table into each box's namespace and reads it
// after each bind it makes. No box shows /sys (a dozen cgroup hierarchies
// and the like; the cgroup files a start writes are opened elsewhere,
// see cgroupFiles), nor the host's mounts below /proc, nor its pty and
// message-queue instances (a box has its own /dev and /proc; /dev and
// /proc themselves stay, for /dev/null and for what bubblewrap reads),
// nor what is mounted in /run/toolgate. The rest of /dev stays: a
// workspace may lie in /dev/shm.
func trimMounts() {
	points, err := mountPointsOf("/proc/thread-self/mountinfo")
	if err != nil {
		return
	}
	var drop []string
	for _, p := range points {
		if within(p, "/sys") || within(p, "/dev/pts") || within(p, "/dev/mqueue") || (within(p, "/proc") && p != "/proc") || within(p, "/run/toolgate") {
			drop = append(drop, p)
		}
	}
	// Only the outermost of each subtree: a lazy unmount takes what is
	// mounted below along, and each unmount waits for an RCU grace period
	// (/sys alone holds a dozen mounts here). A mount point mounted over
	// twice (/dev/pts) is unmounted once per mount.
	sort.SliceStable(drop, func(i, j int) bool { return depth(drop[i]) < depth(drop[j]) })
	var outer []string
	for _, p := range drop {
		if !slices.ContainsFunc(outer, func(o string) bool { return o != p && within(p, o) }) {
			outer = append(outer, p)
		}
	}
	for _, p := range outer {
		_ = unix.Unmount(p, unix.MNT_DETACH)
	}
}

// unescapeMountPath undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountPath(p string) string {
	if !strings.Contains(p, "\\") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+3 < len(p) {
			if n, err := strconv.ParseUint(p[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// mountPoints lists the mount points of the namespace's mount table (the
// caller's thread's for nil), in its order, a point mounted over twice
// twice.
func (ns *mountNS) mountPoints() ([]string, error) {
	if ns == nil {
		// the caller's thread: never the namespace's
		return mountPointsOf("/proc/thread-self/mountinfo")
	}
	return mountPointsOf("/proc/self/task/" + strconv.Itoa(ns.tid) + "/mountinfo")
}

// mountPointsOf reads the mount points of a mountinfo file (the fifth
// field of each line, octal escapes undone).
func mountPointsOf(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 {
			out = append(out, unescapeMountPath(f[4]))
		}
	}
	return out, nil
}
