package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Each box's command line and the checks around it resolve paths in the
// workspace (.git and what it holds, the agent's config files, the working
// directory). filepath.EvalSymlinks stats every component from the root,
// and a stat costs microseconds on a machine where a system call is a
// hypervisor exit. The workspace itself was resolved when the sandbox was
// made, and the box mounts that path, so below it only the components
// under the workspace need a look.

// realPath is filepath.EvalSymlinks(p), stat-ing only the components below
// the workspace when p lies in it (written clean). A link anywhere below
// hands the whole path to EvalSymlinks.
func (s *Sandbox) realPath(p string) (string, error) {
	if p == s.ws {
		return p, nil
	}
	if !within(p, s.ws) || filepath.Clean(p) != p {
		// EvalSymlinks takes .. after the link before it, as the kernel
		// does: an unclean path is its to walk.
		return filepath.EvalSymlinks(p)
	}
	rest := p[len(s.ws)+1:]
	cur := s.ws
	for rest != "" {
		name, more, _ := strings.Cut(rest, "/")
		cur += "/" + name
		rest = more
		var st unix.Stat_t
		if err := unix.Lstat(cur, &st); err != nil {
			return "", &os.PathError{Op: "lstat", Path: cur, Err: err}
		}
		switch {
		case st.Mode&unix.S_IFMT == unix.S_IFLNK:
			return filepath.EvalSymlinks(p)
		case rest != "" && st.Mode&unix.S_IFMT != unix.S_IFDIR:
			return "", &os.PathError{Op: "lstat", Path: cur, Err: syscall.ENOTDIR}
		}
	}
	return p, nil
}

// pathDir is what lookBox learnt of one PATH directory: whether bash in
// the box finds nothing there (skip), cannot be predicted from the host
// (bail), or may find a program there. The answer holds while the
// directory is the one it was (same device, inode, mode and change time,
// seen through the same path).
type pathDir struct {
	dev, ino uint64
	mode     uint32
	ctime    unix.Timespec
	real     string // d with its links resolved
	skip     bool
	bail     bool
}

// lookDir returns lookBox's verdict on the PATH directory d (absolute,
// clean), from the memo when d is still the directory it was. A change
// of mode on a directory above d goes unseen until d itself changes; what
// rides on the verdict is only whether the box starts the program itself
// or through bash, which looks it up the same way.
func (s *Sandbox) lookDir(d string) pathDir {
	var st unix.Stat_t
	if err := unix.Stat(d, &st); err != nil {
		return pathDir{skip: true} // absent on the host; the box shows no more than the host has
	}
	s.pathMu.Lock()
	m, ok := s.pathDirs[d]
	s.pathMu.Unlock()
	if ok && m.dev == st.Dev && m.ino == st.Ino && m.mode == st.Mode && m.ctime == st.Ctim {
		return m
	}
	m = pathDir{dev: st.Dev, ino: st.Ino, mode: st.Mode, ctime: st.Ctim}
	realDir, err := filepath.EvalSymlinks(d)
	m.real = realDir
	switch {
	case err != nil:
		m.skip = true
	case within(realDir, s.ws) || within(d, s.ws):
		// The command may change what is there.
		m.bail = true
	case !visible(realDir) || s.masked(realDir):
		// Hidden in the box (the home directory, /tmp, /var, …) or
		// masked (an empty, read-only directory there): bash finds
		// nothing in it.
		m.skip = true
	case !othersEnter(realDir):
		// The box may not search it (a host-root box gets only the
		// bits others get on the view): bash decides.
		m.bail = true
	}
	s.pathMu.Lock()
	if s.pathDirs == nil {
		s.pathDirs = map[string]pathDir{}
	}
	if len(s.pathDirs) < 256 {
		s.pathDirs[d] = m
	}
	s.pathMu.Unlock()
	return m
}
