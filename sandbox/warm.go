package sandbox

import (
	"context"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// Boxes made ahead.
//
// Most of a box's time is bubblewrap making it: namespaces, a mount per
// system directory, mask and guard, each followed by a read of the whole
// mount table. A front end that knows the next command before the current
// one ends (`toolgate run` reading a stream) has the next box made while
// the current one runs: Prestart. Nothing of the command runs until Run
// decides to use the box; what makes that safe:
//
//   - The box is made as any box is (startBox): bwrap waits on its block
//     pipe, whose other end it holds itself, so only the byte runBox writes
//     at release lets the command run; a toolgate that dies leaves it
//     blocked, and the watcher of deathwatch.go kills it.
//   - Run uses the box only for the same request and only if the command
//     line it would build now is the one the box was made with: the git
//     guards, masks, the program a direct start finds, the environment.
//   - The box's mounts in the workspace must not be moved away under it
//     between its making and its use. Untrusted code that could do that runs
//     only in other boxes: a box made ahead must have every mount
//     destination in the workspace among those of each box released while
//     it waits (where they are mount points, which cannot be renamed or
//     removed from inside), and each destination's parents must be such
//     destinations too, up to the workspace (a parent that is not could be
//     renamed with the mount inside it). A box that fails this is dropped.
//     A run's staged workspace (stage.go) carries its guards inside the one
//     workspace mount; there the same holds through the staged tree's key:
//     the command line names the tree, and a guard path that is another
//     file when the box is released (moved, replaced) stages a new tree,
//     so the box's command line is no longer the one Run builds.
//     toolgate's own changes to the workspace (a file tool's write, the git
//     and agent-config checks putting things back) drop every box made
//     ahead: the front end calls DiscardPrestarted, runBox does itself.
//
// Only the bwrap mode with toolgate setting the rlimits itself (no
// prologue) makes boxes ahead; the first box must have been made the usual
// way.

// maxWarm bounds the boxes made ahead: on two cores two boxes being made
// beside the one running keep both busy.
const maxWarm = 2

// warmBox is a box made ahead for req.
type warmBox struct {
	ticket  uint64
	ready   chan struct{} // closed once confine returned, into err
	err     error
	req     Request
	args    []string // the command line Run would build, when it was made
	targets []string
	proc    *boxProc
}

// Prestart makes a box for req ahead of its call, if that can be done
// safely, and returns its ticket (0: it did not). The box waits until Run
// takes it for the same request, or Forget or DiscardPrestarted drop it.
func (s *Sandbox) Prestart(req Request) (ticket uint64) {
	defer func() {
		if recover() != nil {
			ticket = 0 // a box made ahead is only ever a saving
		}
	}()
	if !s.CanPrestart() || s.locate() != nil {
		return 0
	}
	s.warmMu.Lock()
	n := len(s.warm)
	s.warmMu.Unlock()
	if n >= maxWarm {
		return 0
	}
	args, err := s.args(req)
	if err != nil {
		return 0
	}
	targets := wsTargets(args, s.ws)
	if !anchored(targets, s.ws) || !slices.Contains(targets, s.ws) {
		return 0
	}
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	if len(s.warm) >= maxWarm || s.closed {
		return 0
	}
	for _, r := range s.pinned {
		if !subset(targets, r) {
			return 0
		}
	}
	proc, err := s.startBox(args)
	if err != nil {
		return 0
	}
	s.tickets++
	w := &warmBox{ticket: s.tickets, req: req, args: args, targets: targets, proc: proc, ready: make(chan struct{})}
	s.warm = append(s.warm, w)
	// From here on a box released drops this one if it does not hold its
	// mounts in place (pin). Joining a cgroup can wait for an RCU grace
	// period (milliseconds): done now, off the way of the call.
	go func() {
		defer close(w.ready)
		w.err = s.confine(proc)
	}()
	return s.tickets
}

// Forget drops the box made ahead with ticket, if it is still waiting.
func (s *Sandbox) Forget(ticket uint64) {
	s.warmMu.Lock()
	var w *warmBox
	if i := slices.IndexFunc(s.warm, func(w *warmBox) bool { return w.ticket == ticket }); i >= 0 {
		w = s.warm[i]
		s.warm = slices.Delete(s.warm, i, i+1)
	}
	s.warmMu.Unlock()
	if w != nil {
		s.discard(w)
	}
}

// CanPrestart says whether Prestart may make boxes: the sandbox is bwrap and
// its first box has been made (until then each box is the probe).
func (s *Sandbox) CanPrestart() bool {
	return s.cfg.Mode == ModeBwrap && s.prologue == "" && s.works.Load()
}

// DiscardPrestarted drops every box made ahead.
func (s *Sandbox) DiscardPrestarted() {
	s.warmMu.Lock()
	ws := s.warm
	s.warm = nil
	s.warmMu.Unlock()
	for _, w := range ws {
		s.discard(w)
	}
}

// takeWarm returns the oldest box made ahead for req; nil when there is
// none.
func (s *Sandbox) takeWarm(req Request) *warmBox {
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	if i := slices.IndexFunc(s.warm, func(w *warmBox) bool { return w.req == req }); i >= 0 {
		w := s.warm[i]
		s.warm = slices.Delete(s.warm, i, i+1)
		return w
	}
	return nil
}

// runWarm runs req in a box made ahead when the box is still the one Run
// would make; otherwise it drops the box and runs req in a box made now.
func (s *Sandbox) runWarm(ctx context.Context, req Request, w *warmBox) (Result, error) {
	<-w.ready
	args, err := s.args(req)
	if w.err != nil || err != nil || !slices.Equal(args, w.args) {
		s.discard(w)
		if err != nil {
			return Result{Mode: ModeBwrap}, err
		}
		return s.runArgs(ctx, args)
	}
	w.proc.start = time.Now()
	return s.runBox(ctx, w.proc, w.targets)
}

// discard kills a box made ahead, still blocked before its command. The
// signal to bwrap's process group reaches the box's pid 1 too: it leaves
// the group for a session of its own only once released. That pid is not
// signalled by number, since bwrap may have reaped it already and it may
// name another process by now.
func (s *Sandbox) discard(w *warmBox) {
	p := w.proc
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	s.pending.Add(1)
	go func() {
		defer s.pending.Done()
		<-w.ready
		s.reap(p)
	}()
}

// reap waits for a box that was killed before its release, closes its
// descriptors and empties its cgroup for the next box.
func (s *Sandbox) reap(p *boxProc) {
	if p.cmd.ProcessState == nil {
		_ = s.wait(p)
	}
	for _, f := range p.files {
		f.Close()
	}
	if p.cg != nil {
		p.cg.kill()
		s.recycleCgroup(p.cg)
	}
}

// pin records targets as pinned while their box runs and drops the boxes
// made ahead with a mount in the workspace that the running box does not
// hold in place.
func (s *Sandbox) pin(targets []string) *[]string {
	p := &targets
	var drop []*warmBox
	s.warmMu.Lock()
	keep := s.warm[:0]
	for _, w := range s.warm {
		if subset(w.targets, p) {
			keep = append(keep, w)
		} else {
			drop = append(drop, w)
		}
	}
	clear(s.warm[len(keep):])
	s.warm = keep
	s.pinned = append(s.pinned, p)
	s.warmMu.Unlock()
	for _, w := range drop {
		s.discard(w)
	}
	return p
}

// unpin ends what pin began.
func (s *Sandbox) unpin(p *[]string) {
	s.warmMu.Lock()
	if i := slices.Index(s.pinned, p); i >= 0 {
		s.pinned = slices.Delete(s.pinned, i, i+1)
	}
	s.warmMu.Unlock()
}

// closeWarm drops the boxes made ahead and refuses new ones.
func (s *Sandbox) closeWarm() {
	s.warmMu.Lock()
	s.closed = true
	s.warmMu.Unlock()
	s.DiscardPrestarted()
}

// arity is how many values each option that args writes takes. An option
// not listed stops the readers below: they then decline.
var arity = map[string]int{
	"--unshare-all": 0, "--unshare-user": 0, "--share-net": 0, "--die-with-parent": 0,
	"--new-session": 0, "--disable-userns": 0, "--as-pid-1": 0, "--clearenv": 0,
	"--cap-drop": 1, "--uid": 1, "--gid": 1, "--hostname": 1, "--chdir": 1, "--info-fd": 1,
	"--block-fd": 1, "--sync-fd": 1, "--seccomp": 1, "--tmpfs": 1, "--remount-ro": 1, "--dev": 1, "--proc": 1,
	"--perms": 1, "--size": 1,
	"--setenv": 2, "--bind": 2, "--ro-bind": 2, "--dev-bind": 2, "--symlink": 2,
}

// options calls fn for each option of a command line made by args, with
// its values, and returns what follows "--"; ok is false for anything else.
func options(args []string, fn func(opt string, vals []string)) (command []string, ok bool) {
	for i := 0; i < len(args); {
		if args[i] == "--" {
			return args[i+1:], true
		}
		n, known := arity[args[i]]
		if !known || i+n >= len(args) {
			return nil, false
		}
		fn(args[i], args[i+1:i+1+n])
		i += 1 + n
	}
	return nil, false
}

// wsTargets lists the mount destinations of a command line that lie in
// the workspace (the workspace itself included); nil if it cannot read it.
func wsTargets(args []string, ws string) []string {
	var out []string
	_, ok := options(args, func(opt string, vals []string) {
		dst := ""
		switch opt {
		case "--bind", "--ro-bind", "--dev-bind", "--symlink":
			dst = vals[1]
		case "--tmpfs", "--remount-ro", "--dev", "--proc":
			dst = vals[0]
		}
		if dst != "" && within(dst, ws) && !slices.Contains(out, dst) {
			out = append(out, dst)
		}
	})
	if !ok {
		return nil
	}
	return out
}

// anchored says whether every target's parents, up to the workspace, are
// targets too; false for no targets (a command line wsTargets could not
// read).
func anchored(targets []string, ws string) bool {
	if len(targets) == 0 {
		return false
	}
	for _, t := range targets {
		for p := t; p != ws; {
			if !within(p, ws) {
				return false
			}
			p = filepath.Dir(p)
			if p != ws && !slices.Contains(targets, p) {
				return false
			}
		}
	}
	return true
}

// subset says whether every element of a is in b.
func subset(a []string, b *[]string) bool {
	for _, x := range a {
		if !slices.Contains(*b, x) {
			return false
		}
	}
	return true
}
