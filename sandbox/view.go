package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A host-root box (toolgate is root, the workspace is root's) is host uid 0
// without capabilities: by the owner and group permission bits it could
// read every file of root's that an ordinary user cannot. Rather than find
// and mask each such file, the box is shown the system directories through
// idmapped mounts (Linux 5.12 and later) on which files of uid 0 and gid 0
// belong to an id no process has, and every other owner is unmapped: the
// box gets the "other" permission bits on every file there, what an
// ordinary user gets. That covers /usr too, and files made root-only after
// toolgate started. Where the kernel or a file system cannot idmap, the
// walk for root-only files (bwrap.go) is used instead.
//
// bubblewrap binds only paths, so the idmapped trees are attached under a
// staging directory of this process: a private tmpfs in a directory only
// root may enter, which no box shows. close removes it; after a crash the
// next toolgate that makes a view removes it.

// noViews makes no view, so tests can exercise the walk.
var noViews bool

// newUserns makes the user namespace of a view; tests swap it, and set
// noKeep so that no kept one is used instead.
var (
	newUserns = idmapUserns
	noKeep    bool
)

// viewID is the host uid and gid root's files appear as on a view.
const viewID = 0x7ffffff0

// sysView is the system directories as a host-root box sees them.
type sysView struct {
	dir   string            // the staging tmpfs
	paths map[string]string // system directory → its idmapped copy
	// root, when set, is a box's root as far as it is the same for every
	// box (makeRoot); inRoot are the system directories it shows.
	root   string
	inRoot map[string]bool
	// ns is the mount namespace the view's mounts are in (mountns.go);
	// nil for the host's, where none of toolgate's own could be made.
	ns *mountNS
	// ws, when set, is a writable copy of the workspace on which uid and
	// gid 0 are viewID, for a box that is viewID on the host (a mapped
	// box, see mappedBox); the copies of the system directories are then
	// plain read-only binds. wsID is the workspace's device and inode it
	// was made of; nsfd the user namespace of the mapping, kept open for
	// the workspace staged later (stage.go).
	ws   string
	wsID [2]uint64
	nsfd int
}

// viewBase is the root-only directory that holds the staging directories.
func viewBase() (string, error) {
	base := "/run/toolgate"
	if fi, err := os.Stat("/run"); err != nil || !fi.IsDir() {
		base = filepath.Join(os.TempDir(), "toolgate-root")
	}
	if err := os.Mkdir(base, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	var st unix.Stat_t
	if err := unix.Lstat(base, &st); err != nil {
		return "", err
	}
	// Someone else's directory, or one others may enter, would let them at
	// the views.
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Uid != 0 || st.Mode&0o077 != 0 {
		return "", fmt.Errorf("%s is not a directory only root may enter", base)
	}
	return base, nil
}

// newSysView attaches an idmapped, read-only copy of each directory of dirs
// (absolute, real directories) under a fresh staging directory. helper is
// bash, used when there is no cat: either waits while its standard input is
// open, holding the user namespace that carries the mapping while the
// mounts are made.
//
// With ws set (the workspace, when the box may be a mapped one) it first
// tries a writable idmapped copy of ws; where that works, the box will be
// viewID on the host rather than root, and the system directories need no
// idmapping: their copies are plain.
func newSysView(dirs []string, helper, ws string) (v *sysView, err error) {
	if noViews {
		return nil, errors.New("views are off")
	}
	base, err := viewBase()
	if err != nil {
		return nil, err
	}
	removeStaleViews(base)
	// The mount namespace is made meanwhile (once per process).
	go ownMountNS()
	nsfd, err := viewUserns(base, helper)
	if err != nil {
		return nil, err
	}
	defer func() {
		if v == nil || v.ws == "" {
			unix.Close(nsfd)
		}
	}()

	var nonce [6]byte
	_, _ = rand.Read(nonce[:])
	dir := filepath.Join(base, "view-"+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(nonce[:]))
	v = &sysView{dir: dir, paths: map[string]string{}, nsfd: -1}
	if ns, err := ownMountNS(); err == nil {
		v.ns = ns
	}
	var host unix.Stat_t
	if v.ns == nil || unix.Stat(ws, &host) != nil || !viewIDMayBox(base) {
		// bubblewrap running as viewID could not enter the staging
		// directory in the host's namespace, which only root may, or
		// could not make a box at all.
		ws = ""
	}
	v.wsID = [2]uint64{host.Dev, host.Ino}
	if !v.ns.do(func() { err = v.attach(dirs, nsfd, ws, v.ns != nil) }) {
		err = errGone
	}
	if err != nil {
		v = nil
		return nil, err
	}
	if v.ws != "" {
		v.nsfd = nsfd
	}
	return v, nil
}

// attach makes the staging directory with the copies of dirs and the
// root, in the view's namespace; on error nothing is left.
func (v *sysView) attach(dirs []string, nsfd int, ws string, private bool) (err error) {
	dir := v.dir
	mode := "0700"
	if private {
		if err := privateBase(filepath.Dir(dir)); err != nil {
			return err
		}
		// bubblewrap, as viewID, must reach the copies: the base is this
		// namespace's own, so no one else can.
		mode = "0711"
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	mounted := false
	defer undoOnError(&err, dir, &mounted)
	// A tmpfs of its own, made private: the trees attached in it do not
	// propagate to other mount namespaces.
	if err := unix.Mount("toolgate-view", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode="+mode+",size=64k"); err != nil {
		return fmt.Errorf("staging tmpfs: %w", err)
	}
	mounted = true
	if err := unix.Mount("", dir, "", unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("staging tmpfs: %w", err)
	}
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		return err
	}
	if err := unix.Mount("toolgate-root", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=256k"); err != nil {
		return fmt.Errorf("root tmpfs: %w", err)
	}
	if ws != "" {
		// The workspace first: where it cannot be idmapped (a kernel or a
		// file system without idmapped mounts) the box stays host root and
		// the system directories are idmapped instead.
		// It must be the directory the host has there: a file system
		// mounted on the host after this namespace was made is not in it
		// where the host's mounts do not propagate (mountns.go).
		var st unix.Stat_t
		dst := filepath.Join(dir, "workspace")
		if unix.Stat(ws, &st) == nil && [2]uint64{st.Dev, st.Ino} == v.wsID && copyTree(ws, dst, nsfd, false) == nil {
			v.ws = dst
		} else {
			_ = os.Remove(dst)
		}
	}
	v.inRoot = map[string]bool{}
	for _, d := range dirs {
		dst := filepath.Join(dir, strings.ReplaceAll(strings.TrimPrefix(d, "/"), "/", "_"))
		if filepath.Dir(d) == "/" && !boxOwn[d] {
			dst = filepath.Join(root, d)
			v.inRoot[d] = true
		}
		fd := nsfd
		if v.ws != "" {
			fd = -1 // a mapped box is no one's on the host: a plain copy
		}
		if err := copyTree(d, dst, fd, true); err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		v.paths[d] = dst
	}
	if err := makeRoot(root); err != nil {
		// The boxes bind each copy themselves, as before there was a root.
		v.inRoot = nil
		return nil
	}
	v.root = root
	return nil
}

// undoOnError, deferred by what makes a mount point dir, takes back what it
// attached there (when *attached) and the directory, if *err is set.
func undoOnError(err *error, dir string, attached *bool) {
	if *err == nil {
		return
	}
	if *attached {
		_ = unix.Unmount(dir, unix.MNT_DETACH)
	}
	_ = os.Remove(dir)
}

// boxOwn are the top-level directories every box mounts for itself.
var boxOwn = map[string]bool{"/dev": true, "/proc": true, "/tmp": true, "/var": true}

// makeRoot completes, around the idmapped copies attached in it, the part
// of a box's file system that is the same for every box: the system
// directories that are links on the host (/bin -> usr/bin), /dev with the
// device nodes and links bubblewrap's --dev gives and a pty instance of
// its own, /var/tmp leading to the box's /tmp, and the mount points of
// what each box mounts itself (/proc, /tmp, /dev/shm). A box binds it as
// its root with one mount, read-only once its own mounts are made:
// bubblewrap reads the whole mount table after every bind, and the dozen
// binds this replaces were a fifth of a box's start.
//
// /dev is a tmpfs of its own, read-only once made, whose device nodes are
// made rather than bound (a bind is one more line in that mount table and
// one more mount bubblewrap remounts): the box's read-only root is also
// nodev, /dev is not. Only root makes nodes, and no box can write there.
func makeRoot(root string) error {
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 || filepath.Dir(d) != "/" {
			continue
		}
		t, err := os.Readlink(d)
		if err != nil {
			return err
		}
		if err := os.Symlink(t, filepath.Join(root, d)); err != nil {
			return err
		}
	}
	for _, d := range []string{"proc", "tmp", "var", "dev"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.Symlink("../tmp", filepath.Join(root, "var", "tmp")); err != nil {
		return err
	}
	dev := filepath.Join(root, "dev")
	if err := unix.Mount("toolgate-dev", dev, "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return fmt.Errorf("/dev tmpfs: %w", err)
	}
	for _, d := range []string{"shm", "pts"} {
		if err := os.Mkdir(filepath.Join(dev, d), 0o755); err != nil {
			return err
		}
	}
	links := [][2]string{
		{"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"}, {"/proc/self/fd/1", "stdout"},
		{"/proc/self/fd/2", "stderr"}, {"/proc/kcore", "core"}, {"pts/ptmx", "ptmx"},
	}
	for _, l := range links {
		if err := os.Symlink(l[0], filepath.Join(dev, l[1])); err != nil {
			return err
		}
	}
	for _, n := range []string{"null", "zero", "full", "random", "urandom", "tty"} {
		var st unix.Stat_t
		if err := unix.Stat(filepath.Join("/dev", n), &st); err != nil {
			return fmt.Errorf("/dev/%s: %w", n, err)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFCHR {
			return fmt.Errorf("/dev/%s is not a character device", n)
		}
		p := filepath.Join(dev, n)
		if err := unix.Mknod(p, unix.S_IFCHR|0o600, int(st.Rdev)); err != nil {
			return fmt.Errorf("/dev/%s: %w", n, err)
		}
		if err := unix.Chmod(p, st.Mode&0o777); err != nil {
			return err
		}
	}
	if err := unix.Mount("devpts", filepath.Join(dev, "pts"), "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620"); err != nil {
		return fmt.Errorf("devpts: %w", err)
	}
	if err := unix.Mount("", dev, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("/dev read-only: %w", err)
	}
	return nil
}

// copyTree attaches at dst (made here, or there already when it is an
// empty directory) a copy of the mount tree at src, nosuid and nodev,
// read-only if readOnly. With nsfd >= 0 the copy is idmapped as that
// user namespace maps ids (idMap: 0 is viewID).
func copyTree(src, dst string, nsfd int, readOnly bool) error {
	fd, err := unix.OpenTree(unix.AT_FDCWD, src, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return fmt.Errorf("open_tree: %w", err)
	}
	defer unix.Close(fd)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}
	if readOnly {
		attr.Attr_set |= unix.MOUNT_ATTR_RDONLY
	}
	if nsfd >= 0 {
		attr.Attr_set |= unix.MOUNT_ATTR_IDMAP
		attr.Userns_fd = uint64(nsfd)
	}
	if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
		return fmt.Errorf("mount_setattr: %w", err)
	}
	if err := os.Mkdir(dst, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, dst, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount: %w", err)
	}
	return nil
}

// viewIDMayBox says whether bubblewrap running as viewID can make a box
// whose copies lie in base: it can pass through base's parents, and the
// kernel lets an ordinary user make user namespaces (Debian's
// unprivileged_userns_clone, user.max_user_namespaces, Ubuntu's AppArmor
// restriction, which a root toolgate's bwrap never met).
func viewIDMayBox(base string) bool {
	for f, off := range map[string]string{
		"/proc/sys/kernel/unprivileged_userns_clone":             "0",
		"/proc/sys/user/max_user_namespaces":                     "0",
		"/proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1",
	} {
		if b, err := os.ReadFile(f); err == nil && strings.TrimSpace(string(b)) == off {
			return false
		}
	}
	return reachable(base, viewID, viewID)
}

// privateBase makes base, in toolgate's own mount namespace, a tmpfs of
// that namespace (once): the views made in it are then out of every other
// namespace's reach whatever its mode, and its mode lets bubblewrap
// running as viewID pass through it. On the host base stays the
// directory only root may enter (viewBase).
func privateBase(base string) error {
	var fs unix.Statfs_t
	if unix.Statfs(base, &fs) == nil && fs.Type == unix.TMPFS_MAGIC {
		var st, parent unix.Stat_t
		if unix.Stat(base, &st) == nil && unix.Stat(filepath.Dir(base), &parent) == nil && st.Dev != parent.Dev {
			return nil // mounted here already
		}
	}
	if err := unix.Mount("toolgate-base", base, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0711,size=64k"); err != nil {
		return fmt.Errorf("staging base: %w", err)
	}
	return unix.Mount("", base, "", unix.MS_PRIVATE, "")
}

// idmapUserns returns a descriptor of a user namespace that maps only id 0,
// to viewID on the host. A process is needed to make one (a multithreaded
// process cannot unshare its own); it is gone when this returns.
// unshare(1) makes it in itself, started the cheap way (vfork and exec);
// without it, a child of toolgate's is forked into the namespace, which
// copies toolgate's page tables and makes every page toolgate writes next
// fault once (a one-call run spent more on that than on its box's setup).
func idmapUserns(helper string) (int, error) {
	if fd, err := unshareUserns(helper); err == nil {
		return fd, nil
	}
	return forkUserns(helper)
}

// keptName is the file in the view base on which the view's user
// namespace is kept (bind-mounted) from one toolgate process to the next.
const keptName = "userns"

// viewUserns returns a descriptor of a user namespace that maps id 0, and
// only it, to viewID: the one kept in base if there is a sound one, else a
// new one (newUserns), which it then keeps. Making one starts a process,
// the largest part of a one-call run's start; a namespace lives on while
// its file is mounted somewhere, and a mapping once written never changes.
// base is root's alone (viewBase), so only root could have put another
// namespace there; each kept one is checked all the same (checkUserns).
func viewUserns(base, helper string) (int, error) {
	if noKeep {
		return newUserns(helper)
	}
	kept := filepath.Join(base, keptName)
	if fd, err := openKept(kept); err == nil {
		if checkUserns(fd, base) == nil {
			return fd, nil
		}
		unix.Close(fd)
		// Not what toolgate keeps there: taken off, replaced below.
		_ = unix.Unmount(kept, unix.MNT_DETACH)
		_ = os.Remove(kept)
	}
	fd, err := newUserns(helper)
	if err != nil {
		return -1, err
	}
	if err := checkUserns(fd, base); err != nil {
		unix.Close(fd)
		return -1, err
	}
	keep(fd, kept)
	return fd, nil
}

// openKept opens the namespace kept at path; an error when there is none
// (no file, or a file that is not a user namespace's).
func openKept(path string) (int, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return -1, err
	}
	var fs unix.Statfs_t
	if err := unix.Fstatfs(fd, &fs); err != nil || fs.Type != unix.NSFS_MAGIC {
		unix.Close(fd)
		return -1, errors.New("no namespace kept")
	}
	if t, err := unix.IoctlRetInt(fd, unix.NS_GET_NSTYPE); err != nil || t != unix.CLONE_NEWUSER {
		unix.Close(fd)
		return -1, errors.New("the namespace kept is no user namespace")
	}
	return fd, nil
}

// keep mounts the namespace nsfd names on a new file at path, for the next
// toolgate. Another toolgate may be keeping its own at the same moment:
// the one that makes the file keeps its namespace, the other keeps none.
// A file left without its mount (a toolgate killed in between) is taken
// over once it is a few seconds old.
func keep(nsfd int, path string) {
	for range 2 {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			if unix.Mount("/proc/self/fd/"+strconv.Itoa(nsfd), path, "", unix.MS_BIND, "") != nil {
				_ = os.Remove(path)
			}
			return
		}
		var st, dir unix.Stat_t
		if !errors.Is(err, os.ErrExist) || unix.Lstat(path, &st) != nil || unix.Stat(filepath.Dir(path), &dir) != nil {
			return
		}
		// A mount shows another device than its directory's.
		unmounted := st.Mode&unix.S_IFMT == unix.S_IFREG && st.Dev == dir.Dev
		if !unmounted || time.Since(time.Unix(st.Mtim.Unix())) < 5*time.Second {
			return
		}
		_ = os.Remove(path)
	}
}

// checkUserns checks that nsfd maps ids as idMap says, on an idmapped copy
// of probe (a directory of root's only, the view base) that is never
// attached anywhere: probe itself is viewID's there, and of the two files
// it keeps in probe, one of an ordinary id shows as its own and one of
// viewID's as nobody's (unmapped).
func checkUserns(nsfd int, probe string) error {
	other, top := filepath.Join(probe, "id-other"), filepath.Join(probe, "id-view")
	for f, id := range map[string]int{other: 4242, top: viewID} {
		if err := idFile(f, id); err != nil {
			return err
		}
	}
	fd, err := unix.OpenTree(unix.AT_FDCWD, probe, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return fmt.Errorf("open_tree: %w", err)
	}
	defer unix.Close(fd)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP, Userns_fd: uint64(nsfd)}
	if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		return fmt.Errorf("idmap: %w", err)
	}
	var st, orig unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if err := unix.Stat(probe, &orig); err != nil {
		return err
	}
	if orig.Uid != 0 || st.Uid != viewID || (orig.Gid == 0) != (st.Gid == viewID) {
		return fmt.Errorf("the user namespace shows %s (%d:%d) as %d:%d, not as %d", probe, orig.Uid, orig.Gid, st.Uid, st.Gid, viewID)
	}
	for name, want := range map[string]uint32{"id-other": 4242, "id-view": overflowID()} {
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		if st.Uid != want || st.Gid != want {
			return fmt.Errorf("the user namespace shows %s as %d:%d, not as %d", filepath.Join(probe, name), st.Uid, st.Gid, want)
		}
	}
	return nil
}

// idFile makes path a regular file of id's (uid and gid), if it is not:
// made under another name and renamed over path, so that toolgates
// starting together each see a whole one.
func idFile(path string, id int) error {
	var st unix.Stat_t
	if unix.Lstat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Uid == uint32(id) && st.Gid == uint32(id) {
		return nil
	}
	tmp := path + "." + strconv.Itoa(os.Getpid())
	_ = os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	if err := os.Lchown(tmp, id, id); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// overflowID is the id the kernel shows for an unmapped one.
func overflowID() uint32 {
	b, err := os.ReadFile("/proc/sys/kernel/overflowuid")
	if err != nil {
		return 65534
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 65534
	}
	return uint32(n)
}

// holder is the command that holds a user namespace while its mapping is
// written: cat, or helper (bash) where there is no cat, each waiting while
// its standard input is open.
func holder(helper string) []string {
	if cat, err := exec.LookPath("cat"); err == nil {
		return []string{cat} // starts faster
	}
	return []string{helper, "-c", "read -r _"}
}

// idMap is the mapping of a view's user namespace: id 0 is viewID, and
// every id from 1 to viewID-1 is itself. An unmapped owner or group makes
// an inode unwritable on an idmapped mount (whatever its mode), so a
// mapped box's workspace keeps its other owners' and groups' files as
// their modes say; on the system directories' copies the host-root box,
// ids 0 only, gets others' bits on them either way. viewID itself, and
// everything above it, stays unmapped: only root's files are viewID's.
var idMap = "0 " + strconv.Itoa(viewID) + " 1\n1 1 " + strconv.Itoa(viewID-1) + "\n"

// unshareUserns has `unshare --user` enter a new user namespace and hold
// it, waits until it has (its namespace link changes), and writes the
// mapping: root of the parent namespace may write any.
func unshareUserns(helper string) (int, error) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return -1, err
	}
	self, err := os.Readlink("/proc/self/ns/user")
	if err != nil {
		return -1, err
	}
	cmd := exec.Command(unshare, append([]string{"--user", "--"}, holder(helper)...)...)
	cmd.Env = []string{}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return -1, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		stdin.Close()
		return -1, err
	}
	defer func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	// The child is not reaped before the deferred Wait, so its pid names
	// it throughout; once it is gone (unshare failed) its links are too.
	proc := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/"
	deadline := time.Now().Add(2 * time.Second)
	for {
		ns, err := os.Readlink(proc + "ns/user")
		if err != nil {
			return -1, fmt.Errorf("unshare: %w", err)
		}
		if ns != self {
			break
		}
		if time.Now().After(deadline) {
			return -1, errors.New("unshare did not enter a user namespace")
		}
		time.Sleep(50 * time.Microsecond)
	}
	fd, err := unix.Open(proc+"ns/user", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, f := range [][2]string{{"uid_map", idMap}, {"setgroups", "deny"}, {"gid_map", idMap}} {
		if err := os.WriteFile(proc+f[0], []byte(f[1]), 0); err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("user namespace %s: %w", f[0], err)
		}
	}
	// A map is written once, so the one just written is the namespace's
	// own, provided the holder is still in the namespace fd names: one
	// that moved on would leave fd an unmapped (or another's) namespace.
	var st unix.Stat_t
	now, err := os.Readlink(proc + "ns/user")
	if err == nil {
		err = unix.Fstat(fd, &st)
	}
	if err != nil || now != "user:["+strconv.FormatUint(st.Ino, 10)+"]" {
		unix.Close(fd)
		return -1, fmt.Errorf("user namespace: the holder left the namespace being mapped (%s, %v)", now, err)
	}
	return fd, nil
}

// forkUserns starts the holder in a new user namespace with the mapping,
// the way Go does it: a full fork, since the child waits for the mapping.
func forkUserns(helper string) (int, error) {
	argv := holder(helper)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return -1, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: viewID, Size: 1}, {ContainerID: 1, HostID: 1, Size: viewID - 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: viewID, Size: 1}, {ContainerID: 1, HostID: 1, Size: viewID - 1}},
		Pdeathsig:   syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		stdin.Close()
		return -1, fmt.Errorf("user namespace: %w", err)
	}
	fd, err := unix.Open("/proc/"+strconv.Itoa(cmd.Process.Pid)+"/ns/user", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	stdin.Close()
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if err != nil {
		return -1, fmt.Errorf("user namespace: %w", err)
	}
	return fd, nil
}

// path returns the idmapped copy of system directory d, or "".
func (v *sysView) path(d string) string {
	if v == nil {
		return ""
	}
	return v.paths[d]
}

// close detaches the staging tmpfs with everything in it and removes its
// directory. Boxes still running keep their own copies of the mounts.
func (v *sysView) close() {
	if v == nil {
		return
	}
	v.ns.do(func() {
		_ = unix.Unmount(v.dir, unix.MNT_DETACH)
		_ = os.Remove(v.dir)
	})
	_ = os.Remove(v.dir)
	if v.nsfd >= 0 {
		unix.Close(v.nsfd)
		v.nsfd = -1
	}
}

// removeStaleViews removes the staging directories of toolgate processes
// that are gone (killed before they could).
func removeStaleViews(base string) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "view-")
		if !ok {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() || unix.Kill(pid, 0) != unix.ESRCH {
			continue
		}
		p := filepath.Join(base, e.Name())
		_ = unix.Unmount(p, unix.MNT_DETACH)
		_ = os.Remove(p)
	}
}

// seal makes the view's root read-only for good, once it has the mount
// points boxes of workspace ws with home home need (a box cannot make
// them in a read-only root): those of ws and home, where they lie outside
// the system directories (whose copies show them) and outside /tmp and
// /var/tmp (each box's own tmpfs). It says whether it did; a root left
// open is remounted read-only by each box after its mounts, which costs
// the box a read of the mount table.
func (v *sysView) seal(ws, home string) (sealed bool) {
	if v == nil || v.root == "" {
		return false
	}
	v.ns.do(func() { sealed = v.sealRoot(ws, home) })
	return sealed
}

func (v *sysView) sealRoot(ws, home string) bool {
	for _, p := range []string{ws, home} {
		if p == "" || p == "/" || !filepath.IsAbs(p) || within(p, "/tmp") || within(p, "/var/tmp") || visible(p) {
			continue
		}
		dst := filepath.Join(v.root, p)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return false
		}
		// Nothing on the way may be a link: the mount point must be where
		// bubblewrap will look for it.
		if real, err := filepath.EvalSymlinks(dst); err != nil || real != dst {
			return false
		}
	}
	if err := unix.Mount("", v.root, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return false
	}
	return true
}

// mask mounts the masks of ms whose paths lie below a directory the view
// shows on its copy there, once, rather than on each box's command line
// (bubblewrap binds the copies with what is mounted below them, and reads
// the whole mount table after each mount it makes). It returns the others
// and those it could not mount, and the ones it mounted as they were
// then: a file replaced on the host is another inode, which the mount
// does not cover (remasks masks it in each box then). A mask is what a
// box's would be: an empty read-only tmpfs over a directory, /dev/null
// bound read-only and nodev (so that it cannot be opened) over anything
// else. Only in toolgate's own mount namespace (mountns.go).
func (v *sysView) mask(ms []mount) (rest []mount, held []keptOut) {
	if v == nil || v.ns == nil {
		// In the host's namespace a mask would make the path busy there.
		return ms, nil
	}
	v.ns.do(func() {
		for _, m := range ms {
			if k, ok := v.maskOne(m.dst); ok {
				held = append(held, k)
			} else {
				rest = append(rest, m)
			}
		}
	})
	return rest, held
}

func (v *sysView) maskOne(p string) (keptOut, bool) {
	// the innermost directory shown that holds p: its copy is the one
	// the box sees p through
	d := ""
	for c := range v.paths {
		if p != c && within(p, c) && len(c) > len(d) {
			d = c
		}
	}
	if d == "" {
		return keptOut{}, false
	}
	dst := v.paths[d] + strings.TrimPrefix(p, d)
	// Nothing on the way may be a link: the mask must be where the box
	// looks for p.
	if real, err := filepath.EvalSymlinks(dst); err != nil || real != dst {
		return keptOut{}, false
	}
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return keptOut{}, false
	}
	k := keptOut{p, st.Ino, st.Ctim}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return k, unix.Mount("toolgate-mask", dst, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0755,size=4k") == nil
	}
	if err := unix.Mount("/dev/null", dst, "", unix.MS_BIND, ""); err != nil {
		return keptOut{}, false
	}
	if err := unix.Mount("", dst, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		_ = unix.Unmount(dst, unix.MNT_DETACH)
		return keptOut{}, false
	}
	return k, true
}

// mountNS returns the namespace the view's mounts are in (nil: the host's).
func (v *sysView) mountNS() *mountNS {
	if v == nil {
		return nil
	}
	return v.ns
}

// rootDir returns the view's root (makeRoot), or "".
func (v *sysView) rootDir() string {
	if v == nil {
		return ""
	}
	return v.root
}

// ReplayRoot makes at dir what a view's root is (makeRoot) without the
// idmapping, the system directories bound read-only, so that a benchmark
// can replay a command line that binds a root after the toolgate that made
// it is gone, at the same number of mounts. Root only; remove undoes it.
func ReplayRoot(dir string) (remove func(), err error) {
	if err := unix.Mount("toolgate-replay", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=256k"); err != nil {
		return nil, err
	}
	remove = func() { _ = unix.Unmount(dir, unix.MNT_DETACH) }
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() || filepath.Dir(d) != "/" || boxOwn[d] {
			continue
		}
		dst := filepath.Join(dir, d)
		if err = os.Mkdir(dst, 0o755); err == nil {
			err = unix.Mount(d, dst, "", unix.MS_BIND|unix.MS_REC, "")
		}
		if err == nil {
			err = unix.Mount("", dst, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "")
		}
		if err != nil {
			remove()
			return nil, fmt.Errorf("%s: %w", d, err)
		}
	}
	if err := makeRoot(dir); err != nil {
		remove()
		return nil, err
	}
	return remove, nil
}
