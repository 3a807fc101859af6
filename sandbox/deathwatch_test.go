package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func rootCgroups(t *testing.T) *cgroupRoot {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root: the test makes cgroups")
	}
	r, first, err := findCgroups(nil, Limits{Procs: 64, MemoryBytes: 64 << 20})
	if err != nil {
		t.Skip("no cgroups for boxes here:", err)
	}
	if err := first.remove(); err != nil {
		t.Fatal(err)
	}
	return r
}

// sleeper starts a process that would outlive the test, in a process group
// of its own, and reaps it in the background; dead is closed once it ended.
func sleeper(t *testing.T) (pid int, dead chan struct{}) {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	dead = make(chan struct{})
	go func() { cmd.Wait(); close(dead) }()
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd.Process.Pid, dead
}

func ended(dead chan struct{}, within time.Duration) bool {
	select {
	case <-dead:
		return true
	case <-time.After(within):
		return false
	}
}

// When its input ends with entries still listed (toolgate died), the
// watcher kills the listed process groups and what is in the listed
// cgroups, and removes those; what was taken off the list is left alone.
func TestDeathWatch(t *testing.T) {
	r := rootCgroups(t)
	sh := systemShell()
	if sh == "" {
		t.Skip("no /bin/sh")
	}
	cg, err := r.create(Limits{Procs: 64, MemoryBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	inCgroup, deadCgroup := sleeper(t)
	if err := cg.join(inCgroup); err != nil {
		t.Fatal(err)
	}
	inGroup, deadGroup := sleeper(t)
	dropped, deadDropped := sleeper(t)

	d := startedWatch(t, sh)
	d.add(cgroupDirs(cg.dirs)...)
	d.add(group(inGroup), group(dropped))
	d.drop(group(dropped))
	d.close() // its input ends with entries listed, as when toolgate dies

	if !ended(deadCgroup, 5*time.Second) {
		t.Error("a process in a listed cgroup outlived the watcher's end")
	}
	if !ended(deadGroup, 5*time.Second) {
		t.Error("a process of a listed group outlived the watcher's end")
	}
	if ended(deadDropped, 300*time.Millisecond) {
		t.Error("a group taken off the list was killed")
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		left := 0
		for _, dir := range cg.dirs {
			if _, err := os.Stat(dir); err == nil {
				left++
			}
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watcher left the listed cgroups %q", cg.dirs)
		}
	}
}

// The start-up sweep kills what is left in a cgroup of a toolgate that is
// gone, then removes the cgroup.
func TestSweepKillsWhatADeadToolgateLeft(t *testing.T) {
	r := rootCgroups(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	pid := gone.Process.Pid // reaped: no process has it (for a while)
	if syscall.Kill(pid, 0) != syscall.ESRCH {
		t.Skip("the pid was taken again at once")
	}
	dir := filepath.Join(r.pids, "toolgate-"+strconv.Itoa(pid)+"-1")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(dir) })
	left, dead := sleeper(t)
	if err := writeFile(dir, "cgroup.procs", strconv.Itoa(left)); err != nil {
		t.Fatal(err)
	}
	r.sweep()
	if !ended(dead, 5*time.Second) {
		t.Error("the sweep left a process of a dead toolgate's box running")
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("the sweep left the dead toolgate's cgroup")
	}
}

// A watcher that stops reading does not stall toolgate: lines it does not
// take are left out.
func TestDeathWatchThatStopsReading(t *testing.T) {
	sh := systemShell()
	if sh == "" {
		t.Skip("no /bin/sh")
	}
	d := startedWatch(t, sh)
	_ = d.cmd.Process.Signal(syscall.SIGSTOP)
	defer d.cmd.Process.Kill()
	done := make(chan struct{})
	go func() {
		for i := 0; i < 50000; i++ { // far past a pipe's buffer
			d.add(group(1_000_000 + i))
		}
		close(done)
	}()
	if !ended(done, 5*time.Second) {
		t.Fatal("telling a stopped watcher blocked")
	}
	d.close()
}

// startedWatch starts a watcher and waits until it reads its input.
func startedWatch(t *testing.T, sh string) *deathWatch {
	t.Helper()
	d := &deathWatch{}
	d.start(sh)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		d.mu.Lock()
		up := d.started
		d.mu.Unlock()
		if up {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatal("the watcher did not start")
		}
	}
}

// A cgroup file kept open (cgroupFiles) reads what the file holds now.
func TestCgroupFilesReadAfresh(t *testing.T) {
	r := rootCgroups(t)
	cg, err := r.create(Limits{Procs: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer cg.remove()
	p := filepath.Join(cg.dirs[0], "pids.max")
	for _, want := range []string{"8", "12", "max"} {
		if want != "8" {
			if err := writeFile(cg.dirs[0], "pids.max", want); err != nil {
				t.Fatal(err)
			}
		}
		b, err := cg.files.read(p)
		if err != nil || strings.TrimSpace(string(b)) != want {
			t.Errorf("read %q, %v; want %q", b, err, want)
		}
	}
	if _, err := cg.files.read(filepath.Join(cg.dirs[0], "no.such.file")); err == nil {
		t.Error("a missing file read without error")
	}
}
