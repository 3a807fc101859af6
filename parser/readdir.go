package parser

import (
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readDir lists dir as os.ReadDir does (entries sorted by name, "." and
// ".." left out, the entries read so far with an error). A listing read
// before is answered from the listing cache when dir is still the very
// directory it was and unchanged since (see listingCache); otherwise it is
// read with readDirFresh. The slice is the caller's; the entries are shared
// and must not be changed.
func readDir(dir string) ([]fs.DirEntry, error) {
	if ents, ok := listings.lookup(dir); ok {
		return ents, nil
	}
	ents, st, err := readDirFresh(dir)
	if err == nil && st != nil {
		listings.store(dir, st, ents)
	}
	return ents, err
}

// readDirFresh lists dir with plain system calls: open, fstat, getdents
// until it is done, close. os.Open also registers each file with the
// runtime's poller (fcntl, epoll_ctl), which for a directory buys nothing
// and was two of a listing's six system calls; the analysis lists
// thousands of directories in a stream. It returns the directory's status
// as it was before the listing was read when the listing may be cached
// (listingCache.cacheable), else nil.
func readDirFresh(dir string) ([]fs.DirEntry, *unix.Stat_t, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	// the status before the entries: a change made after it gives the
	// directory a later ctime than the one the listing is kept under
	st := listings.cacheable(fd)
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var ents []fs.DirEntry
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			sortEntries(ents)
			return ents, nil, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			break
		}
		ents = appendDirents(ents, dir, buf[:n])
	}
	sortEntries(ents)
	return ents, st, nil
}

// dirListing is what readDir answered for a directory.
type dirListing struct {
	ents []fs.DirEntry
	err  error
}

// listDir is readDir remembered for one analysis, as the glob expansion
// asks: it reads the same directory again and again (a literal part's
// existence check and then its listing, a link tested for a directory and
// then walked by **), and tries every entry below a ** as a directory. An
// entry that an earlier listing or lstat showed to be neither a directory
// nor a link is answered ENOTDIR, as the open would be, without a system
// call. The analysis judges one call against the file system as it
// stands, as the stat memo does; the glob budget still counts every
// listing asked for.
//
// A link among the entries reports the type of what it leads to (its
// stat, made when first asked: linkEntry). mvdan/sh tests every link in a
// directory a pattern part must match directories in by listing the
// link — before it matches the link's name — so link_e*/hosts listed /,
// /etc, /proc/self and /var behind the workspace's links to learn which
// of them are directories.
func (r *run) listDir(dir string) ([]fs.DirEntry, error) {
	if l, ok := r.lists[dir]; ok {
		return l.ents, l.err
	}
	if li, ok := r.stats[dir]; ok && !li.missing && !li.link && !li.dir {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: unix.ENOTDIR}
	}
	ents, err := readDir(dir)
	for i, e := range ents {
		if de, ok := e.(*dirEntry); ok && de.typ&fs.ModeSymlink != 0 {
			ents[i] = &linkEntry{dirEntry: de, r: r}
		}
	}
	if r.lists == nil {
		r.lists = map[string]dirListing{}
	}
	r.lists[dir] = dirListing{ents, err}
	return ents, err
}

// linkEntry is a link in a listing the glob expansion asked for: its type
// is the type of the file it leads to (a directory, or not: a link that
// leads nowhere is not a directory), found by stat when first asked, and
// each stat counts as an entry read for the glob budget. A directory it
// leads to but cannot be listed counts as a directory, as bash's */ does.
type linkEntry struct {
	*dirEntry
	r      *run
	looked bool
	to     fs.FileMode
}

func (e *linkEntry) Type() fs.FileMode {
	if !e.looked {
		e.looked = true
		e.r.glob++
		e.to = 0 // not a directory (mvdan/sh would list a link to learn more)
		if fi, err := os.Stat(path.Join(e.dir, e.name)); err == nil && fi.IsDir() {
			e.to = fs.ModeDir
		}
	}
	return e.to
}

func (e *linkEntry) IsDir() bool    { return e.Type().IsDir() }
func (e *linkEntry) String() string { return fs.FormatDirEntry(e) }

var direntBufs = sync.Pool{New: func() any {
	b := make([]byte, 8192)
	return &b
}}

// appendDirents adds the linux_dirent64 records in b: inode (8 bytes),
// offset (8), record length (2), type (1), then the NUL-terminated name.
func appendDirents(ents []fs.DirEntry, dir string, b []byte) []fs.DirEntry {
	for len(b) >= 19 {
		reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
		if reclen < 19 || reclen > len(b) {
			break
		}
		typ := b[18]
		name := b[19:reclen]
		if i := slices.Index(name, 0); i >= 0 {
			name = name[:i]
		}
		b = b[reclen:]
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		e := &dirEntry{dir: dir, name: string(name), known: true}
		switch typ {
		case unix.DT_DIR:
			e.typ = fs.ModeDir
		case unix.DT_LNK:
			e.typ = fs.ModeSymlink
		case unix.DT_REG:
		case unix.DT_FIFO:
			e.typ = fs.ModeNamedPipe
		case unix.DT_SOCK:
			e.typ = fs.ModeSocket
		case unix.DT_CHR:
			e.typ = fs.ModeDevice | fs.ModeCharDevice
		case unix.DT_BLK:
			e.typ = fs.ModeDevice
		default: // DT_UNKNOWN: the file system does not say; lstat does
			if fi, err := os.Lstat(path.Join(dir, e.name)); err == nil {
				e.typ = fi.Mode().Type()
			} else {
				e.known = false
			}
		}
		ents = append(ents, e)
	}
	return ents
}

func sortEntries(ents []fs.DirEntry) {
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}

// dirEntry is an entry readDir found.
type dirEntry struct {
	dir, name string
	typ       fs.FileMode
	known     bool // typ is what lstat says (not a failed lstat's zero)
	// a link's target, read when its listing was kept (listingCache.store)
	target      string
	targetKnown bool
}

func (e *dirEntry) Name() string               { return e.name }
func (e *dirEntry) IsDir() bool                { return e.typ.IsDir() }
func (e *dirEntry) Type() fs.FileMode          { return e.typ }
func (e *dirEntry) Info() (fs.FileInfo, error) { return os.Lstat(path.Join(e.dir, e.name)) }
func (e *dirEntry) String() string             { return fs.FormatDirEntry(e) }

// glob passes yield the paths matching pattern as filepath.Glob finds them
// (every name a wildcard matches, dot files included; directories named
// through links followed; in order; I/O errors ignored), and stops as soon
// as yield returns false, returning false too. Directories are listed with
// readDir; a last component without wildcards is looked up (lstat)
// instead of found by listing its directory: /proc/*/environ lists /proc,
// not each of its hundreds of process directories.
func glob(pattern string, yield func(string) bool) bool {
	if !hasMeta(pattern) {
		if _, err := os.Lstat(pattern); err != nil {
			return true
		}
		return yield(pattern)
	}
	dir, file := path.Split(pattern)
	dir = cleanGlobDir(dir)
	if !hasMeta(dir) {
		return globIn(dir, file, yield)
	}
	if dir == pattern { // a pattern that is its own directory: nothing to split
		return true
	}
	return glob(dir, func(d string) bool { return globIn(d, file, yield) })
}

// globIn passes yield the names in dir that match pattern.
func globIn(dir, pattern string, yield func(string) bool) bool {
	switch {
	case pattern == "", pattern == ".", pattern == "..":
		// a listing holds none of these
		return true
	case !hasMeta(pattern):
		p := path.Join(dir, pattern)
		if _, err := os.Lstat(p); err != nil {
			return true
		}
		return yield(p)
	}
	ents, err := readDir(dir)
	if err != nil && ents == nil {
		return true
	}
	for _, e := range ents {
		if ok, err := path.Match(pattern, e.Name()); err == nil && ok {
			if !yield(path.Join(dir, e.Name())) {
				return false
			}
		}
	}
	return true
}

func cleanGlobDir(dir string) string {
	switch dir {
	case "":
		return "."
	case "/":
		return dir
	}
	return dir[:len(dir)-1] // the trailing separator
}

func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[\`) }
