package sandbox

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"sync"

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
// that thread (privateNS.do); other threads see the directory empty.

// mountNS is the thread.
type mountNS struct {
	calls chan func()
	dead  chan struct{} // closed once the thread is gone
	tid   int
}

var (
	privateOnce sync.Once
	privateNS   *mountNS
	privateErr  error
)

// errGone is a call the namespace's thread could not run: it ended.
var errGone = errors.New("toolgate's mount namespace is gone")

// noPrivateNS makes no namespace, so tests can exercise the host's.
var noPrivateNS bool

// ownMountNS returns the thread with toolgate's mount namespace, started
// on first use, or an error where none can be made (then views are made
// in the host's namespace as before, without masks or staging).
func ownMountNS() (*mountNS, error) {
	if noPrivateNS {
		return nil, errors.New("private mount namespace off")
	}
	privateOnce.Do(func() {
		ns := &mountNS{calls: make(chan func()), dead: make(chan struct{})}
		ready := make(chan error, 1)
		go ns.loop(ready, nil)
		if err := <-ready; err != nil {
			privateErr = err
			return
		}
		privateNS = ns
	})
	return privateNS, privateErr
}

func (ns *mountNS) loop(ready chan<- error, held chan struct{}) {
	// Never unlocked: the thread must not run other goroutines, and it
	// ends when this goroutine does (also by runtime.Goexit in a call
	// that leaves the thread unfit, see bornIn).
	runtime.LockOSThread()
	if held != nil {
		close(held)
	}
	if unix.Gettid() == unix.Getpid() {
		// The main thread, which /proc/self names for the whole process
		// (the analysis resolves /proc/self/root and cwd): another one,
		// started while this one is held, so it cannot be this.
		h := make(chan struct{})
		go ns.loop(ready, h)
		<-h
		runtime.UnlockOSThread()
		return
	}
	defer close(ns.dead)
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		ready <- err
		return
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		ready <- err
		return
	}
	// No box shows /sys, and bubblewrap copies the whole table into each
	// box's namespace and reads it after each bind it makes: the sysfs
	// subtree (a dozen cgroup hierarchies and the like) goes. The cgroup
	// files a start writes are opened elsewhere (cgroupFiles).
	_ = unix.Unmount("/sys", unix.MNT_DETACH)
	ns.tid = unix.Gettid()
	ready <- nil
	for f := range ns.calls {
		f()
	}
}

// do runs f on the thread and waits for it; false when the thread is gone
// and f did not run. With a nil namespace f runs on the caller's thread.
func (ns *mountNS) do(f func()) bool {
	if ns == nil {
		f()
		return true
	}
	done := make(chan struct{})
	select {
	case ns.calls <- func() {
		defer close(done)
		f()
	}:
	case <-ns.dead:
		return false
	}
	<-done
	return true
}

// mountinfo is the namespace's mount table (the host's for nil).
func (ns *mountNS) mountinfo() ([]byte, error) {
	if ns == nil {
		// the caller's thread: never the namespace's
		return os.ReadFile("/proc/thread-self/mountinfo")
	}
	return os.ReadFile("/proc/self/task/" + strconv.Itoa(ns.tid) + "/mountinfo")
}
