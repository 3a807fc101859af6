package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// systemDirs are shown read-only in the box when they exist; a symlink
// among them (/bin -> usr/bin) is recreated as the same symlink. Nothing
// else of the host file system is visible: not /home, /root, /var, /run
// (where daemon sockets live), /srv, /mnt, /media or /sys.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix"}

// mount is one step of the box's file system, kept with its destination so
// the steps can be ordered parents first.
type mount struct {
	dst  string
	args []string
}

func depth(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

// fixedMounts are the steps that do not change between runs: system
// directories, masks under them, /dev, /proc and the private /tmp. Every
// mount costs start-up time, so there are no more than needed.
//
// root is the view's root to bind as the box's / (makeRoot), or "" for a
// bind per system directory and --dev; hidden are the masks findSecrets made.
func (s *Sandbox) fixedMounts(root string, hidden []mount) []string {
	var ms []mount
	if root != "" {
		// The view's root holds what follows for the directories it shows,
		// and /dev (see makeRoot); /dev/shm is each box's own.
		ms = append(ms,
			mount{"/", []string{"--dev-bind", root, "/"}},
			mount{"/dev/shm", []string{"--size", strconv.FormatInt(s.lim.TmpBytes, 10), "--tmpfs", "/dev/shm"}},
		)
	}
	for _, d := range systemDirs {
		if root != "" && (s.hostFS.view.inRoot[d] || filepath.Dir(d) == "/") {
			continue
		}
		fi, err := os.Lstat(d)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			if t, err := os.Readlink(d); err == nil {
				ms = append(ms, mount{d, []string{"--symlink", t, d}})
			}
			continue
		}
		switch {
		case !fi.IsDir():
		case s.hostFS.view != nil:
			// A host-root box sees the system directories through the
			// view; one made after it is not shown.
			if v := s.hostFS.view.path(d); v != "" {
				ms = append(ms, mount{d, []string{"--ro-bind", v, d}})
			}
		default:
			ms = append(ms, mount{d, []string{"--ro-bind", d, d}})
		}
	}
	if root == "" {
		ms = append(ms, mount{"/dev", []string{"--dev", "/dev"}})
	}
	ms = append(ms,
		mount{"/proc", []string{"--proc", "/proc"}},
		mount{"/tmp", []string{"--size", strconv.FormatInt(s.lim.TmpBytes, 10), "--tmpfs", "/tmp"}},
	)
	if s.hostRoot {
		// Kernel settings are read-only: a box whose uid is host root
		// could otherwise write them (core_pattern runs a program as
		// root). Any other box is kept out by their modes (root's, 0644).
		ms = append(ms, mount{"/proc/sys", []string{"--ro-bind", "/proc/sys", "/proc/sys"}})
	}
	if root == "" {
		// /var/tmp is the same private /tmp; /dev/shm lives in bwrap's
		// own /dev tmpfs. Neither costs a mount of its own.
		ms = append(ms, mount{"/var/tmp", []string{"--symlink", "../tmp", "/var/tmp"}})
	}
	if !s.cg.hasMemory() && root == "" {
		// Without a memory cgroup nothing else bounds what /dev/shm holds.
		ms = append(ms, mount{"/dev/shm", []string{"--size", strconv.FormatInt(s.lim.TmpBytes, 10), "--tmpfs", "/dev/shm"}})
	}
	return parentsFirst(append(ms, hidden...))
}

// parentsFirst is the arguments of mounts ordered by the depth of their
// destinations, so that none is hidden by one made after it.
func parentsFirst(ms []mount) []string {
	sort.SliceStable(ms, func(i, j int) bool { return depth(ms[i].dst) < depth(ms[j].dst) })
	var out []string
	for _, m := range ms {
		out = append(out, m.args...)
	}
	return out
}

// secrets is what findSecrets found: the masks (mounts), the policy's
// secret paths under the system directories (masked) and those of them left
// without a mount because their mode keeps the box out (kept).
type secrets struct {
	mounts []mount
	masked []string
	kept   []keptOut
}

// findSecrets finds the masks: files in /proc that show host-wide or
// uid-wide secrets, and masked (what masks found: the policy's secret paths
// under the system directories) but those whose mode keeps the box out.
// Made once, for every command line fixedMounts makes; with a host-root
// box, once the view is made (boxKeptOut depends on it).
func (s *Sandbox) findSecrets(masked []string) secrets {
	var sec secrets
	// Keys of the uid, kernel memory, timers of every process. A box that
	// is not host root gets others' bits on them (they are root's): only
	// those it could read or write are masked. A mapped box is viewID,
	// which owns no keys, and the kernel lists only the keys and key
	// users of the ids the reader's user namespace maps.
	for _, p := range []string{"/proc/keys", "/proc/key-users", "/proc/kcore", "/proc/timer_list", "/proc/sched_debug", "/proc/latency_stats", "/proc/sysrq-trigger"} {
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			continue
		}
		switch {
		case s.hostRoot:
		case s.mapped && (p == "/proc/keys" || p == "/proc/key-users"):
			continue
		case st.Uid == 0 && st.Mode&0o007 == 0:
			continue
		}
		sec.mounts = append(sec.mounts, mount{p, []string{"--ro-bind", "/dev/null", p}})
	}
	if s.hostRoot {
		// Root's by their modes only, so a box that is host root (no
		// capabilities) could write IRQ affinities and PCI devices'
		// settings and read the kernel's heap and page tables; any other
		// box is kept out by the modes.
		for _, p := range []string{"/proc/irq", "/proc/bus", "/proc/scsi", "/proc/driver", "/proc/slabinfo", "/proc/vmallocinfo", "/proc/pagetypeinfo", "/proc/kpagecount", "/proc/kpageflags", "/proc/kpagecgroup"} {
			if fi, err := os.Stat(p); err == nil {
				sec.mounts = append(sec.mounts, mount{p, maskArgs(p, fi.IsDir())})
			}
		}
	}
	sec.masked = masked
	for _, p := range masked {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			// A symlink is not masked itself: its target either lies in a
			// hidden place or is masked by its own entry.
			continue
		}
		if st, ok := s.boxKeptOut(p); ok {
			// Its mode already keeps the box out (no read, write, search
			// or execute for whom the box is): a mask would only cost
			// every box's start a mount. args masks it again once its
			// inode or metadata change.
			sec.kept = append(sec.kept, st)
			continue
		}
		sec.mounts = append(sec.mounts, mount{p, maskArgs(p, fi.IsDir())})
	}
	return sec
}

// rootOnlyTrees are walked for files only root may read when the box's
// processes are host root: they see root's files as their own, so
// everything an ordinary user could not read there is masked. /usr is left
// out: it is large and holds no secrets by convention.
var rootOnlyTrees = []string{"/etc", "/opt", "/usr/local"}

// rootOnlyBudget bounds that walk (directory entries). Past it the walk
// fails closed: every directory not yet looked at is masked whole.
const rootOnlyBudget = 400000

// hostRootFS is how a host-root box is kept from root's files in the
// system directories: a view (view.go) or, where none can be made, the
// root-only entries to mask, found by a walk.
type hostRootFS struct {
	view     *sysView
	rootOnly []string
}

// makeHostRootFS makes a view of the system directories, or walks them
// when it cannot. bash is the view's helper; ws the workspace, of which
// the view makes a mapped copy where it can (mappedBox) and bubblewrap,
// bwrap, can run as viewID.
func makeHostRootFS(bash, ws, bwrap string) hostRootFS {
	var dirs []string
	for _, d := range systemDirs {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			dirs = append(dirs, d)
		}
	}
	if noMapped || !othersRun(bwrap) || !capable(unix.CAP_SETUID) || !capable(unix.CAP_SETGID) {
		// bubblewrap is started as viewID: it must be able to run, and
		// toolgate to give it those ids.
		ws = ""
	}
	if v, err := newSysView(dirs, bash, ws); err == nil {
		return hostRootFS{view: v}
	}
	return hostRootFS{rootOnly: walkRootOnly(rootOnlyTrees, rootOnlyBudget)}
}

// noMapped keeps host-root boxes host root, so tests can exercise the
// idmapped view and the walk.
var noMapped bool

// othersRun says whether any user may run the program at path (absolute):
// it is executable by others and every directory above it searchable.
func othersRun(path string) bool {
	var st unix.Stat_t
	if !filepath.IsAbs(path) || unix.Stat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o001 == 0 {
		return false
	}
	return reachable(path, viewID, viewID)
}

// bwrapPath is the bubblewrap a sandbox with Config.Bwrap bw runs (locate),
// or "".
func bwrapPath(bw string) string {
	if bw == "" {
		bw = "bwrap"
	}
	p, err := exec.LookPath(bw)
	if err != nil {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return ""
}

// prefetch is a hostRootFS Prepare is making for the next New of ws
// running bwrap.
type prefetch struct {
	ws    string
	bwrap string
	done  chan struct{}
	fs    hostRootFS
}

var (
	prefetchMu sync.Mutex
	prefetched *prefetch
)

// Prepare starts, in the background, the start-up work a sandbox for the
// workspace ws will need that depends on nothing the caller knows yet:
// when its box will be host root, the view of the system directories (or
// the walk for root-only files where no view can be made, tens of
// milliseconds on a system with a toolchain in /usr/local). Calling it
// before loading the policy lets the two overlap; the next New for ws takes
// the result. The returned function releases what no New took; call it
// when the caller is done with sandboxes.
func Prepare(ws string) (release func()) {
	if os.Getuid() != 0 {
		return func() {}
	}
	if ws == "" {
		ws = "."
	}
	real, err := realDir(ws)
	if err != nil {
		return func() {}
	}
	if _, _, hostRoot := boxOwner(real); !hostRoot {
		return func() {}
	}
	p := &prefetch{ws: real, bwrap: bwrapPath(""), done: make(chan struct{})}
	prefetchMu.Lock()
	old := prefetched
	prefetched = p
	prefetchMu.Unlock()
	if old != nil {
		go func() { <-old.done; old.fs.view.close() }()
	}
	bash := lookBash()
	go func() {
		defer close(p.done)
		p.fs = makeHostRootFS(bash, real, p.bwrap)
	}()
	return func() {
		prefetchMu.Lock()
		untaken := prefetched == p
		if untaken {
			prefetched = nil
		}
		prefetchMu.Unlock()
		if untaken {
			<-p.done
			p.fs.view.close()
		}
	}
}

// hostRootFSFor returns what Prepare made for ws and bwrap, or makes it.
func hostRootFSFor(ws, bash, bwrap string) hostRootFS {
	prefetchMu.Lock()
	p := prefetched
	if p != nil && p.ws == ws && p.bwrap == bwrap {
		prefetched = nil
	} else {
		p = nil
	}
	prefetchMu.Unlock()
	if p != nil {
		<-p.done
		return p.fs
	}
	return makeHostRootFS(bash, ws, bwrap)
}

// maskArgs hides p in the box: an empty read-only directory over a
// directory, /dev/null over anything else.
func maskArgs(p string, dir bool) []string {
	if dir {
		return []string{"--tmpfs", p, "--remount-ro", p}
	}
	return []string{"--ro-bind", "/dev/null", p}
}

// keptOut is a secret path left unmasked because its mode keeps the box
// out, with what showed that: a chmod, chown, ACL change or replacement
// changes the inode number or the change time.
type keptOut struct {
	path  string
	ino   uint64
	ctime unix.Timespec
}

// boxKeptOut says whether a box could do nothing with the entry at p of a
// system directory (read, write, search or execute it) by its mode bits as
// the box meets them. It answers no when unsure: an entry it cannot look
// at, a link, or one with an access ACL, whose entries the bits do not
// show.
func (s *Sandbox) boxKeptOut(p string) (keptOut, bool) {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return keptOut{}, false
	}
	if _, err := unix.Lgetxattr(p, "system.posix_acl_access", nil); err == nil ||
		!(errors.Is(err, unix.ENODATA) || errors.Is(err, unix.EOPNOTSUPP)) {
		return keptOut{}, false
	}
	if s.boxBits(p, &st) != 0 {
		return keptOut{}, false
	}
	return keptOut{p, st.Ino, st.Ctim}, true
}

// remasks masks again, for one box, each path left unmasked whose inode or
// metadata changed since and which the box may now touch: a secret made
// readable while toolgate runs stays hidden, as it does under a mask.
//
// A path masked on the view (view.mask) is masked again the same way: a
// file replaced on the host is a new inode, which that mount does not
// cover.
func (s *Sandbox) remasks() []string {
	var a []string
	for _, k := range slices.Concat(s.keptOut, s.onView) {
		var st unix.Stat_t
		if unix.Lstat(k.path, &st) != nil {
			continue // gone: nothing to hide
		}
		if st.Ino == k.ino && st.Ctim == k.ctime {
			continue
		}
		if _, ok := s.boxKeptOut(k.path); ok || st.Mode&unix.S_IFMT == unix.S_IFLNK {
			continue
		}
		a = append(a, maskArgs(k.path, st.Mode&unix.S_IFMT == unix.S_IFDIR)...)
	}
	return a
}

// boxBits is the permission triplet that applies to a box for the entry st
// at p of a system directory. A host-root box meets a directory through
// the view as someone else: there root's ids are mapped away and every
// other id is unmapped, so only others' bits apply. Without a view it is
// uid 0 and gid 0 (boxSees). Any other box is a host user without
// capabilities: toolgate's own user with its groups, or the workspace's
// owner with none (bwrap started with those credentials).
func (s *Sandbox) boxBits(p string, st *unix.Stat_t) uint32 {
	if s.hostRoot {
		if s.hostFS.view != nil {
			for _, d := range systemDirs {
				if within(p, d) && s.hostFS.view.path(d) != "" {
					return st.Mode & 7
				}
			}
		}
		return boxSees(st)
	}
	uid, gid := uint32(os.Getuid()), uint32(os.Getgid())
	var groups []int
	if s.cred != nil {
		uid, gid = s.cred.Uid, s.cred.Gid
	} else {
		groups, _ = os.Getgroups()
	}
	switch {
	case st.Uid == uid:
		return st.Mode >> 6 & 7
	case st.Gid == gid || slices.Contains(groups, int(st.Gid)):
		return st.Mode >> 3 & 7
	}
	return st.Mode & 7
}

// boxSees is what a host-root box (uid 0, gid 0, no supplementary groups,
// no capabilities) may do with an entry: the owner's permission bits when
// the entry is root's, the group's when its group is root's, others'
// otherwise.
func boxSees(st *unix.Stat_t) uint32 {
	switch {
	case st.Uid == 0:
		return st.Mode >> 6 & 7
	case st.Gid == 0:
		return st.Mode >> 3 & 7
	}
	return st.Mode & 7
}

// walkRootOnly walks trees for rootOnly. Directories are read on every
// core with raw getdents, and each entry is looked at relative to its open
// directory: the trees can hold tens of thousands of entries (a toolchain
// under /usr/local) and every system call counts. Symbolic links are not
// followed or masked: a link's target is either hidden or has its own
// entry. A directory the box can enter is walked whoever owns it: a
// root-only file inside a user's directory is still root's.
func walkRootOnly(trees []string, budget int64) []string {
	var (
		mu      sync.Mutex
		out     []string
		pending sync.WaitGroup
		left    atomic.Int64
	)
	left.Store(budget)
	add := func(p string) {
		mu.Lock()
		out = append(out, p)
		mu.Unlock()
	}
	dirs := make(chan string, 1024)
	var walk func(dir string, buf []byte)
	walk = func(dir string, buf []byte) {
		defer pending.Done()
		if left.Load() <= 0 {
			add(dir) // not looked at: masked whole
			return
		}
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			if err != unix.ENOENT {
				add(dir) // cannot be read, so cannot be checked
			}
			return
		}
		defer unix.Close(fd)
		var st unix.Stat_t
		for {
			n, err := unix.Getdents(fd, buf)
			if err != nil {
				add(dir)
				return
			}
			if n <= 0 {
				return
			}
			for b := buf[:n]; len(b) >= 19; {
				reclen := int(b[16]) | int(b[17])<<8
				if reclen < 19 || reclen > len(b) {
					add(dir) // a record this walk does not understand
					return
				}
				typ, name := b[18], b[19:reclen]
				b = b[reclen:]
				if i := bytes.IndexByte(name, 0); i >= 0 {
					name = name[:i]
				}
				if len(name) == 0 || string(name) == "." || string(name) == ".." || typ == unix.DT_LNK {
					continue
				}
				if left.Add(-1) < 0 {
					add(dir) // the rest of this directory is not looked at
					return
				}
				if unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
					continue // gone since it was listed
				}
				kind := st.Mode & unix.S_IFMT
				if kind == unix.S_IFLNK {
					continue
				}
				sees := boxSees(&st)
				p := dir + "/" + string(name)
				switch {
				case kind == unix.S_IFDIR && sees&1 == 0:
					// The box cannot enter it either.
				case kind == unix.S_IFDIR && st.Mode&0o001 == 0:
					add(p)
				case kind == unix.S_IFDIR:
					pending.Add(1)
					select {
					case dirs <- p:
					default:
						walk(p, make([]byte, len(buf))) // the queue is full: walk it here
					}
				case sees&4 != 0 && st.Mode&0o004 == 0:
					add(p)
				}
			}
		}
	}
	for _, t := range trees {
		if fi, err := os.Lstat(t); err == nil && fi.IsDir() {
			pending.Add(1)
			dirs <- filepath.Clean(t)
		}
	}
	done := make(chan struct{})
	go func() { pending.Wait(); close(done) }()
	var workers sync.WaitGroup
	for range max(2, runtime.GOMAXPROCS(0)) {
		workers.Add(1)
		go func() {
			defer workers.Done()
			buf := make([]byte, 32<<10)
			for {
				select {
				case d := <-dirs:
					walk(d, buf)
				case <-done:
					return
				}
			}
		}()
	}
	workers.Wait()
	return outermost(out)
}

// outermost sorts paths and drops those inside another of them: a
// directory masked whole leaves nothing under it to mask (and a mount
// inside its read-only tmpfs would fail).
func outermost(paths []string) []string {
	set := make(map[string]bool, len(paths))
	for _, p := range paths {
		set[p] = true
	}
	out := paths[:0]
	for _, p := range paths {
		inside := false
		for d := filepath.Dir(p); d != "/" && d != "."; d = filepath.Dir(d) {
			if set[d] {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// masks expands the configured secret paths that lie inside a visible
// system directory; elsewhere they are hidden already. For a box that is
// host root, the root-only files of the system directories (rootOnly) are
// added.
func (s *Sandbox) masks(rootOnly []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range rootOnly {
		if !within(p, s.ws) {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, m := range s.cfg.Mask {
		if !strings.HasPrefix(m, "/") || strings.HasPrefix(m, "~") || !mayShow(m) {
			continue
		}
		matches, err := filepath.Glob(m)
		if err != nil {
			continue
		}
		for _, p := range matches {
			p = filepath.Clean(p)
			if seen[p] || !visible(p) || within(p, s.ws) {
				continue
			}
			seen[p] = true
			out = append(out, p)
		}
	}
	return outermost(out)
}

// mayShow says whether the pattern m can match inside a system directory
// shown in the box: /proc/*/environ need not list every process of the host.
func mayShow(m string) bool {
	base := m
	if i := strings.IndexAny(m, "*?[\\"); i >= 0 {
		base = filepath.Dir(m[:i+1])
	}
	if base == "/" || visible(base) {
		return true
	}
	for _, d := range systemDirs {
		if within(d, base) {
			return true
		}
	}
	return false
}

// visible says whether p lies in a system directory shown in the box.
func visible(p string) bool {
	for _, d := range systemDirs {
		if within(p, d) {
			return true
		}
	}
	return false
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// args builds the bwrap command line of one run.
func (s *Sandbox) args(req Request) ([]string, error) {
	dir := req.Dir
	if dir == "" {
		dir = s.ws
	}
	if !filepath.IsAbs(dir) {
		return nil, errors.New("working directory must be absolute")
	}
	if !within(filepath.Clean(dir), s.ws) && !visible(dir) {
		return nil, fmt.Errorf("working directory %s is outside the workspace", dir)
	}
	a := make([]string, 0, 96)
	a = append(a, "--unshare-all", "--unshare-user")
	if req.Network {
		a = append(a, "--share-net")
	}
	if s.seccomp == nil {
		// No filter for this architecture to refuse new user namespaces
		// (seccomp.go): bubblewrap does it its own, dearer way.
		a = append(a, "--disable-userns")
	}
	a = append(a,
		"--die-with-parent", "--new-session", "--as-pid-1",
		"--cap-drop", "ALL",
		"--uid", strconv.Itoa(s.uid), "--gid", strconv.Itoa(s.gid),
		"--hostname", "toolgate",
		"--clearenv",
	)
	for _, kv := range s.env {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	if s.fixedDone != nil {
		<-s.fixedDone
	}
	fixed, sealed := s.fixed, s.sealed
	if req.Network && s.fixedOpen != nil {
		// A sealed root has no mount point for resolvConf's target.
		fixed, sealed = s.fixedOpen, false
	}
	a = append(a, fixed...)
	a = append(a, s.remasks()...)

	// The home directory and the workspace, parents first: a workspace in
	// the home directory is mounted over the empty home, a home inside the
	// workspace is hidden over it.
	var ms []mount
	if s.home != "" && s.home != "/" && !visible(s.home) {
		ms = append(ms, mount{s.home, []string{"--perms", "0700", "--size", strconv.FormatInt(s.lim.TmpBytes, 10), "--tmpfs", s.home}})
	}
	guards := append(s.gitGuards(), s.ownFiles()...)
	if src := s.staged(guards); src != "" {
		// the workspace with its guards, staged (stage.go)
		ms = append(ms, mount{s.ws, []string{"--bind", src, s.ws}})
		guards = nil
	} else if s.mapped {
		// The box binds the view's copy, and its guards from it.
		src, err := s.mappedWS()
		if err != nil {
			return nil, err
		}
		if guards, err = fromCopy(guards, s.ws, src); err != nil {
			return nil, err
		}
		ms = append(ms, mount{s.ws, []string{"--bind", src, s.ws}})
	} else {
		ms = append(ms, mount{s.ws, []string{"--bind", s.ws, s.ws}})
	}
	a = append(a, parentsFirst(ms)...)
	a = append(a, guards...)
	if req.Network {
		a = append(a, resolvConf()...)
	}
	if !sealed {
		// The root is bwrap's own tmpfs, or the view's root while it still
		// takes mount points: read-only once the box's mounts are made.
		a = append(a, "--remount-ro", "/")
	}
	a = append(a,
		"--chdir", dir,
		// 5 is the block pipe's other end: bwrap holds it until it execs
		// the command, so the box never sees its end (see startBox).
		"--info-fd", "3", "--block-fd", "4", "--sync-fd", "5",
	)
	if s.seccomp != nil {
		a = append(a, "--seccomp", "6")
	}
	if d := s.directRun(req.Command, dir); d != nil {
		for i := 0; i+1 < len(d.env); i += 2 {
			a = append(a, "--setenv", d.env[i], d.env[i+1])
		}
		a = append(a, "--")
		if s.prologue != "" {
			// The prologue's bash starts the program as its last command,
			// which bash execs without a fork, with PWD, SHLVL and _ as
			// bash -c would have given it (an explicit exec would drop _).
			a = append(a, s.bash, "-c", s.prologue+`"$@"`, "bash")
		}
		return append(a, d.argv...), nil
	}
	if s.prologue != "" {
		return append(a, "--", s.bash, "-c", s.prologue+"exec "+s.bash+` -c "$1"`, "bash", req.Command), nil
	}
	return append(a, "--", s.bash, "-c", req.Command), nil
}

// A mapped box.
//
// A box for a root-owned workspace under a root toolgate used to be host
// uid 0 without capabilities, hardened for it: the system directories seen
// through idmapped copies, /proc/sys read-only and root's keys and timers
// masked, each mask a mount in every box. Where the workspace can be
// idmapped, such a box is instead viewID on the host, an id no one has, and
// sees the workspace through a copy on which root's files are viewID's (and
// what it creates there is root's on disk): on the host it is an ordinary
// user with no files, groups or keys of its own, which the permission bits
// alone keep out of root's files; /proc needs no mask beyond what any
// user's box gets, and the system directories no idmapping.

// mappedWS returns the view's copy of the workspace for a box that binds
// it itself, provided it is still a copy of the workspace: a workspace
// replaced on the host since (another directory at its path) is refused.
func (s *Sandbox) mappedWS() (string, error) {
	v := s.hostFS.view
	var st unix.Stat_t
	if err := unix.Stat(s.ws, &st); err != nil {
		return "", fmt.Errorf("workspace: %w", err)
	}
	if [2]uint64{st.Dev, st.Ino} != v.wsID {
		return "", fmt.Errorf("the workspace %s was replaced after toolgate started; start toolgate again", s.ws)
	}
	return v.ws, nil
}

// fromCopy rewrites the sources of guards (gitGuards, ownFiles) that lie in
// the workspace ws to the same paths in its copy; anything it does not
// know is an error.
func fromCopy(guards []string, ws, copy string) ([]string, error) {
	out := slices.Clone(guards)
	for i := 0; i < len(out); {
		switch out[i] {
		case "--bind", "--ro-bind":
			if i+2 >= len(out) {
				return nil, fmt.Errorf("guards %q: cannot read them", guards)
			}
			if src := out[i+1]; within(src, ws) {
				out[i+1] = copy + strings.TrimPrefix(src, ws)
			}
			i += 3
		case "--tmpfs", "--remount-ro":
			i += 2
		default:
			return nil, fmt.Errorf("guards %q: %s is not a guard", guards, out[i])
		}
	}
	return out, nil
}

// gitGuards makes the workspace repository's hooks and config read-only in
// the box: both hold commands that git on the host runs later, so writing
// them from the box would be a way out of it. The git directory is bound
// onto itself so it is a mount point, which cannot be renamed away and
// replaced by a fresh one. A missing hooks directory is created first (git
// init would have made it) so the box cannot create it. Submodules' git
// directories under .git/modules get the same guards.
// ownFiles mounts Config.ReadOnly read-only and hides Config.Hidden, where
// they lie in the workspace (elsewhere the box cannot change them, and the
// home they would be in is hidden). Each is resolved now: a link the box
// replaces later does not move the mount.
func (s *Sandbox) ownFiles() []string {
	var ms []mount
	add := func(paths []string, hide bool) {
		for _, p := range paths {
			real, err := s.realPath(p)
			if err != nil || !within(real, s.ws) || real == s.ws {
				continue
			}
			fi, err := os.Stat(real)
			switch {
			case err != nil:
			case !hide:
				ms = append(ms, mount{real, []string{"--ro-bind", real, real}})
			case fi.IsDir():
				ms = append(ms, mount{real, []string{"--tmpfs", real, "--remount-ro", real}})
			default:
				ms = append(ms, mount{real, []string{"--ro-bind", "/dev/null", real}})
			}
		}
	}
	add(s.cfg.ReadOnly, false)
	add(s.cfg.Hidden, true)
	return parentsFirst(ms)
}

func (s *Sandbox) gitGuards() []string {
	gitDir := filepath.Join(s.ws, ".git")
	fi, err := os.Lstat(gitDir)
	if err != nil {
		return nil
	}
	if fi.Mode().IsRegular() {
		// A worktree or submodule: ".git" names the real git directory.
		b, err := os.ReadFile(gitDir)
		if err != nil {
			return nil
		}
		line, _, _ := strings.Cut(string(b), "\n")
		p, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok {
			return nil
		}
		p = strings.TrimSpace(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.ws, p)
		}
		gitDir = p
	} else if !fi.IsDir() {
		return nil
	}
	real, err := s.realPath(gitDir)
	if err != nil || !within(real, s.ws) {
		return nil // outside the workspace: not writable in the box anyway
	}
	a := []string{"--bind", real, real}
	dirs := []string{real}
	budget := 64
	for i := 0; i < len(dirs) && budget > 0; i++ {
		ents, _ := os.ReadDir(filepath.Join(dirs[i], "modules"))
		for _, e := range ents {
			if e.IsDir() && budget > 0 {
				budget--
				dirs = append(dirs, filepath.Join(dirs[i], "modules", e.Name()))
			}
		}
	}
	for _, d := range dirs {
		for _, name := range []string{"hooks", "config", "commondir", "config.worktree", "info"} {
			p := filepath.Join(d, name)
			target, err := s.realPath(p)
			if errors.Is(err, os.ErrNotExist) && name == "hooks" {
				if os.Mkdir(p, 0o755) == nil {
					target, err = s.realPath(p)
				}
			}
			// Only what the box could write needs guarding: a target
			// outside the workspace is read-only or hidden there already.
			if err == nil && within(target, s.ws) {
				a = append(a, "--ro-bind", target, target)
			}
		}
	}
	return a
}

// resolvConf makes name resolution work in a box with network: on many
// hosts /etc/resolv.conf is a symlink into /run, which the box does not
// show, so its target is shown read-only.
func resolvConf() []string {
	real, err := filepath.EvalSymlinks("/etc/resolv.conf")
	if err != nil || visible(real) {
		return nil
	}
	return []string{"--ro-bind", real, real}
}
