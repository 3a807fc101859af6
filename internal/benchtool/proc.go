package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// proc describes one child process to time. Standard streams are files, so
// no goroutine of ours copies them while the clock runs.
type proc struct {
	path  string
	args  []string
	dir   string
	env   []string // nil: this process's environment
	stdin string   // a file fed on stdin; "" means /dev/null
	// stdout and stderr are files the streams go to; "" discards.
	stdout, stderr string
	extra          []*os.File // fds 3, 4, …
}

// outcome is how a timed child went.
type outcome struct {
	wall   time.Duration // from just before start to just after wait
	exit   int
	maxRSS int64 // KiB
	cpu    time.Duration
}

// run starts p, waits for it and times it. Files are opened before the
// clock starts. A child that cannot start is an error; a non-zero exit is
// reported in the outcome.
func (p proc) run() (outcome, error) {
	cmd := exec.Command(p.path, p.args...)
	cmd.Dir, cmd.Env, cmd.ExtraFiles = p.dir, p.env, p.extra
	var closers []*os.File
	defer func() {
		for _, f := range closers {
			f.Close()
		}
	}()
	if p.stdin != "" {
		f, err := os.Open(p.stdin)
		if err != nil {
			return outcome{}, err
		}
		closers = append(closers, f)
		cmd.Stdin = f
	}
	open := func(path string) (*os.File, error) {
		if path == "" {
			return nil, nil
		}
		f, err := os.Create(path)
		if err == nil {
			closers = append(closers, f)
		}
		return f, err
	}
	out, err := open(p.stdout)
	if err != nil {
		return outcome{}, err
	}
	errf, err := open(p.stderr)
	if err != nil {
		return outcome{}, err
	}
	if out != nil {
		cmd.Stdout = out
	}
	if errf != nil {
		cmd.Stderr = errf
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return outcome{}, err
	}
	hwm := watchHWM(cmd.Process.Pid, p.path)
	werr := cmd.Wait()
	o := outcome{wall: time.Since(t0)}
	peak := hwm()
	if werr != nil {
		if _, ok := werr.(*exec.ExitError); !ok {
			return o, werr
		}
	}
	st := cmd.ProcessState
	o.exit = st.ExitCode()
	o.cpu = st.UserTime() + st.SystemTime()
	o.maxRSS = peak
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok && (peak == 0 || ru.Maxrss < peak) {
		o.maxRSS = ru.Maxrss
	}
	return o, nil
}

// watchHWM samples the child's peak resident set (VmHWM, KiB) once its
// program runs, until the returned function is called (after Wait); it
// returns the last value read, 0 when none was. ru_maxrss cannot say it:
// the child is forked from this process (vfork), and the maximum carries
// this process's own resident set, which after the decision rows is far
// larger than a starting toolgate's, across the exec. VmHWM is the peak
// of the memory the program got at exec; until the child's name is the
// program's, it is still this process's memory and is skipped.
func watchHWM(pid int, prog string) func() int64 {
	name := filepath.Base(prog)
	if len(name) > 15 {
		name = name[:15] // the kernel's comm
	}
	status := fmt.Sprintf("/proc/%d/status", pid)
	var last atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if b, err := os.ReadFile(status); err == nil {
				if v, ok := statusHWM(b, name); ok {
					last.Store(v)
				}
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(stop)
		<-done
		return last.Load()
	}
}

// statusHWM reads VmHWM from a /proc/PID/status when its Name is name.
func statusHWM(b []byte, name string) (int64, bool) {
	var hwm int64 = -1
	named := false
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Name:"); ok {
			named = strings.TrimSpace(v) == name
		}
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Sscanf(strings.TrimSpace(v), "%d", &hwm)
		}
	}
	return hwm, named && hwm > 0
}

// mustSucceed turns a non-zero exit into an error that quotes the child's
// stderr (when it went to a file).
func (p proc) mustSucceed(o outcome, err error) (outcome, error) {
	if err != nil {
		return o, fmt.Errorf("%s %s: %w", p.path, strings.Join(p.args, " "), err)
	}
	if o.exit != 0 {
		msg := ""
		if p.stderr != "" {
			b, _ := os.ReadFile(p.stderr)
			msg = ": " + strings.TrimSpace(lastBytes(b, 600))
		}
		return o, fmt.Errorf("%s %s: exit code %d%s", p.path, strings.Join(p.args, " "), o.exit, msg)
	}
	return o, nil
}

func lastBytes(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// countLines counts the newline-terminated lines of a file.
func countLines(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return bytes.Count(b, []byte{'\n'}), nil
}
