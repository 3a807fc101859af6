package sandbox

import (
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// A mapped box's processes are viewID on the host. Setting another user's
// rlimits (prlimit) takes CAP_SYS_RESOURCE, which root confined by a
// container often lacks, or the same real, effective and saved ids as the
// target. Credentials belong to a thread, so one OS thread, locked to its
// goroutine for good, takes viewID's ids (raw system calls: Go's own would
// change every thread) and sets the rlimits of mapped boxes; it can only
// lower them, as toolgate itself could.

// idThread is that thread.
type idThread struct {
	calls chan func()
	dead  chan struct{}
}

var (
	limiterOnce sync.Once
	limiter     *idThread
	limiterErr  error
)

// viewIDThread returns the thread with viewID's ids, started on first use.
func viewIDThread() (*idThread, error) {
	limiterOnce.Do(func() {
		t := &idThread{calls: make(chan func()), dead: make(chan struct{})}
		ready := make(chan error, 1)
		go t.loop(ready, nil)
		if limiterErr = <-ready; limiterErr == nil {
			limiter = t
		}
	})
	return limiter, limiterErr
}

func (t *idThread) loop(ready chan<- error, held chan struct{}) {
	// Never unlocked: the thread ends with this goroutine.
	runtime.LockOSThread()
	if held != nil {
		close(held)
	}
	if unix.Gettid() == unix.Getpid() {
		// Not the main thread, whose ids /proc/self shows for the
		// process: another one, started while this one is held, so it
		// cannot be this.
		h := make(chan struct{})
		go t.loop(ready, h)
		<-h
		runtime.UnlockOSThread()
		return
	}
	defer close(t.dead)
	id := uintptr(viewID)
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETGROUPS, 0, 0, 0); e != 0 {
		ready <- e
		return
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESGID, id, id, id); e != 0 {
		ready <- e
		return
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, id, id, id); e != 0 {
		ready <- e
		return
	}
	ready <- nil
	for f := range t.calls {
		f()
	}
}

// do runs f on the thread; false when the thread is gone.
func (t *idThread) do(f func()) bool {
	done := make(chan struct{})
	select {
	case t.calls <- func() { defer close(done); f() }:
	case <-t.dead:
		return false
	}
	<-done
	return true
}
