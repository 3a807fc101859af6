package parser

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// gitLinks returns which symbolic links below dir git tracks, for the
// entries a git lister prints (git ls-files | xargs cat): a link is among
// them only when git's index holds it as a link, or when the script made
// it (it may have added it too). nil means not known: every link counts.
// It is nil when the repository is not the plain one found above dir (a
// .git file, GIT_DIR or GIT_INDEX_FILE set), or its index cannot be read.
func (r *run) gitLinks(dir string, st *state) func(string) bool {
	e := r.env(st)
	for _, k := range []string{"GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_COMMON_DIR"} {
		if v := e.Get(k); v.IsSet() || st.wild[k] || st.noEnv {
			return nil
		}
	}
	if r.indexChanged() {
		return nil // an earlier git command may have added links to it
	}
	top := dir
	for {
		fi, err := os.Lstat(top + "/.git")
		if err == nil {
			if !fi.IsDir() {
				return nil // a worktree or a submodule: its index is elsewhere
			}
			break
		}
		if top == "/" || top == "" {
			return func(link string) bool { return r.links[link] != "" } // no repository: git lists nothing
		}
		top = filepath.Dir(top)
	}
	if v, ok := gitConfigValue(top+"/.git/config", "extensions", "objectformat"); ok && !strings.EqualFold(v, "sha1") {
		return nil // object names of another length: not read here
	}
	links, ok := indexLinks(top + "/.git/index")
	if !ok {
		return nil
	}
	return func(link string) bool {
		if r.links[link] != "" {
			return true
		}
		rel, err := filepath.Rel(top, link)
		return err != nil || links[filepath.ToSlash(rel)]
	}
}

// indexLinks reads a git index file (versions 2 to 4) and returns the
// paths of the symbolic links it holds. A missing file holds none; one
// that cannot be read or parsed gives ok false.
func indexLinks(file string) (map[string]bool, bool) {
	data, err := readRegular(file, 256<<20)
	if os.IsNotExist(err) {
		return map[string]bool{}, true
	}
	if err != nil || len(data) < 12+20 || string(data[:4]) != "DIRC" {
		return nil, false
	}
	version := binary.BigEndian.Uint32(data[4:8])
	count := binary.BigEndian.Uint32(data[8:12])
	if version < 2 || version > 4 {
		return nil, false
	}
	links := map[string]bool{}
	pos := 12
	prev := ""
	for i := uint32(0); i < count; i++ {
		// ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each),
		// object name (20, SHA-1), flags (2)
		const fixed = 62
		if pos+fixed > len(data) {
			return nil, false
		}
		start := pos
		mode := binary.BigEndian.Uint32(data[pos+24 : pos+28])
		flags := binary.BigEndian.Uint16(data[pos+60 : pos+62])
		pos += fixed
		if flags&0x4000 != 0 {
			if version < 3 || pos+2 > len(data) {
				return nil, false
			}
			pos += 2 // extended flags
		}
		var name string
		if version == 4 {
			// the length of the previous name to drop, as git's varint,
			// then the rest of this name up to a NUL
			strip, n := 0, 0
			for {
				if pos >= len(data) || n > 4 {
					return nil, false
				}
				c := data[pos]
				pos++
				strip = strip<<7 | int(c&0x7f)
				if c&0x80 == 0 {
					break
				}
				strip++
				n++
			}
			end := pos
			for end < len(data) && data[end] != 0 {
				end++
			}
			if end >= len(data) || strip > len(prev) {
				return nil, false
			}
			name = prev[:len(prev)-strip] + string(data[pos:end])
			pos = end + 1
		} else {
			end := pos
			for end < len(data) && data[end] != 0 {
				end++
			}
			if end >= len(data) {
				return nil, false
			}
			name = string(data[pos:end])
			// entries are padded with NULs to a multiple of 8 bytes
			pos = start + (end-start+8)&^7
		}
		prev = name
		if mode&0o170000 == 0o120000 && !strings.Contains(name, "\x00") {
			links[name] = true
		}
	}
	// Extensions, then a SHA-1 checksum: the parse must land exactly on
	// it (an index of another shape is not read as holding no links), and
	// a split index keeps most entries in another file.
	end := len(data) - 20
	for pos+8 <= end {
		sig := string(data[pos : pos+4])
		size := int(binary.BigEndian.Uint32(data[pos+4 : pos+8]))
		if sig == "link" || size < 0 || pos+8+size > end {
			return nil, false
		}
		pos += 8 + size
	}
	if pos != end {
		return nil, false
	}
	return links, true
}

// indexChanged says whether an earlier command of the script is a git
// command that may change the index (git add, update-index, checkout …):
// only listing and reading subcommands leave it as it is on disk.
func (r *run) indexChanged() bool {
	for _, c := range r.facts.Commands {
		if c.Name != "git" {
			continue
		}
		switch c.Subcommand {
		case "ls-files", "diff", "status", "log", "show", "rev-parse", "grep", "blame", "branch", "describe", "shortlog", "ls-tree", "cat-file", "version", "help":
		default:
			return true
		}
	}
	return false
}

// readRegular reads a regular file of at most max bytes. Anything else (a
// FIFO, which would block the analysis, a device, a directory, a larger
// file) is an error.
func readRegular(name string, max int64) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", name, max)
	}
	return io.ReadAll(io.LimitReader(f, max+1))
}
