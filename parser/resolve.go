package parser

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxSymlinks is the kernel's limit on symlinks followed while resolving one
// path (MAXSYMLINKS in Linux): the 41st link fails with ELOOP.
const maxSymlinks = 40

// Resolve returns where the kernel would land for p. p is an absolute path that
// has not been cleaned (it may contain ".", ".." and repeated slashes); a
// relative p is a programming error and is treated as relative to "/". The
// result is always absolute and clean.
//
// Resolve walks p component by component, as the kernel's path walk does: each
// symlink is followed (a relative target against the link's directory, an
// absolute one from "/") before the next component is applied, so
// "ws/src/link_up/../x" where link_up -> ../.. lands outside the workspace,
// which a lexical clean would not see. ".." of "/" is "/". The final component
// is followed too when it is a symlink, as stat(2) and open(2) do.
//
// /proc and /dev: once the walk reaches either (or anything below them) the
// components are applied lexically without touching the filesystem, because
// their symlinks (/proc/self, /dev/fd, /dev/stdout…) describe the gateway's
// own process, not the sandboxed one. Existence is not checked there. A ".."
// that climbs back out of them ("/proc/..") resumes the real walk.
//
// When a component does not exist, cannot be examined, or is not a directory
// while more follows (a trailing slash counts, as for the kernel), exists is
// false and the rest is applied lexically ("." and ".." included). If a ".."
// climbs back above the missing component, the real walk resumes from there
// (exists stays false): "ws/new/../link_out/x" is where "mkdir -p ws/new"
// followed by a write of that path lands, so a link is not hidden behind a
// directory that does not exist yet.
//
// More than 40 symlinks is a loop: Resolve returns the lexical clean of p with
// exists false and loop true.
//
// Only os.Lstat and os.Readlink are used, one Lstat per component walked.
// When exists is true, Resolve(real) == real.
func Resolve(p string) (real string, exists bool, loop bool) {
	return resolveAt(p, 0, nil)
}

// ResolveFrom resolves rel against base, a directory already known to be an
// existing, absolute, clean, symlink-free path outside /proc and /dev (the
// workspace root, or a directory resolved earlier in the same analysis). It
// gives the same answer as Resolve(base + "/" + rel) without examining
// base's own components again.
func ResolveFrom(base, rel string) (real string, exists bool, loop bool) {
	if base == "/" || base == "" || strings.HasPrefix(rel, "/") {
		return Resolve(base + "/" + rel)
	}
	return resolveAt(base+"/"+rel, len(base), nil)
}

// magicLinks are the entries of /proc/PID (and /proc/PID/task/TID) that
// lead into another part of the file system (true), or directories of such
// links (false: fd/N, map_files/X); /dev/fd/N and /dev/std* are links too.
var magicLinks = map[string]bool{"cwd": true, "root": true, "exe": true, "fd": false, "map_files": false}

// magicLink says whether p is at or below one of those links, where ".."
// cannot be taken lexically.
func magicLink(p string) bool {
	comps := strings.Split(strings.TrimPrefix(p, "/"), "/")
	switch {
	case len(comps) >= 2 && comps[0] == "dev":
		return comps[1] == "stdin" || comps[1] == "stdout" || comps[1] == "stderr" || comps[1] == "fd" && len(comps) >= 3
	case len(comps) >= 3 && comps[0] == "proc":
		i := 2
		if comps[i] == "task" && len(comps) >= 5 {
			i = 4
		}
		link, ok := magicLinks[comps[i]]
		return ok && (link || len(comps) > i+1)
	}
	return false
}

// linkInfo is what one walk step learns of an entry: whether it exists,
// whether it is a directory or a symlink, and a symlink's target.
type linkInfo struct {
	missing, dir, link bool
	target             string // a symlink's target; "" if it could not be read
}

// statMemo remembers, for one analysis, what walk steps learnt: the
// analysis judges one call against the file system as it stands, so an
// entry examined again (the workspace's links, /etc, a glob's parent
// directories) need not cost another system call. nil: no memo.
type statMemo map[string]linkInfo

// look examines the entry at p (without following a final symlink).
func (m statMemo) look(p string) linkInfo {
	if m != nil {
		if li, ok := m[p]; ok {
			return li
		}
	}
	var li linkInfo
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		li.missing = true
	case fi.Mode()&fs.ModeSymlink != 0:
		li.link = true
		if t, err := os.Readlink(p); err == nil {
			li.target = t
		}
	default:
		li.dir = fi.IsDir()
	}
	if m != nil {
		m[p] = li
	}
	return li
}

// seed remembers what a listing of dir said about its entries, which is
// what lstat would say of each (the type of the entry itself, dir reached
// through any links), so the paths a glob matched are classified without
// a stat each. A link is seeded when the listing came from the listing
// cache with its target (read when it was kept, current while it is);
// other links are left to look, which reads their targets; so is any entry
// when dir is not an absolute, clean path.
func (m statMemo) seed(dir string, ents []fs.DirEntry) {
	if m == nil || !path.IsAbs(dir) || path.Clean(dir) != dir {
		return
	}
	if dir == "/" {
		dir = ""
	}
	for _, e := range ents {
		var de *dirEntry
		switch e := e.(type) {
		case *dirEntry:
			de = e
		case *linkEntry: // a link in a listing the glob expansion asked for
			de = e.dirEntry
		}
		if de == nil || !de.known {
			continue
		}
		li := linkInfo{dir: de.typ.IsDir()}
		if de.typ&fs.ModeSymlink != 0 {
			if !de.targetKnown {
				continue
			}
			li = linkInfo{link: true, target: de.target}
		}
		p := dir + "/" + de.name
		if _, ok := m[p]; !ok {
			m[p] = li
		}
	}
}

// resolveAt walks p, taking p[:start] as already resolved.
func resolveAt(p string, start int, memo statMemo) (real string, exists bool, loop bool) {
	var (
		// cur is the resolved prefix: "" stands for "/", otherwise "/a/b"
		// with no trailing slash, no ".", no "..", no empty component.
		cur = p[:start]
		// curInP: cur == p[:len(cur)], so cur+"/"+comp can often be sliced
		// out of p instead of allocated.
		curInP = true
		// rest is what remains to walk; it is "" or begins with "/" once
		// the first component has been cut.
		rest = p[start:]
		// restInP: rest is a suffix of p (no link target spliced in).
		restInP = true
		// lexFrom >= 0: cur[lexFrom:] was appended lexically (missing
		// component, or /proc or /dev) and cur[:lexFrom] was walked.
		lexFrom = -1
		links   int
	)
	exists = true
	for {
		for len(rest) > 0 && rest[0] == '/' {
			rest = rest[1:]
		}
		if rest == "" {
			break
		}
		comp := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			comp, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		switch comp {
		case ".":
			continue
		case "..":
			if lexFrom >= 0 && magicLink(cur) {
				// /proc/self/cwd/.. is the parent of the process's cwd,
				// not /proc/self: the kernel follows the magic link
				// first. Its target is not known here, so the path stays
				// below the link, where it is judged (proc_private).
				continue
			}
			// cur has no symlinks in its walked part, so its parent is
			// lexical; in the lexical part ".." is lexical by definition.
			if i := strings.LastIndexByte(cur, '/'); i >= 0 {
				cur = cur[:i]
			}
			if lexFrom >= 0 && len(cur) <= lexFrom {
				lexFrom = -1
			}
			continue
		}

		// next = cur + "/" + comp, without allocating when p already
		// spells it (the common case: a clean path with no links).
		var next string
		nextInP := false
		if curInP && restInP {
			end := len(p) - len(rest)
			if start := end - len(comp); start == len(cur)+1 {
				next, nextInP = p[:end], true
			}
		}
		if !nextInP {
			next = cur + "/" + comp
		}

		if lexFrom < 0 && cur == "" && (comp == "proc" || comp == "dev") {
			lexFrom = 0
		}
		if lexFrom >= 0 {
			cur, curInP = next, nextInP
			continue
		}

		li := memo.look(next)
		missing := li.missing
		switch {
		case missing:
		case li.link:
			links++
			if links > maxSymlinks {
				return filepath.Clean("/" + p), false, true
			}
			if target := li.target; target != "" {
				if target[0] == '/' {
					cur, curInP = "", true
				}
				// The link's directory is cur; its target is walked
				// before the rest. rest is "" or starts with "/".
				rest, restInP = target+rest, false
				continue
			}
			// Replaced or removed between Lstat and Readlink.
			missing = true
		case !li.dir && rest != "":
			// A non-directory used as one: ENOTDIR.
			missing = true
		}
		if missing {
			// Missing, unexaminable, or not a directory: the rest
			// is lexical until a ".." climbs back to cur.
			exists = false
			lexFrom = len(cur)
		}
		cur, curInP = next, nextInP
	}
	if cur == "" {
		return "/", exists, false
	}
	return cur, exists, false
}

// resolve is Resolve, walking a path below one of the analysis's Bases
// from that base (ResolveFrom's reasoning): the base's own components were
// examined when it was chosen.
func (r *run) resolve(p string) (real string, exists bool, loop bool) {
	for _, b := range r.opts.Bases {
		if len(b) > 1 && len(p) > len(b) && p[len(b)] == '/' && strings.HasPrefix(p, b) {
			return resolveAt(p, len(b), r.stats)
		}
	}
	return resolveAt(p, 0, r.stats)
}

// resolveFrom is ResolveFrom with the analysis's memo.
func (r *run) resolveFrom(base, rel string) (real string, exists bool, loop bool) {
	if base == "/" || base == "" || strings.HasPrefix(rel, "/") {
		return r.resolve(base + "/" + rel)
	}
	return resolveAt(base+"/"+rel, len(base), r.stats)
}
