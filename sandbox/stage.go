package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// A run's box binds the workspace and then mounts its guards inside it:
// the repository's git directory onto itself, its hooks and config
// read-only (gitGuards), toolgate's own files read-only or hidden
// (ownFiles). Each mount costs the box a read of the whole mount table,
// and in a repository these are three mounts more than the workspace's
// own. A run's sandbox on a view (host-root boxes, one box at a time)
// therefore stages the workspace once: it binds it below the view's
// staging directory, in toolgate's own mount namespace (mountns.go: in
// the host's, the guards would make .git/config and the rest busy for
// the host's git), mounts the same guards there, and each box binds that
// tree (bubblewrap binds recursively) with one mount.
//
// A staged tree is what the guards were when it was made: the same mount
// arguments over the same files. Each box's command line is worked out as
// before and compared, with the device and inode of the workspace and of
// every path the guards name (a directory replaced on the host is another
// inode: the staged bind would still show the old one). Anything else
// stages a new tree under a new name, so a box made ahead on the old one
// has another command line and is not used (warm.go). The last few trees
// stay attached for boxes still being made on them.
//
// Not covered: a file system mounted below the workspace, or unmounted
// there, after the tree was staged shows in boxes as it was then (files
// themselves are live: the tree is the workspace, bound).

// stagedKept is how many staged trees stay attached.
const stagedKept = 3

// stagedWS is the workspace as staged.
type stagedWS struct {
	mu   sync.Mutex
	key  string
	dirs []string // attached trees, oldest first; the last is current
	gen  int
	off  bool // staging failed once: boxes mount the guards themselves
}

// staged returns the tree to bind as the workspace for the guards (the
// arguments gitGuards and ownFiles gave), or "" when the box must bind
// the workspace and mount them itself.
func (s *Sandbox) staged(guards []string) string {
	v := s.hostFS.view
	if v == nil || v.ns == nil || !s.cfg.Sequential {
		// In the host's mount namespace the guards would make the
		// workspace's paths busy there (mountns.go).
		return ""
	}
	st := &s.stage
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.off {
		return ""
	}
	key, ok := stageKey(s.ws, guards)
	if !ok {
		return ""
	}
	if key == st.key && len(st.dirs) > 0 {
		return st.dirs[len(st.dirs)-1]
	}
	var host unix.Stat_t
	if unix.Stat(s.ws, &host) != nil {
		return ""
	}
	st.gen++
	dir := filepath.Join(v.dir, "ws-"+strconv.Itoa(st.gen))
	err := errGone
	v.ns.do(func() { err = stageWS(dir, s.ws, guards, v.nsfd, [2]uint64{host.Dev, host.Ino}) })
	if err != nil {
		// Not worth trying for every box: they mount the guards themselves.
		st.off = true
		return ""
	}
	st.key = key
	st.dirs = append(st.dirs, dir)
	for len(st.dirs) > stagedKept {
		old := st.dirs[0]
		v.ns.do(func() { unstage(old) })
		st.dirs = st.dirs[1:]
	}
	return dir
}

// stageKey identifies the guards and the files they are on.
func stageKey(ws string, guards []string) (string, bool) {
	var b strings.Builder
	// A file removed and made again may get the same inode number; its
	// birth time tells them apart (the change time where there is none,
	// which moves with each change to a directory's entries too).
	stamp := func(p string) bool {
		var st unix.Statx_t
		if err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS|unix.STATX_BTIME, &st); err != nil {
			return false
		}
		born := st.Ctime
		if st.Mask&unix.STATX_BTIME != 0 {
			born = st.Btime
		}
		fmt.Fprintf(&b, "%s\x00%d:%d:%d:%o:%d.%d\x00", p, st.Dev_major, st.Dev_minor, st.Ino, st.Mode&unix.S_IFMT, born.Sec, born.Nsec)
		return true
	}
	if !stamp(ws) {
		return "", false
	}
	for _, a := range guards {
		b.WriteString(a)
		b.WriteByte(0)
		if filepath.IsAbs(a) && within(a, ws) && !stamp(a) {
			return "", false
		}
	}
	return b.String(), true
}

// stageWS binds ws at dir (made here), private, and mounts guards in it as
// bubblewrap would in the box. With nsfd >= 0 (a mapped box's view) the
// bind is a writable idmapped copy (copyTree). id is the device and inode
// the host has at ws: a namespace that sees another directory there (a
// mount the host made later, not propagated: mountns.go) stages nothing.
// On error nothing is left at dir.
func stageWS(dir, ws string, guards []string, nsfd int, id [2]uint64) (err error) {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	attached := false
	defer undoOnError(&err, dir, &attached)
	var here unix.Stat_t
	if err := unix.Stat(ws, &here); err != nil {
		return err
	}
	if [2]uint64{here.Dev, here.Ino} != id {
		return fmt.Errorf("%s here is not the host's", ws)
	}
	if nsfd >= 0 {
		err = copyTree(ws, dir, nsfd, false)
	} else {
		err = unix.Mount(ws, dir, "", unix.MS_BIND|unix.MS_REC, "")
	}
	if err != nil {
		return err
	}
	attached = true
	// The workspace's mount may be shared with the host: the guards below
	// must not propagate back to it.
	if err := unix.Mount("", dir, "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return err
	}
	in := func(p string) (string, error) {
		if !within(p, ws) || p == ws {
			return "", fmt.Errorf("%s is not below the workspace", p)
		}
		q := dir + strings.TrimPrefix(p, ws)
		// Nothing on the way may be a link: the guard must be where the
		// box will find the path.
		if real, err := filepath.EvalSymlinks(q); err != nil || real != q {
			return "", fmt.Errorf("%s moved or is reached through a link", p)
		}
		return q, nil
	}
	readOnly := func(q string) error {
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}
		return unix.MountSetattr(unix.AT_FDCWD, q, unix.AT_RECURSIVE, &attr)
	}
	_, ok := options(append(guards[:len(guards):len(guards)], "--"), func(opt string, vals []string) {
		if err != nil {
			return
		}
		var q string
		switch opt {
		case "--bind", "--ro-bind":
			src, dst := vals[0], vals[1]
			if q, err = in(dst); err != nil {
				return
			}
			if src != dst {
				if src != "/dev/null" {
					err = fmt.Errorf("%s %s %s: not a guard", opt, src, dst)
					return
				}
				if err = unix.Mount(src, q, "", unix.MS_BIND, ""); err == nil {
					err = readOnly(q)
				}
				return
			}
			if err = unix.Mount(q, q, "", unix.MS_BIND|unix.MS_REC, ""); err == nil && opt == "--ro-bind" {
				err = readOnly(q)
			}
		case "--tmpfs":
			if q, err = in(vals[0]); err == nil {
				err = unix.Mount("toolgate-mask", q, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0755,size=4k")
			}
		case "--remount-ro":
			if q, err = in(vals[0]); err == nil {
				err = readOnly(q)
			}
		default:
			err = fmt.Errorf("%s: not a guard", opt)
		}
	})
	if err == nil && !ok {
		err = fmt.Errorf("guards %q: cannot read them", guards)
	}
	return err
}

// unstage detaches a staged tree and removes its directory.
func unstage(dir string) {
	_ = unix.Unmount(dir, unix.MNT_DETACH)
	_ = os.Remove(dir)
}

// ReplayWorkspace stages the workspace ws at dir (made here) with the
// guards a box of a sandbox for it would get, as a run's sandbox does in
// its own mount namespace, so that a benchmark can replay the command line
// of such a box after the toolgate that made it is gone, at the same
// number of mounts. Root only, in the caller's mount namespace (where the
// guards make their paths busy until remove undoes it).
func ReplayWorkspace(dir, ws string) (remove func(), err error) {
	real, err := realDir(ws)
	if err != nil {
		return nil, err
	}
	s := &Sandbox{ws: real}
	var st unix.Stat_t
	if err := unix.Stat(real, &st); err != nil {
		return nil, err
	}
	if err := stageWS(dir, real, append(s.gitGuards(), s.ownFiles()...), -1, [2]uint64{st.Dev, st.Ino}); err != nil {
		return nil, err
	}
	return func() { unstage(dir) }, nil
}
