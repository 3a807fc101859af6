package sandbox

import (
	"sync"
	"syscall"
)

// A mapped box's processes are viewID on the host. Setting another user's
// rlimits (prlimit) takes CAP_SYS_RESOURCE, which root confined by a
// container often lacks, or the same real, effective and saved ids as the
// target. Credentials belong to a thread, so one OS thread, locked to its
// goroutine for good, takes viewID's ids (raw system calls: Go's own would
// change every thread) and sets the rlimits of mapped boxes; it can only
// lower them, as toolgate itself could.

var (
	limiterOnce sync.Once
	limiter     *thread
	limiterErr  error
)

// viewIDThread returns the thread with viewID's ids, started on first use.
func viewIDThread() (*thread, error) {
	limiterOnce.Do(func() {
		limiter, limiterErr = startThread(func() error {
			id := uintptr(viewID)
			if _, _, e := syscall.RawSyscall(syscall.SYS_SETGROUPS, 0, 0, 0); e != 0 {
				return e
			}
			if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESGID, id, id, id); e != 0 {
				return e
			}
			if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, id, id, id); e != 0 {
				return e
			}
			return nil
		})
	})
	return limiter, limiterErr
}
