package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
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
	werr := cmd.Wait()
	o := outcome{wall: time.Since(t0)}
	if werr != nil {
		if _, ok := werr.(*exec.ExitError); !ok {
			return o, werr
		}
	}
	st := cmd.ProcessState
	o.exit = st.ExitCode()
	o.cpu = st.UserTime() + st.SystemTime()
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		o.maxRSS = ru.Maxrss
	}
	return o, nil
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
