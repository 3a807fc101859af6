package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroupRoot is where toolgate may make one cgroup per box: the cgroups the
// toolgate process itself sits in, for the pids and memory controllers. On a
// cgroup v1 (or hybrid) host these are two directories; on a v2 host one.
type cgroupRoot struct {
	v2     bool
	pids   string // directory holding pids.max
	memory string // directory holding the memory limit ("" = no memory controller)
	// watch hears of every cgroup made (deathwatch.go); nil in tests that
	// make a root of their own.
	watch *deathWatch
}

// boxCgroup is the cgroup (one directory per controller) of one box.
type boxCgroup struct {
	v2    bool
	dirs  []string
	base  eventCounts // the counts when the current box took it
	watch *deathWatch // told when the cgroup is gone
	files cgroupFiles
}

// cgroupFiles are the cgroup files each box of a cgroup reads or writes
// (its event counts, the tasks files a thread moves through), opened once
// for all the boxes the cgroup is kept for: opening a file of the cgroup
// file system costs more than reading it, and a box opened a dozen. Such a
// file is read again from offset 0. Not cgroup.procs: on v1 an open
// cgroup.procs keeps the process list it first read for a while, so it
// is opened afresh each time. nil marks a file that is not there.
type cgroupFiles struct {
	mu    sync.Mutex
	open  map[string]*os.File
	flags map[string]int
}

// get returns the open file at path (opened with flag), or nil.
func (c *cgroupFiles) get(path string, flag int) *os.File {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.open[path]; ok && c.flags[path] == flag {
		return f
	}
	f, err := os.OpenFile(path, flag|syscall.O_CLOEXEC, 0)
	if err != nil {
		f = nil
	}
	if c.open == nil {
		c.open, c.flags = map[string]*os.File{}, map[string]int{}
	}
	if old := c.open[path]; old != nil {
		old.Close()
	}
	c.open[path], c.flags[path] = f, flag
	return f
}

// read reads the file at path from its start.
func (c *cgroupFiles) read(path string) ([]byte, error) {
	f := c.get(path, os.O_RDONLY)
	if f == nil {
		return nil, os.ErrNotExist
	}
	buf := make([]byte, 0, 512)
	for {
		n, err := f.ReadAt(buf[len(buf):cap(buf)], int64(len(buf)))
		buf = buf[:len(buf)+n]
		if err == io.EOF || (err == nil && n == 0) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf))
		}
	}
}

// write writes value to the file at path.
func (c *cgroupFiles) write(path, value string) error {
	f := c.get(path, os.O_WRONLY)
	if f == nil {
		return os.ErrNotExist
	}
	_, err := f.WriteAt([]byte(value), 0)
	return err
}

// close closes every file.
func (c *cgroupFiles) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.open {
		if f != nil {
			f.Close()
		}
	}
	c.open, c.flags = nil, nil
}

var cgroupSeq atomic.Uint64

// findCgroups returns where boxes can get cgroups, or an error saying why
// they cannot (then the sandbox falls back to rlimits), and the first
// box's cgroup, with limits l, made to find out whether toolgate may make
// them. watch hears of every cgroup made.
func findCgroups(watch *deathWatch, l Limits) (*cgroupRoot, *boxCgroup, error) {
	var st unix.Statfs_t
	if err := unix.Statfs("/sys/fs/cgroup", &st); err != nil {
		return nil, nil, fmt.Errorf("no cgroup file system at /sys/fs/cgroup: %w", err)
	}
	own, err := ownCgroups()
	if err != nil {
		return nil, nil, err
	}
	if st.Type == unix.CGROUP2_SUPER_MAGIC {
		dir := filepath.Join("/sys/fs/cgroup", own[""])
		ctrl, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
		if err != nil {
			return nil, nil, err
		}
		fields := " " + strings.TrimSpace(string(ctrl)) + " "
		if !strings.Contains(fields, " pids ") {
			return nil, nil, fmt.Errorf("cgroup v2: the pids controller is not delegated to %s", dir)
		}
		r := &cgroupRoot{v2: true, pids: dir, watch: watch}
		if strings.Contains(fields, " memory ") {
			r.memory = dir
		}
		return r.try(l)
	}
	r := &cgroupRoot{watch: watch}
	if p, ok := own["pids"]; ok {
		r.pids = filepath.Join("/sys/fs/cgroup/pids", p)
	} else {
		return nil, nil, errors.New("cgroup v1: no pids hierarchy")
	}
	if m, ok := own["memory"]; ok {
		r.memory = filepath.Join("/sys/fs/cgroup/memory", m)
	}
	return r.try(l)
}

// ownCgroups reads /proc/self/cgroup: controller name → path ("" for v2).
func ownCgroups() (map[string]string, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out, sc.Err()
}

// sweep removes cgroups left by toolgate processes that are gone (a
// SIGKILL leaves no chance to clean up), killing first what is still in
// them: boxes of a toolgate that is gone were to die with it (the
// watcher of deathwatch.go does that at once unless it was killed too).
// A cgroup whose toolgate's pid is alive, whoever has it now, is left.
func (r *cgroupRoot) sweep() {
	for _, dir := range []string{r.pids, r.memory} {
		if dir == "" {
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(dir, "toolgate-*-*"))
		for _, m := range matches {
			parts := strings.Split(filepath.Base(m), "-")
			pid, err := strconv.Atoi(parts[1])
			if err != nil || pid <= 0 || pid == os.Getpid() {
				continue
			}
			if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
				left := &boxCgroup{v2: r.v2, dirs: []string{m}}
				drained := left.drain()
				left.files.close()
				if !drained {
					continue // still dying: the next start takes it
				}
				_ = os.Remove(m)
			}
		}
	}
}

// try makes the first box's cgroup, so a host that shows cgroups but does
// not let toolgate write them is found out at start-up, not at the first
// call.
func (r *cgroupRoot) try(l Limits) (*cgroupRoot, *boxCgroup, error) {
	r.sweep()
	cg, err := r.create(l)
	if err != nil {
		return nil, nil, err
	}
	return r, cg, nil
}

// create makes the cgroup of one box and writes its limits.
func (r *cgroupRoot) create(l Limits) (*boxCgroup, error) {
	name := fmt.Sprintf("toolgate-%d-%d", os.Getpid(), cgroupSeq.Add(1))
	cg := &boxCgroup{v2: r.v2, watch: r.watch}
	fail := func(err error) (*boxCgroup, error) {
		cg.remove()
		return nil, err
	}
	mk := func(parent string) (string, error) {
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return "", err
		}
		cg.dirs = append(cg.dirs, dir)
		return dir, nil
	}
	pdir, err := mk(r.pids)
	if err != nil {
		return fail(err)
	}
	defer func() { r.watch.add(cgroupDirs(cg.dirs)...) }()
	// bwrap's own process is in it too (confine), besides the box's.
	if err := writeFile(pdir, "pids.max", strconv.Itoa(l.Procs+1)); err != nil {
		return fail(err)
	}
	if r.memory != "" && l.MemoryBytes > 0 {
		mdir := pdir
		if !r.v2 {
			if mdir, err = mk(r.memory); err != nil {
				return fail(err)
			}
		}
		mem := strconv.FormatInt(l.MemoryBytes, 10)
		if r.v2 {
			if err := writeFile(mdir, "memory.max", mem); err != nil {
				return fail(err)
			}
			// No swap: a memory bomb must not push the host into swapping.
			_ = writeFile(mdir, "memory.swap.max", "0")
		} else {
			if err := writeFile(mdir, "memory.limit_in_bytes", mem); err != nil {
				return fail(err)
			}
			// memsw exists only with swap accounting; where it does, memory
			// plus swap gets the same bound.
			_ = writeFile(mdir, "memory.memsw.limit_in_bytes", mem)
		}
	}
	return cg, nil
}

// hasMemory says whether the box's memory is bounded by the cgroup.
func (r *cgroupRoot) hasMemory() bool { return r != nil && r.memory != "" }

func writeFile(dir, name, value string) error {
	return os.WriteFile(filepath.Join(dir, name), []byte(value), 0)
}

// join moves the processes into the box's cgroups; everything they start
// afterwards stays there.
func (cg *boxCgroup) join(pids ...int) error {
	for _, dir := range cg.dirs {
		for _, pid := range pids {
			if err := writeFile(dir, "cgroup.procs", strconv.Itoa(pid)); err != nil {
				return fmt.Errorf("join cgroup %s: %w", dir, err)
			}
		}
	}
	return nil
}

// holds says whether pid is in every one of the box's cgroups.
func (cg *boxCgroup) holds(pid int) bool {
	want := strconv.Itoa(pid)
	for _, dir := range cg.dirs {
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if err != nil || !slices.Contains(strings.Fields(string(b)), want) {
			return false
		}
	}
	return true
}

// kill sends SIGKILL to every process left in the box's cgroups. With a pid
// namespace the kernel has usually done this already; this covers a process
// that was between namespaces when the box died.
func (cg *boxCgroup) kill() {
	if cg.v2 && len(cg.dirs) > 0 {
		if writeFile(cg.dirs[0], "cgroup.kill", "1") == nil {
			return
		}
	}
	for _, dir := range cg.dirs {
		for range 8 {
			b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
			if err != nil || len(strings.TrimSpace(string(b))) == 0 {
				break
			}
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
	}
}

// remove deletes the box's cgroups, waiting briefly for dying processes to
// leave them (rmdir fails with EBUSY while a process is inside).
func (cg *boxCgroup) remove() error {
	cg.files.close()
	var first error
	for i := len(cg.dirs) - 1; i >= 0; i-- {
		dir := cg.dirs[i]
		var err error
		for wait := time.Millisecond; wait < 2*time.Second; wait *= 2 {
			if err = os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
				err = nil
				break
			}
			cg.kill()
			time.Sleep(wait)
		}
		if err != nil && first == nil {
			first = err
		}
		if err == nil {
			cg.watch.drop(cgroupDirs([]string{dir})...)
		}
	}
	cg.dirs = nil
	return first
}

// events says whether the box hit its process limit (a fork was refused)
// or had a process killed for memory since it took the cgroup, so a result
// can say why it failed. A reused cgroup's counters carry the earlier boxes'
// events; base holds them.
func (cg *boxCgroup) events() (pidsDenied bool, oom bool) {
	pids, kills := cg.counts()
	return pids > cg.base.pids, kills > cg.base.kills
}

// eventCounts are a cgroup's counts of refused forks and OOM kills.
type eventCounts struct{ pids, kills uint64 }

func (cg *boxCgroup) counts() (pids, kills uint64) {
	for _, dir := range cg.dirs {
		pids += cg.countOf(filepath.Join(dir, "pids.events"), "max")
		// v2 counts hitting the limit and OOM kills in memory.events, v1
		// counts OOM kills in memory.oom_control.
		for _, name := range []string{"memory.events", "memory.oom_control"} {
			kills += cg.countOf(filepath.Join(dir, name), "oom", "oom_kill")
		}
	}
	return pids, kills
}

// countOf sums the "key N" lines of a flat-keyed cgroup file for keys.
func (cg *boxCgroup) countOf(path string, keys ...string) uint64 {
	b, err := cg.files.read(path)
	if err != nil {
		return 0
	}
	var sum uint64
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && slices.Contains(keys, f[0]) {
			n, _ := strconv.ParseUint(f[1], 10, 64)
			sum += n
		}
	}
	return sum
}

// drain kills what is left in the box's cgroups and says whether they
// emptied. A killed process leaves its cgroup only once it has been
// scheduled to exit, which on a busy machine can be a while after the
// signal, so drain looks again, backing off, for up to about a quarter of
// a second before it gives up.
func (cg *boxCgroup) drain() bool {
	for wait := 100 * time.Microsecond; ; wait *= 2 {
		cg.kill()
		if cg.empty() {
			return true
		}
		if wait > 128*time.Millisecond {
			return false
		}
		time.Sleep(wait)
	}
}

// empty says whether no process is left in any of the box's cgroups.
func (cg *boxCgroup) empty() bool {
	for _, dir := range cg.dirs {
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if err != nil || len(strings.TrimSpace(string(b))) != 0 {
			return false
		}
	}
	return true
}

// bornIn starts cmd (not started yet) with its process born in the box's
// cgroups, so that nothing has to be moved there afterwards: moving
// another process takes a lock every fork and exit of the host also takes
// and often waits for an RCU grace period, a millisecond and more per box.
// The start happens on ns's thread (mountns.go) when ns is not nil.
//
// On cgroup v2 the process is cloned into the cgroup (CLONE_INTO_CGROUP,
// Linux 5.7). On v1 a thread may sit in a cgroup of its own and a child
// is born in its parent thread's: a thread locked for the purpose moves
// itself in (writing 0 to tasks is the one move that takes no such
// lock), starts cmd and moves itself back. A thread that cannot move back
// is not used again: its goroutine ends locked, which ends the thread.
//
// Where neither works, cmd is started as it is and born is false: the
// caller joins it (join). The returned command is the one started, cmd
// or a copy of it.
func (cg *boxCgroup) bornIn(cmd *exec.Cmd, ns *mountNS) (started *exec.Cmd, born bool, err error) {
	start := func(c *exec.Cmd) error {
		err := errGone
		ns.do(func() { err = c.Start() })
		return err
	}
	if cg.v2 {
		fd, err := unix.Open(cg.dirs[0], unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == nil {
			into := copyCmd(cmd)
			attr := *into.SysProcAttr
			attr.UseCgroupFD, attr.CgroupFD = true, fd
			into.SysProcAttr = &attr
			err = start(into)
			unix.Close(fd)
			if err == nil {
				return into, true, nil
			}
		}
		return cmd, false, start(cmd)
	}
	// moved runs on a locked thread: it moves the thread into the box's
	// cgroups, starts cmd, moves it back, and says whether the thread is
	// fit for use again.
	var (
		born2 bool
		err2  error
	)
	moved := func() (fit bool) {
		n := 0
		for _, dir := range cg.dirs {
			if cg.files.write(filepath.Join(dir, "tasks"), "0") != nil {
				break
			}
			n++
		}
		born2 = n == len(cg.dirs)
		if born2 {
			err2 = cmd.Start()
		}
		fit = true
		for _, dir := range cg.dirs[:n] {
			if cg.files.write(filepath.Join(filepath.Dir(dir), "tasks"), "0") != nil {
				fit = false
			}
		}
		return fit
	}
	if ns != nil {
		// Opened here: the namespace's thread has no /sys.
		for _, dir := range cg.dirs {
			cg.files.get(filepath.Join(dir, "tasks"), os.O_WRONLY)
			cg.files.get(filepath.Join(filepath.Dir(dir), "tasks"), os.O_WRONLY)
		}
		if !ns.do(func() {
			if !moved() {
				runtime.Goexit() // ends the namespace's thread (mountns.go)
			}
		}) {
			return cmd, false, errGone
		}
	} else {
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			fit := moved()
			close(done)
			if fit {
				runtime.UnlockOSThread()
			}
		}()
		<-done
	}
	if !born2 {
		return cmd, false, start(cmd)
	}
	return cmd, true, err2
}

// copyCmd is a fresh, unstarted command with what cmd was given.
func copyCmd(cmd *exec.Cmd) *exec.Cmd {
	c := exec.Command(cmd.Path, cmd.Args[1:]...)
	c.Env, c.Dir = cmd.Env, cmd.Dir
	c.Stdin, c.Stdout, c.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	c.ExtraFiles, c.WaitDelay = cmd.ExtraFiles, cmd.WaitDelay
	if cmd.SysProcAttr != nil {
		attr := *cmd.SysProcAttr
		c.SysProcAttr = &attr
	}
	return c
}
