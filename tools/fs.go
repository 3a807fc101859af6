package tools

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// This file is the layer every file tool opens through. The tools run inside
// the gateway process, possibly as root and possibly under a policy that
// allows everything, so this layer is what keeps them inside the workspace.
// Two rules hold throughout:
//
//   - A path is never checked and then opened by name. Every open starts at a
//     descriptor of the workspace root and asks the kernel to stay beneath it
//     (openat2 with RESOLVE_BENEATH), or walks one component at a time from
//     that descriptor when openat2 is missing.
//   - Directory walks (search, glob's "**") go from descriptor to descriptor
//     with O_NOFOLLOW, so a symlink swapped in during a walk leads nowhere.

// errOutside means a path names something outside the workspace, lexically
// ("../x", "/etc/passwd") or through a symlink.
var errOutside = errors.New("path is outside the workspace")

// errNUL means a path holds a NUL byte, which no file name can contain.
var errNUL = errors.New("path contains a NUL byte")

// errClosed means the workspace was closed.
var errClosed = errors.New("workspace is closed")

// protectedError refuses a write that would change what git runs: a hook or
// a repository configuration (core.hooksPath, core.fsmonitor, aliases and
// filters all run programs).
type protectedError struct {
	hooks bool
	// name is set for the other files that steer git: commondir and
	// config.worktree (which point git at another configuration) and a
	// ".git" file (which points git at another repository).
	name string
}

func (e protectedError) Error() string {
	switch {
	case e.hooks:
		return "it is inside a .git/hooks directory, and git runs the files there as programs"
	case e.name == ".git":
		return "it is a .git file, which points git at another repository and its configuration"
	case e.name == "HEAD":
		return "with it the directory would have HEAD, objects and refs, which makes git treat it as a repository whose configuration can make it run programs"
	case e.name != "":
		return "it is a .git/" + e.name + " file, which points git at another configuration that can make it run programs"
	}
	return "it is a .git/config file, which can make git run programs"
}

// gitSteering are the files of a git directory, besides hooks, that decide
// which programs git runs.
var gitSteering = []string{"config", "commondir", "config.worktree"}

func steeringName(name string) (string, bool) {
	for _, n := range gitSteering {
		if strings.EqualFold(name, n) {
			return n, true
		}
	}
	return "", false
}

func protectedName(name string) protectedError {
	if strings.EqualFold(name, "hooks") {
		return protectedError{hooks: true}
	}
	if n, _ := steeringName(name); n != "config" {
		return protectedError{name: n}
	}
	return protectedError{}
}

// forceFallback makes OpenWorkspace ignore openat2, so tests can exercise the
// component-by-component walk on kernels that have openat2.
var forceFallback bool

const (
	// maxSymlinks bounds the symlinks one fallback resolution follows, as the
	// kernel does (ELOOP after 40).
	maxSymlinks = 40
	// maxDepth bounds the directories a walk holds open at once.
	maxDepth = 256
)

// Workspace is a directory the file tools are confined to. Its methods may
// be called from several goroutines at once.
//
// It keeps an O_PATH descriptor of the root, opened once: every path is
// resolved from that descriptor, so renaming or replacing the root directory
// after OpenWorkspace does not move the tools somewhere else.
type Workspace struct {
	root  string // absolute, symlinks resolved
	alias string // absolute as given, before resolving symlinks; "" when the same as root

	mu      sync.RWMutex // held for reading by every call, for writing by Close
	fd      int          // O_PATH|O_DIRECTORY descriptor of root; -1 once closed
	rootID  fileID
	openat2 bool // false: openat2 is missing (or forceFallback), walk by hand
}

// fileID identifies a file independently of its names.
type fileID struct{ dev, ino uint64 }

func idOf(st *unix.Stat_t) fileID { return fileID{dev: uint64(st.Dev), ino: st.Ino} }

// OpenWorkspace opens root as a workspace. root is made absolute and its
// symlinks are resolved once, here; it must be a directory. Absolute path
// arguments are accepted under either spelling of the root.
func OpenWorkspace(root string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	fd, err := unix.Open(resolved, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, &pathErr{op: "open", path: resolved, err: err})
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	w := &Workspace{root: resolved, fd: fd, rootID: idOf(&st)}
	if abs != resolved {
		w.alias = abs
	}
	w.openat2 = !forceFallback && probeOpenat2(fd)
	return w, nil
}

// probeOpenat2 reports whether openat2 works here. Old kernels answer ENOSYS
// and some seccomp filters EPERM; opening "." beneath the root must succeed
// whenever openat2 is usable, so any failure means "use the fallback".
func probeOpenat2(rootFd int) bool {
	fd, err := unix.Openat2(rootFd, ".", &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

// Root returns the absolute, symlink-resolved path of the workspace.
func (w *Workspace) Root() string { return w.root }

// Close releases the root descriptor. It waits for calls in progress; calls
// made afterwards fail. Closing twice is not an error.
func (w *Workspace) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return nil
	}
	err := unix.Close(w.fd)
	w.fd = -1
	return err
}

// acquire keeps the root descriptor open until release is called.
func (w *Workspace) acquire() (release func(), err error) {
	w.mu.RLock()
	if w.fd < 0 {
		w.mu.RUnlock()
		return nil, errClosed
	}
	return w.mu.RUnlock, nil
}

// pathErr is an error of one operation on a workspace-relative path. It
// never names anything outside the workspace.
type pathErr struct {
	op, path string
	err      error
}

func (e *pathErr) Error() string { return e.op + " " + e.path + ": " + e.err.Error() }
func (e *pathErr) Unwrap() error { return e.err }

// resolvePath turns a path argument into a clean path relative to the root
// ("." for the root itself). It is purely lexical and never touches the file
// system: what the path leads to is decided when it is opened beneath the
// root. Cleaning here means ".." can only come back from symlink targets,
// which the open refuses when they climb out.
func (w *Workspace) resolvePath(p string) (string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", errNUL
	}
	// "~" is the home directory to a shell and to the policy analyser; the
	// tools do not expand it, and taking it as a file name here would judge
	// a different path from the one the policy judged.
	if strings.HasPrefix(p, "~") {
		return "", errOutside
	}
	c := path.Clean(p)
	if path.IsAbs(c) {
		for _, r := range []string{w.root, w.alias} {
			if r == "" {
				continue
			}
			if c == r {
				return ".", nil
			}
			if r == "/" {
				return c[1:], nil
			}
			if rest, ok := strings.CutPrefix(c, r+"/"); ok {
				return rest, nil
			}
		}
		return "", errOutside
	}
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", errOutside
	}
	return c, nil
}

// open opens rel (from resolvePath) beneath the root with flags, following
// symlinks that stay inside the workspace. It never creates anything:
// creation goes through writeAtomic and mkdirAll, which work on a parent
// descriptor. O_CLOEXEC is always added.
func (w *Workspace) open(rel string, flags int) (int, error) {
	// O_TMPFILE includes O_DIRECTORY; only its own bit means a temporary file.
	if flags&(unix.O_CREAT|unix.O_TRUNC|(unix.O_TMPFILE&^unix.O_DIRECTORY)) != 0 {
		return -1, errors.New("tools: open does not create or truncate")
	}
	var fd int
	var err error
	// EAGAIN: the kernel (or the fallback) saw a rename or a swap during the
	// lookup and could not prove the result is beneath the root; retrying
	// is what openat2(2) recommends.
	for range 16 {
		if w.openat2 {
			fd, err = unix.Openat2(w.fd, rel, &unix.OpenHow{
				Flags:   uint64(flags | unix.O_CLOEXEC),
				Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
			})
		} else {
			fd, err = w.openWalk(rel, flags)
		}
		if err != unix.EAGAIN && err != unix.EINTR {
			break
		}
	}
	switch {
	case err == nil:
		return fd, nil
	case errors.Is(err, unix.EXDEV), errors.Is(err, errOutside):
		return -1, errOutside
	default:
		return -1, err
	}
}

// openWalk is open for kernels without openat2 (before Linux 5.6). It walks
// rel one component at a time from the root descriptor, keeping a stack of
// the directories it went through. Every step opens a single name with
// O_NOFOLLOW, so the kernel never follows a link on its own. A symlink is
// read and its target spliced into the remaining components: an absolute
// target, or a ".." that would pop the root off the stack, is outside the
// workspace. This gives the same answers as RESOLVE_BENEATH for paths
// inside the workspace, and refuses the same escapes.
func (w *Workspace) openWalk(rel string, flags int) (int, error) {
	stack := []int{w.fd} // stack[0] belongs to the Workspace; the rest to this call
	defer func() {
		for _, fd := range stack[1:] {
			unix.Close(fd)
		}
	}()
	pending := strings.Split(rel, "/")
	links := 0
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(stack) == 1 {
				return -1, errOutside
			}
			unix.Close(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			continue
		}
		dir := stack[len(stack)-1]
		fd, err := unix.Openat(dir, c, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return -1, err
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			target, err := readlinkFd(fd)
			unix.Close(fd)
			if err != nil {
				return -1, err
			}
			links++
			switch {
			case links > maxSymlinks:
				return -1, unix.ELOOP
			case target == "":
				return -1, unix.ENOENT
			case target[0] == '/':
				return -1, errOutside
			}
			pending = append(strings.Split(target, "/"), pending...)
		case unix.S_IFDIR:
			stack = append(stack, fd)
		default:
			if len(pending) > 0 { // "file/x", "file/"
				unix.Close(fd)
				return -1, unix.ENOTDIR
			}
			return finalOpen(dir, c, fd, &st, flags)
		}
	}
	// The path ended on a directory of the stack.
	return unix.Openat(stack[len(stack)-1], ".", flags|unix.O_CLOEXEC, 0)
}

// finalOpen reopens the last, non-directory component of a fallback walk
// with the caller's flags. pathFd is the O_PATH descriptor the walk holds and
// st its stat. If the name was swapped between the two opens (to a symlink,
// which O_NOFOLLOW refuses, or to another file), the walk is retried.
func finalOpen(dir int, name string, pathFd int, st *unix.Stat_t, flags int) (int, error) {
	if flags&unix.O_PATH != 0 && flags&unix.O_DIRECTORY == 0 {
		return pathFd, nil
	}
	unix.Close(pathFd)
	if flags&unix.O_DIRECTORY != 0 {
		return -1, unix.ENOTDIR
	}
	fd, err := unix.Openat(dir, name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == unix.ELOOP {
		return -1, unix.EAGAIN
	}
	if err != nil {
		return -1, err
	}
	var now unix.Stat_t
	if err := unix.Fstat(fd, &now); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if idOf(&now) != idOf(st) {
		unix.Close(fd)
		return -1, unix.EAGAIN
	}
	return fd, nil
}

// readlinkFd reads the target of the symlink an O_PATH|O_NOFOLLOW
// descriptor refers to (readlinkat with an empty path), so the link read is
// the one that was opened, not whatever carries its name now.
func readlinkFd(fd int) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(fd, "", buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
		if size >= 1<<16 {
			return "", unix.ENAMETOOLONG
		}
	}
}

// dirent is one directory entry as getdents reports it.
type dirent struct {
	name string
	typ  uint8 // unix.DT_*; DT_UNKNOWN is resolved with fstatat before it is returned
}

// readDir lists the directory open at fd (not O_PATH), without "." and "..".
// Some file systems do not fill d_type; those entries are looked up with
// fstatat without following links, so a symlink is always DT_LNK.
func readDir(fd int) ([]dirent, error) {
	var out []dirent
	buf := make([]byte, 32*1024)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			break
		}
		// struct linux_dirent64: d_ino u64, d_off s64, d_reclen u16,
		// d_type u8, d_name NUL-terminated.
		for off := 0; off+19 <= n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 19 || off+reclen > n {
				return out, errors.New("malformed directory entry")
			}
			ino := binary.NativeEndian.Uint64(buf[off:])
			typ := buf[off+18]
			name := buf[off+19 : off+reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off += reclen
			s := string(name)
			if ino == 0 || s == "." || s == ".." {
				continue
			}
			if typ == unix.DT_UNKNOWN {
				typ = statType(fd, s)
			}
			out = append(out, dirent{name: s, typ: typ})
		}
	}
	return out, nil
}

// statType returns the DT_* type of name in dir without following a link.
func statType(dir int, name string) uint8 {
	var st unix.Stat_t
	if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return unix.DT_UNKNOWN
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return unix.DT_DIR
	case unix.S_IFREG:
		return unix.DT_REG
	case unix.S_IFLNK:
		return unix.DT_LNK
	case unix.S_IFIFO:
		return unix.DT_FIFO
	case unix.S_IFSOCK:
		return unix.DT_SOCK
	case unix.S_IFCHR:
		return unix.DT_CHR
	case unix.S_IFBLK:
		return unix.DT_BLK
	}
	return unix.DT_UNKNOWN
}

// protectedRel is the lexical half of the .git check: a path with a ".git"
// component followed by "hooks" (the directory or anything in it), or ending
// in ".git/config". Names are compared without case, since git on a
// case-insensitive file system reads ".GIT/HOOKS" too; refusing such a name
// on a case-sensitive one costs nothing.
func protectedRel(comps []string) error {
	if n := len(comps); n > 0 && strings.EqualFold(comps[n-1], ".git") {
		return protectedError{name: ".git"}
	}
	for i := 0; i+1 < len(comps); i++ {
		if !strings.EqualFold(comps[i], ".git") {
			continue
		}
		if strings.EqualFold(comps[i+1], "hooks") {
			return protectedError{hooks: true}
		}
		if _, ok := steeringName(comps[i+1]); ok && i+2 == len(comps) {
			return protectedName(comps[i+1])
		}
	}
	return nil
}

// checkWritable is the resolved half of the .git check: may a file called
// name be created or replaced in the directory open at dir? The lexical path
// is not enough, because an in-workspace symlink ("h" -> ".git/hooks") or a
// linked git directory (".git" -> "repo.git") reaches the same place under
// other names. So this looks at where dir really is, by identity rather than
// by name: it climbs from dir through ".." to the root, and refuses when
//
//   - name is "config" or "hooks" and dir is a git directory, or
//   - dir or one of its ancestors is the "hooks" entry of a git directory.
//
// A git directory is one that is the ".git" entry of its parent, or that
// looks like one to git itself (HEAD, objects/ and refs/; this catches bare
// repositories and the targets of .git links and "gitdir:" files).
// Climbing by ".." from a descriptor cannot be fooled by symlinks. A
// directory renamed between this check and the write can still slip past;
// that needs a second writer racing the tool, which the policy and the
// sandbox judge on their own.
func (w *Workspace) checkWritable(dir int, name string) error {
	cur, err := unix.Openat(dir, ".", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer func() { unix.Close(cur) }()
	if strings.EqualFold(name, ".git") {
		return protectedError{name: ".git"}
	}
	if completesRepo(dir, name) {
		return protectedError{name: "HEAD"}
	}
	_, steering := steeringName(name)
	wantsConfig := steering || strings.EqualFold(name, "hooks")
	for depth := 0; ; depth++ {
		if depth > 4096 {
			return unix.ELOOP
		}
		var st unix.Stat_t
		if err := unix.Fstat(cur, &st); err != nil {
			return err
		}
		id := idOf(&st)
		if depth == 0 && wantsConfig && w.isGitDir(cur, id) {
			return protectedName(name)
		}
		if id == w.rootID {
			// Above the root is not ours to look at; only its own name counts
			// (a workspace that is itself a .git/hooks directory).
			return protectedRel(strings.Split(w.root, "/"))
		}
		parent, err := unix.Openat(cur, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		var pst unix.Stat_t
		if err := unix.Fstat(parent, &pst); err != nil {
			unix.Close(parent)
			return err
		}
		if idOf(&pst) == id {
			// Reached "/" without meeting the root: dir was moved out.
			unix.Close(parent)
			return errOutside
		}
		if entryIs(parent, "hooks", id) && w.isGitDir(parent, idOf(&pst)) {
			unix.Close(parent)
			return protectedError{hooks: true}
		}
		unix.Close(cur)
		cur = parent
	}
}

// isGitDir reports whether the directory open at fd (identity id) is a git
// directory, as checkWritable defines it.
func (w *Workspace) isGitDir(fd int, id fileID) bool {
	if looksLikeGitDir(fd) {
		return true
	}
	if id == w.rootID {
		return strings.EqualFold(path.Base(w.root), ".git")
	}
	parent, err := unix.Openat(fd, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(parent)
	return entryIs(parent, ".git", id)
}

// entryIs reports whether name in dir is, without following a link, the
// file with identity id.
func entryIs(dir int, name string, id fileID) bool {
	var st unix.Stat_t
	return unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && idOf(&st) == id
}

// looksLikeGitDir applies git's own test for a repository directory.
func looksLikeGitDir(fd int) bool {
	var st unix.Stat_t
	if unix.Fstatat(fd, "HEAD", &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false
	}
	for _, d := range []string{"objects", "refs"} {
		if unix.Fstatat(fd, d, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return false
		}
	}
	return true
}

// mkdirAll opens the directory rel for reading, creating what is missing
// one component at a time: each missing name is created with mkdirat in its
// parent's descriptor (mode 0755, less the umask) and the prefix is then
// reopened beneath the root. A dangling symlink in the way makes mkdirat
// fail with EEXIST and the reopen fail, so nothing is created through it.
func (w *Workspace) mkdirAll(rel string) (int, error) {
	const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY
	fd, err := w.open(rel, dirFlags)
	if err == nil || !errors.Is(err, unix.ENOENT) {
		return fd, err
	}
	parent, err := w.open(".", unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return -1, err
	}
	comps := strings.Split(rel, "/")
	for i, c := range comps {
		prefix := strings.Join(comps[:i+1], "/")
		next, err := w.open(prefix, unix.O_PATH|unix.O_DIRECTORY)
		if errors.Is(err, unix.ENOENT) {
			if err := w.checkWritable(parent, c); err != nil {
				unix.Close(parent)
				return -1, err
			}
			if err := unix.Mkdirat(parent, c, 0o755); err != nil && err != unix.EEXIST {
				unix.Close(parent)
				return -1, &pathErr{op: "mkdir", path: prefix, err: err}
			}
			next, err = w.open(prefix, unix.O_PATH|unix.O_DIRECTORY)
		}
		unix.Close(parent)
		if err != nil {
			return -1, err
		}
		parent = next
	}
	unix.Close(parent)
	return w.open(rel, dirFlags)
}

// errIsDir means a write targets an existing directory.
var errIsDir = errors.New("is a directory")

// writeAtomic replaces (or creates) the file rel with data, so that a
// reader sees the old content or the new, never a mix. The parent is opened
// (and created) beneath the root; the data goes to a fresh temporary file in
// that parent, created with O_EXCL|O_NOFOLLOW, synced, and renamed over the
// final name with renameat, which replaces a symlink there instead of
// writing through it. An existing regular file keeps its permission bits
// (without setuid, setgid and sticky) and, where the process may, its owner;
// otherwise the file gets perm, exactly when exact is set, else less the
// umask. It returns the absolute path written.
func (w *Workspace) writeAtomic(rel string, data []byte, perm uint32, exact bool) (string, error) {
	dirRel, name := path.Split(rel)
	dirRel = path.Clean(dirRel)
	if name == "" || name == "." || name == ".." {
		return "", errIsDir
	}
	if err := protectedRel(strings.Split(rel, "/")); err != nil {
		return "", err
	}
	dir, err := w.mkdirAll(dirRel)
	if err != nil {
		return "", err
	}
	defer unix.Close(dir)
	if err := w.checkWritable(dir, name); err != nil {
		return "", err
	}
	uid, gid := -1, -1
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			return "", errIsDir
		case unix.S_IFREG:
			perm, exact = st.Mode&0o777, true
			uid, gid = int(st.Uid), int(st.Gid)
		}
	}
	tmp, fd, err := createTemp(dir, perm)
	if err != nil {
		return "", &pathErr{op: "create temporary file in", path: dirRel, err: err}
	}
	ok := false
	defer func() {
		if !ok {
			unix.Unlinkat(dir, tmp, 0)
		}
	}()
	err = writeAll(fd, data)
	if err == nil && exact {
		err = unix.Fchmod(fd, perm)
	}
	if err == nil && uid >= 0 {
		// Only root may give a file away; for anyone else the file is
		// theirs already or stays theirs, which is not an error.
		if e := unix.Fchown(fd, uid, gid); e != nil && e != unix.EPERM {
			err = e
		}
	}
	if err == nil {
		err = unix.Fsync(fd)
	}
	if e := unix.Close(fd); err == nil {
		err = e
	}
	if err != nil {
		return "", &pathErr{op: "write", path: rel, err: err}
	}
	if err := unix.Renameat(dir, tmp, dir, name); err != nil {
		if err == unix.EISDIR {
			return "", errIsDir
		}
		return "", &pathErr{op: "rename", path: rel, err: err}
	}
	ok = true
	// The rename is done; a failed directory sync only weakens durability,
	// and reporting a failure for a file that was written would mislead.
	unix.Fsync(dir)
	return filepath.Join(w.root, rel), nil
}

// createTemp creates an unused hidden file in dir. The name does not derive
// from the target's, so a target name of 255 bytes still gets a temporary
// file.
func createTemp(dir int, perm uint32) (string, int, error) {
	for range 100 {
		name := fmt.Sprintf(".toolgate-%016x.tmp", rand.Uint64())
		fd, err := unix.Openat(dir, name, unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_WRONLY|unix.O_CLOEXEC, perm)
		if err == unix.EEXIST {
			continue
		}
		return name, fd, err
	}
	return "", -1, unix.EEXIST
}

func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// completesRepo says whether creating name in the directory open at dir
// would give it all of HEAD, objects and refs: git then takes the directory
// for a repository (when .git is missing or broken) and obeys a config file
// beside them, in whatever order the pieces were written.
func completesRepo(dir int, name string) bool {
	parts := []string{"HEAD", "objects", "refs"}
	found := false
	for _, p := range parts {
		if name == p {
			found = true
		}
	}
	if !found {
		return false
	}
	for _, p := range parts {
		if p == name {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(dir, p, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return false
		}
	}
	return true
}
