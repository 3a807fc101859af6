package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toolgate/toolgate/internal/homedir"
)

// Mode says how exec commands run.
type Mode string

const (
	// ModeBwrap runs every command inside bubblewrap. It is the default.
	ModeBwrap Mode = "bwrap"
	// ModeNone runs commands directly on the host, for trusted set-ups only;
	// every result says so.
	ModeNone Mode = "none"
)

// ParseMode reads a --sandbox value.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case ModeBwrap, ModeNone:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown sandbox %q (want bwrap or none)", s)
}

// Limits bound what one box may use. Zero fields take DefaultLimits.
type Limits struct {
	// Procs bounds processes and threads in the box (pids cgroup;
	// RLIMIT_NPROC where no cgroup can be made).
	Procs int
	// MemoryBytes bounds the box's memory (memory cgroup; where there is
	// none, each process's address space is bounded at twice this).
	MemoryBytes int64
	// FileSizeBytes is the largest file a process may write (RLIMIT_FSIZE).
	FileSizeBytes int64
	// CPUSeconds bounds each process's CPU time (RLIMIT_CPU); 0 derives it
	// from the timeout and the number of CPUs.
	CPUSeconds int
	// OutputBytes is how much stdout and stderr together may write before
	// the box is stopped.
	OutputBytes int64
	// TmpBytes is the size of the box's private /tmp.
	TmpBytes int64
}

// DefaultLimits are the bounds used when a Config gives none.
func DefaultLimits() Limits {
	return Limits{
		Procs:         512,
		MemoryBytes:   2 << 30,
		FileSizeBytes: 1 << 30,
		OutputBytes:   16 << 20,
		TmpBytes:      512 << 20,
	}
}

func (l Limits) orDefaults() Limits {
	d := DefaultLimits()
	if l.Procs <= 0 {
		l.Procs = d.Procs
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = d.MemoryBytes
	}
	if l.FileSizeBytes <= 0 {
		l.FileSizeBytes = d.FileSizeBytes
	}
	if l.OutputBytes <= 0 {
		l.OutputBytes = d.OutputBytes
	}
	if l.TmpBytes <= 0 {
		l.TmpBytes = d.TmpBytes
	}
	return l
}

// DefaultEnv names the host variables a box inherits. Everything else in
// the host environment (tokens, keys, agent sockets) stays outside.
var DefaultEnv = []string{"PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_COLLATE",
	"LC_MESSAGES", "LC_NUMERIC", "LC_TIME", "TERM", "TZ"}

// DefaultPath is the box's PATH when the host has none.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Config describes the sandbox for one workspace.
type Config struct {
	Mode Mode
	// Workspace is the only writable host directory in the box.
	Workspace string
	// Home is the user's home directory; in the box it is an empty private
	// directory. Empty means $HOME.
	Home string
	// Timeout is how long a command may run; 0 means 60 s.
	Timeout time.Duration
	Limits  Limits
	// Env names the host variables passed in; nil means DefaultEnv.
	Env []string
	// PathAppend is added to the end of PATH in the box.
	PathAppend []string
	// Mask lists absolute paths (a "*" matches within one component) hidden
	// in the box even where the directory around them is visible: secrets
	// under /etc and the like. "~/" entries are ignored (home is hidden).
	Mask []string
	// ReadOnly lists files and directories inside the workspace the box
	// may read but not change (toolgate's own: a policy kept in the
	// workspace, an audit log under a workspace that holds the home), and
	// Hidden those it may not see at all (the audit signing key). Entries
	// outside the workspace are not writable in the box anyway.
	ReadOnly []string
	Hidden   []string
	// Bwrap is the bubblewrap binary; empty means "bwrap" on PATH.
	Bwrap string
	// Sequential says the caller never runs two commands at once: boxes
	// may then share what one box at a time may use (the pty instance of
	// the view's root, makeRoot).
	Sequential bool
}

// Request is one command to run.
type Request struct {
	Command string
	// Dir is the directory the command starts in (absolute); empty means
	// the workspace.
	Dir string
	// Network lets the box use the host's network (the policy granted it).
	Network bool
}

// Result is what a command did. Stdout and Stderr are bounded (see Capture).
type Result struct {
	Stdout, Stderr Text
	// ExitCode is the command's exit status; 128+N when signal N killed it.
	ExitCode int
	// TimedOut: the timeout killed the box.
	TimedOut bool
	// OutputLimited: the output passed Limits.OutputBytes and the box was
	// stopped.
	OutputLimited bool
	// PidsLimited: a fork was refused because the box had Limits.Procs
	// processes. OOM: a process was killed for memory.
	PidsLimited, OOM bool
	Duration         time.Duration
	Mode             Mode
	// Notes tell what toolgate did after the command: git state the
	// command planted and that was moved aside.
	Notes []string
}

// Unavailable is the error Run returns when the sandbox cannot run at all.
// Nothing was executed.
type Unavailable struct {
	Reason string
	Hint   string
}

func (e *Unavailable) Error() string { return "sandbox unavailable: " + e.Reason }

// Sandbox runs commands for one workspace.
type Sandbox struct {
	cfg   Config
	lim   Limits
	bwrap string
	bash  string
	ws    string
	home  string
	uid   int
	gid   int
	cg    *cgroupRoot
	cgErr error
	env   []string
	fixed []string // mounts that do not change between runs
	// sealed: fixed binds the view's root, read-only with every mount
	// point a box without the network needs (sysView.seal); fixedOpen is
	// then the bind per directory a box with the network takes.
	sealed    bool
	fixedOpen []string
	// maskedPaths are the paths of the system directories hidden by
	// masks, set with fixed.
	maskedPaths []string
	// keptOut are the masked paths left without a mount since their mode
	// keeps the box out, set with fixed; onView those masked on the view
	// (view.mask), as they were then.
	keptOut []keptOut
	onView  []keptOut
	// cred runs bwrap as the workspace's owner when toolgate is root and
	// the workspace is not root's: the box then has that user's host uid,
	// not root's.
	cred *syscall.Credential
	// hostRoot: the box's processes are host uid 0 (toolgate runs as root
	// on a root-owned workspace); it sees the system directories through
	// hostFS (set with fixed).
	hostRoot bool
	hostFS   hostRootFS
	// mapped: the box is viewID on the host and sees the workspace through
	// the view's idmapped copy (mappedBox); set with fixed, as are
	// hostRoot and cred, which it changes.
	mapped bool
	// stage is the workspace staged with its guards (stage.go).
	stage    stagedWS
	seccomp  []byte
	pending  sync.WaitGroup // cgroup removals still running
	inflight sync.WaitGroup // runs in progress
	// prologue sets the rlimits from inside the box when toolgate cannot
	// (bwrap runs as another user, and prlimit on another user's process
	// needs CAP_SYS_RESOURCE, which a root confined by its container may
	// lack). It costs a bash, and the direct start.
	prologue string

	fixedDone chan struct{} // closed once fixed is set
	checkOnce sync.Once
	checkErr  error
	// works is set once a box was made; until then runs go one at a time
	// (firstRun), the first standing in for Check.
	works      atomic.Bool
	firstRun   sync.Mutex
	locateOnce sync.Once
	locateErr  error

	// spares are emptied cgroups kept for the next boxes (recycleCgroup);
	// none are kept once the sandbox is closed.
	spareMu      sync.Mutex
	spares       []*boxCgroup
	sparesClosed bool

	// lifeline kills what is left of the boxes if toolgate dies without
	// doing it (deathwatch.go).
	lifeline *deathWatch

	// warm are the boxes made ahead (warm.go), oldest first; pinned the
	// workspace mounts of the boxes running.
	warmMu  sync.Mutex
	warm    []*warmBox
	pinned  []*[]string
	closed  bool
	tickets uint64

	// pathDirs remembers what lookBox learnt of each PATH directory.
	pathMu   sync.Mutex
	pathDirs map[string]pathDir
}

// takeCgroup returns a cgroup for a box: an emptied one kept from an
// earlier box if there is one, else a fresh one. It does not wait for the
// last box's cgroup to empty: that is on the way of a box made ahead, whose
// release would wait for it.
func (s *Sandbox) takeCgroup() (*boxCgroup, error) {
	s.spareMu.Lock()
	var cg *boxCgroup
	if n := len(s.spares); n > 0 {
		cg = s.spares[n-1]
		s.spares = s.spares[:n-1]
	}
	s.spareMu.Unlock()
	if cg != nil {
		return cg, nil
	}
	return s.cg.create(s.lim)
}

// maxSpares is how many emptied cgroups are kept: the last box's is still
// being emptied when the next box starts, so two take turns.
const maxSpares = 2

// recycleCgroup empties the cgroup of a box that ended and keeps it for a
// later box: making and removing a cgroup per box costs more than the
// rest of toolgate's work for it. Only an empty cgroup is kept (nothing of
// one box may count against, or be killed with, the next), with its event
// counts as the next box's base; one that does not empty soon after its
// processes are killed is removed once they are gone.
func (s *Sandbox) recycleCgroup(cg *boxCgroup) {
	s.pending.Add(1)
	go func() {
		defer s.pending.Done()
		if cg.drain() {
			pids, kills := cg.counts()
			cg.base = eventCounts{pids, kills}
			s.spareMu.Lock()
			if len(s.spares) < maxSpares && !s.sparesClosed {
				s.spares = append(s.spares, cg)
				cg = nil
			}
			s.spareMu.Unlock()
		}
		if cg != nil {
			_ = cg.remove()
		}
	}()
}

// Close waits for cgroups being made or removed and removes the one kept
// for the next run, so no empty cgroup outlives toolgate. A nil Sandbox
// has nothing to close.
func (s *Sandbox) Close() error {
	if s == nil {
		return nil
	}
	s.closeWarm()
	// A run that is being stopped (its context was canceled) finishes
	// within moments; wait for it so its cgroup is removed too.
	done := make(chan struct{})
	go func() {
		s.inflight.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	s.pending.Wait()
	if s.fixedDone != nil {
		<-s.fixedDone
		s.hostFS.view.close()
		s.hostFS.view = nil
	}
	s.spareMu.Lock()
	cgs := s.spares
	s.spares, s.sparesClosed = nil, true
	s.spareMu.Unlock()
	var err error
	for _, cg := range cgs {
		err = errors.Join(err, cg.remove())
	}
	s.lifeline.close()
	return err
}

// New prepares a sandbox. It fails only on a bad configuration; whether
// bubblewrap works is found out by Check (and by the first Run).
func New(cfg Config) (*Sandbox, error) {
	if cfg.Mode == "" {
		cfg.Mode = ModeBwrap
	}
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	ws, err := realDir(cfg.Workspace)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	if ws == "/" {
		return nil, errors.New("workspace cannot be the filesystem root")
	}
	home := homedir.Get()
	if cfg.Home != "" {
		home = homedir.Resolve(cfg.Home)
	}
	s := &Sandbox{cfg: cfg, lim: cfg.Limits.orDefaults(), ws: ws, home: home}
	s.bash = lookBash()
	s.env = s.buildEnv()
	// A descriptor toolgate inherited without close-on-exec would pass
	// into every box, and an open directory is a way out of any mount
	// namespace.
	closeInheritedFDs()
	if cfg.Mode == ModeBwrap {
		s.uid, s.gid, s.hostRoot = boxOwner(ws)
		if os.Getuid() == 0 && !s.hostRoot {
			s.cred = &syscall.Credential{Uid: uint32(s.uid), Gid: uint32(s.gid), Groups: []uint32{}}
		}
		s.seccomp = seccompProgram()
		if s.cred != nil && !capable(unix.CAP_SYS_RESOURCE) {
			s.prologue = s.limitsPrologue()
		}
		s.lifeline = &deathWatch{}
		s.lifeline.start(systemShell())
		var first *boxCgroup
		s.cg, first, s.cgErr = findCgroups(s.lifeline, s.lim)
		if first != nil {
			s.spares = append(s.spares, first)
		}
		// The fixed mounts (with a host-root box, the view of the system
		// directories or the walk for root-only files) are worked out
		// while the caller does its own start-up; the first box waits for
		// them.
		s.fixedDone = make(chan struct{})
		go func() {
			defer close(s.fixedDone)
			// The policy's secret paths are looked up while the view is
			// made (they were half a millisecond of a one-call run's
			// start); a host-root box without a view needs the walk's
			// root-only files among them, and they are looked up again
			// with those.
			early := make(chan []string, 1)
			go func() { early <- s.masks(nil) }()
			if s.hostRoot {
				s.hostFS = hostRootFSFor(ws, s.bash, bwrapPath(cfg.Bwrap))
				if s.hostFS.view != nil && s.hostFS.view.ws != "" {
					// A mapped box (mappedBox): viewID on the host.
					s.hostRoot, s.mapped = false, true
					s.cred = &syscall.Credential{Uid: viewID, Gid: viewID, Groups: []uint32{}}
				}
			}
			masked := <-early
			if len(s.hostFS.rootOnly) > 0 {
				masked = s.masks(s.hostFS.rootOnly)
			}
			sec := s.findSecrets(masked)
			s.maskedPaths, s.keptOut = sec.masked, sec.kept
			root := ""
			if s.cfg.Sequential {
				// Its pty instance is shared: boxes running side by side
				// could open each other's terminals.
				root = s.hostFS.view.rootDir()
			}
			// Masks the view can hold are mounted on it, once.
			var onBox []mount
			onBox, s.onView = s.hostFS.view.mask(sec.mounts)
			s.fixed = s.fixedMounts(root, onBox)
			if root != "" && s.hostFS.view.seal(s.ws, s.home) {
				// Read-only already: no box remounts it, but a box with
				// the network needs a mount point the root does not have.
				s.sealed = true
				s.fixedOpen = s.fixedMounts("", onBox)
			}
		}()
	}
	return s, nil
}

// boxOwner says who a box for the workspace ws is on the host: toolgate's
// own user; when toolgate is root, the workspace's owner if that is not
// root and can reach the workspace (bwrap then runs as that user);
// otherwise host root without capabilities (hostRoot), uid 1000 inside.
func boxOwner(ws string) (uid, gid int, hostRoot bool) {
	uid, gid = os.Getuid(), os.Getgid()
	if uid != 0 {
		return uid, gid, false
	}
	var st syscall.Stat_t
	if err := syscall.Stat(ws, &st); err == nil && st.Uid != 0 && reachable(ws, int(st.Uid), int(st.Gid)) {
		return int(st.Uid), int(st.Gid), false
	}
	// Inside the box the user is never root; outside it is root without
	// capabilities, so the box is hardened for it.
	return 1000, 1000, true
}

// lookBash finds bash on PATH.
func lookBash() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/bash"
}

// reachable says whether uid/gid can traverse every directory above dir, so
// bwrap running as that user can bind it.
func reachable(dir string, uid, gid int) bool {
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		var st syscall.Stat_t
		if err := syscall.Stat(d, &st); err != nil {
			return false
		}
		mode := st.Mode & 0o777
		ok := mode&0o001 != 0 ||
			(int(st.Uid) == uid && mode&0o100 != 0) ||
			(int(st.Gid) == gid && mode&0o010 != 0)
		if !ok {
			return false
		}
		if filepath.Dir(d) == d {
			return true
		}
	}
}

// closeInheritedFDs marks every descriptor above stderr close-on-exec.
func closeInheritedFDs() {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// HostRoot says whether the box's processes are root on the host (without
// capabilities): toolgate runs as root and the workspace belongs to root.
func (s *Sandbox) HostRoot() bool {
	if s.fixedDone != nil {
		<-s.fixedDone
	}
	return s.hostRoot
}

func realDir(p string) (string, error) {
	if p == "" {
		return "", errors.New("no directory given")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	return real, nil
}

// Mode is how this sandbox runs commands.
func (s *Sandbox) Mode() Mode { return s.cfg.Mode }

// Timeout is the time a command may run.
func (s *Sandbox) Timeout() time.Duration { return s.cfg.Timeout }

// Workspace is the workspace directory, symlinks resolved.
func (s *Sandbox) Workspace() string { return s.ws }

// Profile describes the sandbox in a few words, for results and the audit
// log: mode, how limits are enforced, and the limits.
func (s *Sandbox) Profile() string {
	if s.cfg.Mode == ModeNone {
		return "none (commands run unsandboxed on the host)"
	}
	enf := "rlimits"
	if s.cg != nil {
		enf = "cgroups+rlimits"
	}
	return fmt.Sprintf("bwrap (%s: procs %d, memory %d MiB, file size %d MiB, output %d MiB, timeout %s)",
		enf, s.lim.Procs, s.lim.MemoryBytes>>20, s.lim.FileSizeBytes>>20, s.lim.OutputBytes>>20, s.cfg.Timeout)
}

// CgroupError says why boxes get no cgroups (nil when they do).
func (s *Sandbox) CgroupError() error { return s.cgErr }

// Check runs an empty command in a box once and reports whether the sandbox
// works on this machine. ModeNone always works. Run does not need it: the
// first command a box runs tells the same (see Run), so a one-call process
// does not pay for a second box.
func (s *Sandbox) Check(ctx context.Context) error {
	if s.cfg.Mode == ModeNone {
		return nil
	}
	if err := s.locate(); err != nil {
		return err
	}
	s.checkOnce.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		res, err := s.runBwrap(ctx, Request{Command: "exit 0"})
		if err == nil && res.ExitCode != 0 {
			err = &setupError{fmt.Errorf("exit code %d: %s", res.ExitCode, strings.TrimSpace(res.Stderr.String()))}
		}
		s.checkErr = unavailable(err)
		if s.checkErr == nil {
			s.works.Store(true)
		}
	})
	return s.checkErr
}

// locate finds bwrap on PATH, once.
func (s *Sandbox) locate() error {
	s.locateOnce.Do(func() {
		path := bwrapPath(s.cfg.Bwrap)
		if path == "" {
			bw := s.cfg.Bwrap
			if bw == "" {
				bw = "bwrap"
			}
			s.locateErr = &Unavailable{
				Reason: "bubblewrap (" + bw + ") is not installed or not on PATH",
				Hint:   "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or on a trusted machine only pass --sandbox=none",
			}
			return
		}
		s.bwrap = path
	})
	return s.locateErr
}

// setupError is bubblewrap failing before the command started: the box
// could not be made, so nothing ran.
type setupError struct{ err error }

func (e *setupError) Error() string { return e.err.Error() }
func (e *setupError) Unwrap() error { return e.err }

// unavailable turns a failure to make a box into an Unavailable with a hint;
// other errors (and nil) pass through.
func unavailable(err error) error {
	if err == nil {
		return nil
	}
	var u *Unavailable
	if errors.As(err, &u) {
		return u
	}
	var se *setupError
	if !errors.As(err, &se) {
		return err
	}
	return &Unavailable{
		Reason: "bubblewrap cannot create the sandbox: " + err.Error(),
		Hint:   "user namespaces may be disabled (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone, or an AppArmor restriction on unprivileged user namespaces), or toolgate runs in a container that forbids them; fix that, or on a trusted machine only pass --sandbox=none",
	}
}

// Run executes one command and waits for it. An error means the command did
// not run (the sandbox is unavailable or could not be set up); a command
// that ran and failed is a Result with its exit code.
func (s *Sandbox) Run(ctx context.Context, req Request) (Result, error) {
	s.inflight.Add(1)
	defer s.inflight.Done()
	if s.cfg.Mode == ModeNone {
		return s.runNone(ctx, req)
	}
	if err := s.locate(); err != nil {
		return Result{Mode: s.cfg.Mode}, err
	}
	if s.works.Load() {
		if w := s.takeWarm(req); w != nil {
			return s.runWarm(ctx, req, w)
		}
		return s.runBwrap(ctx, req)
	}
	// Until a box has been made, the command itself is the probe: a box
	// that cannot be made runs nothing, and then no later call tries again.
	s.firstRun.Lock()
	defer s.firstRun.Unlock()
	if s.works.Load() {
		return s.runBwrap(ctx, req)
	}
	if s.checkErr != nil {
		return Result{Mode: s.cfg.Mode}, s.checkErr
	}
	res, err := s.runBwrap(ctx, req)
	if u := unavailable(err); u != err {
		s.checkOnce.Do(func() { s.checkErr = u })
		return res, s.checkErr
	}
	if err == nil {
		s.works.Store(true)
	}
	return res, err
}

func (s *Sandbox) buildEnv() []string {
	names := s.cfg.Env
	if names == nil {
		names = DefaultEnv
	}
	env := []string{}
	path := DefaultPath
	for _, n := range names {
		v, ok := os.LookupEnv(n)
		if !ok || strings.ContainsRune(n, '=') {
			continue
		}
		if n == "PATH" {
			if v != "" {
				path = v
			}
			continue
		}
		env = append(env, n+"="+v)
	}
	for _, p := range s.cfg.PathAppend {
		if p != "" {
			path += ":" + p
		}
	}
	home := s.home
	if home == "" || home == "/" {
		home = "/tmp"
	}
	env = append(env,
		"PATH="+path,
		"HOME="+home,
		"TMPDIR=/tmp",
		"GIT_TERMINAL_PROMPT=0",
		"DEBIAN_FRONTEND=noninteractive",
	)
	return env
}

// runBwrap starts bwrap blocked (--block-fd) right after it made the
// namespaces, moves the box into its cgroups and sets its rlimits while
// nothing inside has run yet, then lets it go. Every process the command
// starts inherits both; none can start before them.
func (s *Sandbox) runBwrap(ctx context.Context, req Request) (res Result, err error) {
	res.Mode = ModeBwrap
	args, err := s.args(req)
	if err != nil {
		return res, err
	}
	return s.runArgs(ctx, args)
}

// runArgs starts and runs a box with the command line args.
func (s *Sandbox) runArgs(ctx context.Context, args []string) (Result, error) {
	b, err := s.startBox(args)
	if err != nil {
		return Result{Mode: ModeBwrap}, err
	}
	return s.runBox(ctx, b, wsTargets(args, s.ws))
}

// boxProc is a bwrap process that was started and waits, blocked on
// --block-fd, for its release.
type boxProc struct {
	// child is set once the box was joined to its cgroup and given its
	// rlimits (confine), before runBox for a box made ahead.
	child int
	// cg is the box's cgroup, taken when bwrap started (cgErr when none
	// could be had); bornIn says bwrap was started in it.
	cg             *boxCgroup
	cgErr          error
	bornIn         bool
	cmd            *exec.Cmd
	infoR          *os.File   // bwrap's --info-fd: the box's pid 1
	release        *os.File   // one byte written lets the command run
	files          []*os.File // closed once bwrap ended
	stdout, stderr *Capture
	start          time.Time
}

// startBox starts bwrap with args: descriptor 3 is its --info-fd, 4 its
// --block-fd, 5 its --sync-fd and 6 the seccomp filter. 4 and 5 are the two
// ends of one pipe. bwrap reads the block end after making the box and
// holds the other end, in both its processes, until it execs the command:
// the read can only end with the byte runBox writes, never with end of
// file, which is what a toolgate that dies would leave if it held the only
// writing end. A box toolgate does not release is never run. bwrap dies
// with toolgate (--die-with-parent), but a box still blocked does not die
// with bwrap: the watcher of deathwatch.go kills it (its process group is
// listed from here on).
func (s *Sandbox) startBox(args []string) (*boxProc, error) {
	b := &boxProc{}
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	relR, relW, err := os.Pipe()
	if err != nil {
		infoR.Close()
		infoW.Close()
		return nil, err
	}
	b.infoR, b.release = infoR, relW
	b.files = []*os.File{infoR, relW}
	// fds 3, 4 and 5; the child's copies of ours are closed once it runs
	child := []*os.File{infoW, relR, relW}
	theirs := []*os.File{infoW, relR}
	closeAll := func() {
		for _, f := range append(theirs, b.files...) {
			f.Close()
		}
	}
	if s.seccomp != nil {
		// fd 6: the filter, read by bwrap to its end.
		scR, scW, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, err
		}
		_, werr := scW.Write(s.seccomp)
		scW.Close()
		child = append(child, scR)
		theirs = append(theirs, scR)
		if werr != nil {
			closeAll()
			return nil, werr
		}
	}

	b.stdout = NewCapture(captureHead, captureTail)
	b.stderr = NewCapture(captureHead, captureTail)
	cmd := exec.Command(s.bwrap, args...)
	cmd.Env = []string{}
	cmd.Stdout, cmd.Stderr = b.stdout, b.stderr
	cmd.ExtraFiles = child
	cred := s.cred
	if cred == nil && s.hostRoot {
		// Root's supplementary groups would go into the box with it, and
		// with them every file those groups may read: the box is uid 0
		// and gid 0 only, as the root-only walk assumes.
		cred = &syscall.Credential{Uid: 0, Gid: 0, Groups: []uint32{}}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: cred}
	cmd.WaitDelay = 2 * time.Second

	if s.cg != nil {
		// The cgroup is taken now so that bwrap can be born in it (see
		// bornIn); an error is confine's to report.
		b.cg, b.cgErr = s.takeCgroup()
	}
	// bwrap binds what the view holds: it starts in the view's namespace.
	ns := s.hostFS.view.mountNS()
	b.start = time.Now()
	if b.cg != nil {
		b.cmd, b.bornIn, err = b.cg.bornIn(cmd, ns)
	} else {
		b.cmd, err = cmd, errGone
		ns.do(func() { err = cmd.Start() })
	}
	for _, f := range theirs {
		f.Close()
	}
	if err != nil {
		for _, f := range b.files {
			f.Close()
		}
		if b.cg != nil {
			s.recycleCgroup(b.cg)
		}
		return nil, &Unavailable{Reason: "cannot start bubblewrap: " + err.Error(), Hint: "check that " + s.bwrap + " is executable"}
	}
	cmd = b.cmd
	s.lifeline.add(group(cmd.Process.Pid))
	return b, nil
}

// wait reaps bwrap; its process group is then gone from the watcher's list
// (its number may be taken by another group from now on).
func (s *Sandbox) wait(b *boxProc) error {
	err := b.cmd.Wait()
	s.lifeline.drop(group(b.cmd.Process.Pid))
	return err
}

// childPid reads the box's pid 1 from bwrap's info; 0 when bwrap failed
// before making the box (its stderr says why).
func (b *boxProc) childPid() (int, error) {
	var info struct {
		ChildPid int `json:"child-pid"`
	}
	_ = b.infoR.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := json.NewDecoder(b.infoR).Decode(&info); err != nil {
		return 0, err
	}
	if info.ChildPid <= 0 {
		return 0, errors.New("no child pid")
	}
	return info.ChildPid, nil
}

// confine learns the box's pid 1 from bwrap, moves it and bwrap into the
// box's cgroup unless bwrap was born there (then so was it), and sets its
// rlimits, before anything of the command runs. A *setupError means bwrap
// failed before making the box (it has exited); with any other error
// b.child says what was done.
func (s *Sandbox) confine(b *boxProc) error {
	cg := b.cg
	if s.cg != nil && cg == nil {
		return fmt.Errorf("cannot make the box's cgroup: %w", b.cgErr)
	}
	early := b.bornIn
	if cg != nil && !early {
		// bwrap itself joins first, as soon as it runs: the box's pid 1 it
		// clones is then born in the cgroup, and the join, which can wait
		// for an RCU grace period, overlaps bwrap's own start instead of
		// following it.
		early = cg.join(b.cmd.Process.Pid) == nil
	}
	child, derr := b.childPid()
	if derr != nil {
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		_ = s.wait(b) // bwrap failed before making the box; its stderr says why
		if cg != nil {
			// Only bwrap, gone now, was in it. The box no longer holds
			// it: nothing else may hand it back a second time.
			b.cg = nil
			s.recycleCgroup(cg)
		}
		msg := strings.TrimSpace(b.stderr.Text().String())
		if msg == "" {
			msg = derr.Error()
		}
		return &setupError{fmt.Errorf("bubblewrap failed to set up the box: %s", msg)}
	}
	b.child = child
	if cg != nil && !b.bornIn && !(early && cg.holds(child)) {
		// The box's pid 1 starts every process of the box; it was cloned
		// before bwrap joined. (bwrap born in the cgroup clones it there.)
		if err := cg.join(child); err != nil {
			return err
		}
	}
	if s.prologue == "" {
		if err := s.setRlimits(child); err != nil {
			return err
		}
	}
	return nil
}

// runBox joins a started box to its cgroup, sets its rlimits, releases it
// and waits for it. targets are its mounts in the workspace: while it runs
// they are pinned (see warm.go).
func (s *Sandbox) runBox(ctx context.Context, b *boxProc, targets []string) (res Result, err error) {
	res.Mode = ModeBwrap
	defer func() {
		for _, f := range b.files {
			f.Close()
		}
	}()
	cmd, stdout, stderr := b.cmd, b.stdout, b.stderr
	var (
		killOnce sync.Once
		child    int
		cg       *boxCgroup
		// killMu is held while a kill runs; once the box was waited for
		// (ended), a kill does nothing: its cgroup may be the next box's
		// by then, which a late timeout must not touch.
		killMu sync.Mutex
		ended  bool
	)
	kill := func() {
		killMu.Lock()
		defer killMu.Unlock()
		if ended {
			return
		}
		killOnce.Do(func() {
			if child > 0 {
				// The box's pid 1: when it dies the kernel kills every
				// process of its pid namespace, setsid or not.
				_ = syscall.Kill(child, syscall.SIGKILL)
			}
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			if cg != nil {
				cg.kill()
			}
		})
	}
	abort := func(e error) (Result, error) {
		kill()
		_ = s.wait(b)
		if cg != nil {
			_ = cg.remove()
		}
		msg := strings.TrimSpace(stderr.Text().String())
		if msg != "" {
			e = fmt.Errorf("%w: %s", e, msg)
		}
		return res, e
	}

	// bwrap makes the box meanwhile: nothing in it runs before the release
	// below, and bwrap changes nothing on the host (its mounts land on paths
	// that existed when the command line was made), so the state the
	// command is checked against afterwards is taken now, and the cgroup
	// made ready.
	gitBefore, cfgBefore := s.snapshotGit(), s.snapshotAgentConfig()
	if b.child == 0 {
		if err = s.confine(b); err != nil {
			child, cg = b.child, b.cg
			var se *setupError
			if errors.As(err, &se) {
				return res, err
			}
			return abort(err)
		}
	}
	child, cg = b.child, b.cg

	pin := s.pin(targets)
	defer s.unpin(pin)
	wd := s.watch(ctx, stdout, stderr, kill)
	if _, err = b.release.Write([]byte{1}); err != nil {
		wd.finish(&res)
		return abort(fmt.Errorf("cannot release the box: %w", err))
	}
	b.release.Close()

	werr := s.wait(b)
	wd.finish(&res)
	// A kill the watchdog started is over before the cgroup goes back.
	killMu.Lock()
	ended = true
	killMu.Unlock()
	res.Duration = time.Since(b.start)
	// Background children of the command died with the box's pid 1 (the
	// kernel ends its pid namespace). Both pids are reaped now, and may
	// already name other processes: they get no signal. The cgroup's own
	// list is exact, and is emptied with it below.
	if cg != nil {
		// Read even after exit 0: a pipeline hides its members' deaths.
		res.PidsLimited, res.OOM = cg.events()
		// Emptying waits for dying processes to leave; the result need
		// not wait for that.
		s.recycleCgroup(cg)
	}
	res.Stdout, res.Stderr = stdout.Text(), stderr.Text()
	res.ExitCode = exitCode(cmd.ProcessState, werr)
	res.Notes = append(s.checkGit(gitBefore), s.checkAgentConfig(cfgBefore)...)
	if len(res.Notes) > 0 {
		// toolgate moved or rewrote files in the workspace: boxes made
		// ahead may have mounts on what was there before.
		s.DiscardPrestarted()
	}
	if ctx.Err() != nil && !res.TimedOut {
		return res, fmt.Errorf("command stopped: %w", ctx.Err())
	}
	return res, nil
}

// watchdog stops a running command when its timeout passes, when its
// output passes the limit, or when ctx ends, and remembers which.
type watchdog struct {
	mu                      sync.Mutex
	timedOut, outputLimited bool
	timer                   *time.Timer
	stopCtx                 func() bool
}

// watch starts watching a command that kill stops.
func (s *Sandbox) watch(ctx context.Context, stdout, stderr *Capture, kill func()) *watchdog {
	wd := &watchdog{}
	flood := func(int64) {
		if stdout.Total()+stderr.Total() > s.lim.OutputBytes {
			wd.mu.Lock()
			wd.outputLimited = true
			wd.mu.Unlock()
			kill()
		}
	}
	stdout.setOnWrite(flood)
	stderr.setOnWrite(flood)
	wd.timer = time.AfterFunc(s.cfg.Timeout, func() {
		wd.mu.Lock()
		wd.timedOut = true
		wd.mu.Unlock()
		kill()
	})
	wd.stopCtx = context.AfterFunc(ctx, kill)
	return wd
}

// finish stops watching and records why the command was stopped, if it was.
func (wd *watchdog) finish(res *Result) {
	wd.timer.Stop()
	wd.stopCtx()
	wd.mu.Lock()
	res.TimedOut, res.OutputLimited = wd.timedOut, wd.outputLimited
	wd.mu.Unlock()
}

// Total is the number of bytes written so far.
func (c *Capture) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Captures keep this much of each stream's head and tail: four times what
// the exec tool shows, so a cut never lands inside what is shown.
const (
	captureHead = 64 << 10
	captureTail = 64 << 10
)

func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		if err != nil {
			return -1
		}
		return 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// limitsValues are the rlimits of a box: core, file size, CPU seconds,
// processes, and address space (0: none, when a memory cgroup bounds it).
func (s *Sandbox) limitsValues() (core, fsize, cpu, nproc, as uint64) {
	c := s.lim.CPUSeconds
	if c <= 0 {
		c = int(s.cfg.Timeout/time.Second)*runtime.NumCPU() + 10
	}
	as = 0
	if !s.cg.hasMemory() {
		as = uint64(2 * s.lim.MemoryBytes)
	}
	nproc = uint64(s.lim.Procs)
	if s.cg != nil {
		// The pids cgroup bounds the box and counts what it refused
		// (pids.events), which the result reports; RLIMIT_NPROC, at the
		// same count, would refuse first and silently. It stays a
		// backstop.
		nproc *= 2
	}
	return 0, uint64(s.lim.FileSizeBytes), uint64(c), nproc, as
}

// limitsPrologue is the shell text that sets the rlimits in the box before
// the command runs (args appends how: exec bash -c "$1", or "$@" for a
// program bash would only have looked up and started). Hard and soft
// limits are both set, so nothing in the box can raise them again; if one
// cannot be set the command does not run.
func (s *Sandbox) limitsPrologue() string {
	_, fsize, cpu, nproc, as := s.limitsValues()
	p := fmt.Sprintf("ulimit -H -S -c 0 -f %d -t %d -u %d", fsize/1024, cpu, nproc)
	if as > 0 {
		p += fmt.Sprintf(" -v %d", as/1024)
	}
	return p + ` || { echo "toolgate: the sandbox's limits could not be set" >&2; exit 126; }; `
}

// capable says whether this process has capability c in its effective set.
func capable(c int) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[c/32].Effective&(1<<(uint(c)%32)) != 0
}

// setRlimits bounds each process of the box. They are set on the box's pid
// 1 before it starts the command, after bwrap made the user namespace, so
// RLIMIT_NPROC counts the box's processes only (not every process of the
// user on the host).
func (s *Sandbox) setRlimits(pid int) error {
	if s.mapped && !capable(unix.CAP_SYS_RESOURCE) {
		t, err := viewIDThread()
		if err != nil {
			return fmt.Errorf("cannot take the box's ids to set its rlimits: %w", err)
		}
		err = errGone
		t.do(func() { err = s.prlimits(pid) })
		return err
	}
	return s.prlimits(pid)
}

func (s *Sandbox) prlimits(pid int) error {
	core, fsize, cpu, nproc, as := s.limitsValues()
	set := []struct {
		res int
		val uint64
	}{
		{unix.RLIMIT_CORE, core},
		{unix.RLIMIT_FSIZE, fsize},
		{unix.RLIMIT_CPU, cpu},
		{unix.RLIMIT_NPROC, nproc},
	}
	if as > 0 {
		set = append(set, struct {
			res int
			val uint64
		}{unix.RLIMIT_AS, as})
	}
	for _, r := range set {
		var old unix.Rlimit
		if err := unix.Prlimit(pid, r.res, nil, &old); err != nil {
			return fmt.Errorf("read rlimit %d: %w", r.res, err)
		}
		v := r.val
		if old.Max < v {
			v = old.Max // never above what the host already allows
		}
		lim := unix.Rlimit{Cur: v, Max: v}
		if err := unix.Prlimit(pid, r.res, &lim, nil); err != nil {
			return fmt.Errorf("set rlimit %d: %w", r.res, err)
		}
	}
	return nil
}

// runNone runs the command on the host: same environment, timeout, output
// bound and rlimits (set just after start, so a process forked in the
// first instant may escape them), but no namespaces and no file system
// view. Children that call setsid leave the process group the timeout kills.
func (s *Sandbox) runNone(ctx context.Context, req Request) (res Result, err error) {
	res.Mode = ModeNone
	dir := req.Dir
	if dir == "" {
		dir = s.ws
	}
	stdout := NewCapture(captureHead, captureTail)
	stderr := NewCapture(captureHead, captureTail)
	cmd := exec.Command(s.bash, "-c", req.Command)
	cmd.Dir = dir
	cmd.Env = s.env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("cannot start bash: %w", err)
	}
	_ = s.setRlimits(cmd.Process.Pid)
	var once sync.Once
	kill := func() { once.Do(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }) }
	wd := s.watch(ctx, stdout, stderr, kill)
	werr := cmd.Wait()
	wd.finish(&res)
	kill()
	res.Duration = time.Since(start)
	res.Stdout, res.Stderr = stdout.Text(), stderr.Text()
	res.ExitCode = exitCode(cmd.ProcessState, werr)
	if ctx.Err() != nil && !res.TimedOut {
		return res, fmt.Errorf("command stopped: %w", ctx.Err())
	}
	return res, nil
}
