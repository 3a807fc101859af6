package parser

import (
	"os"
	"path"
	"strings"
)

// Protected is one of toolgate's own files, given by the gate: the policy,
// its data, the audit log, the toolgate binary. A call may not change it,
// nor delete a directory holding it; a Secret one (the audit signing key)
// may not be touched at all. Family also covers the siblings named
// Path + "." + anything (an audit log's rotated files).
type Protected struct {
	Path   string
	Secret bool
	Family bool
}

// protection is a Protected entry resolved to where it really is.
type protection struct {
	real   string
	secret bool
	family bool
}

func resolveProtected(list []Protected) []protection {
	var out []protection
	for _, p := range list {
		if p.Path == "" || !strings.HasPrefix(p.Path, "/") {
			continue
		}
		real, _, _ := Resolve(path.Clean(p.Path))
		out = append(out, protection{real: real, secret: p.Secret, family: p.Family})
		if clean := path.Clean(p.Path); clean != real {
			// the spelling through a link as well: a path a call names is
			// judged by where it leads, but a link the call replaces is
			// judged by its own name
			out = append(out, protection{real: clean, secret: p.Secret, family: p.Family})
		}
	}
	return out
}

// covers says whether p is the protected entry or lies inside it.
func (e protection) covers(p string) bool {
	return within(p, e.real) || e.family && strings.HasPrefix(p, e.real+".") && !strings.Contains(p[len(e.real):], "/")
}

// within says whether p is dir or lies inside it.
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// protect marks the paths that name, hold or could match one of
// toolgate's own files. Reading is allowed (a policy is no secret) except
// for secret entries; a write counts on the file itself, inside it, or into
// an existing directory above it (what lands there can replace it); a
// delete also on any directory above it.
func (c *classifier) protect(paths []Path, cmds []Command) {
	if len(c.protected) == 0 {
		return
	}
	for i := range paths {
		p := &paths[i]
		if !strings.HasPrefix(p.Real, "/") {
			continue // where it leads is unknown, and denied as such
		}
		hard := p.Cmd >= 0 && p.Cmd < len(cmds) && hardLinks(cmds[p.Cmd])
		for _, e := range c.protected {
			kind := e.match(p)
			if kind == "" && hard && !e.secret && e.covers(p.Real) {
				// a hard link to it is a second name to change it by
				kind = "file"
			}
			if kind != "" && (p.Protected == "" || kind == "secret") {
				p.Protected = kind
			}
		}
	}
}

// holdsProtected says whether one of toolgate's own files (not the
// signing key alone, which is read-protected) lies at or below dir.
func (c *classifier) holdsProtected(dir string) bool {
	for _, e := range c.protected {
		if !e.secret && within(e.real, dir) {
			return true
		}
	}
	return false
}

// hardLinks says whether a command makes hard links to its sources: ln
// without -s, link, cp -l/--link.
func hardLinks(c Command) bool {
	switch c.Name {
	case "link":
		return true
	case "ln":
		return !c.Flags["s"] && !c.Flags["--symbolic"]
	case "cp":
		return c.Flags["l"] || c.Flags["--link"]
	}
	return false
}

// match says how path p meets entry e: "secret", "file" or "".
func (e protection) match(p *Path) string {
	changes := p.Access == "write" || p.Access == "delete"
	if !changes && !e.secret {
		return ""
	}
	kind := "file"
	if e.secret {
		kind = "secret"
	}
	real := p.Real
	if !p.Glob {
		switch {
		case e.covers(real):
			return kind
		case !within(e.real, real):
			return ""
		case p.Access == "delete":
			return kind // a directory above it goes with it
		case p.Access == "write" && p.Exists && isDir(real):
			// written into (cp x dir/, tar -C dir, chmod -R): what lands
			// there can replace it
			return kind
		}
		return ""
	}
	// the literal directory before the first pattern character, and the
	// pattern after it
	meta := strings.IndexAny(real, "*?[")
	if meta < 0 {
		meta = len(real)
	}
	slash := strings.LastIndexByte(real[:meta], '/')
	if slash < 0 {
		return kind
	}
	dir, rest := real[:slash], real[slash+1:]
	if dir == "" {
		dir = "/"
	}
	if e.covers(dir) {
		return kind
	}
	if !within(e.real, dir) {
		return ""
	}
	rel := strings.Split(strings.TrimPrefix(e.real[len(dir):], "/"), "/")
	if strings.HasSuffix(p.Raw, "{}") || p.Dynamic && strings.Trim(rest, "*/") == "" {
		// what find finds below its start, an item a path lister feeds,
		// or an unknown tail: any entry at any depth, narrowed only by
		// find's -name tests. It takes the entry when it, or a directory
		// above it, passes them.
		if p.findNames == nil {
			return kind
		}
		for _, c := range rel {
			if passesNames(p.findNames, c) {
				return kind
			}
		}
		if holdsMatch(e.real, p.findNames) {
			return kind // something inside the protected directory passes
		}
		return ""
	}
	pat := strings.Split(strings.Trim(rest, "/"), "/")
	if len(pat) > len(rel) {
		// something inside the entry, which matched nothing now; a
		// command that makes it there is marked itself
		return ""
	}
	for i := range pat {
		if !globMatch(pat[i], rel[i]) {
			return ""
		}
	}
	if len(pat) == len(rel) || changes {
		return kind
	}
	return ""
}

// globMatch matches one component as bash does without dotglob: a leading
// dot is matched only by a pattern that starts with one.
func globMatch(pat, name string) bool {
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(pat, ".") {
		return false
	}
	ok, err := path.Match(pat, name)
	return err == nil && ok
}

// passesNames says whether name passes every find -name test ("i:" marks
// -iname). find's patterns match a leading dot like any character.
func passesNames(tests []string, name string) bool {
	for _, t := range tests {
		n := name
		if rest, ok := strings.CutPrefix(t, "i:"); ok {
			t, n = rest, strings.ToLower(name)
		}
		if ok, err := path.Match(t, n); err != nil || !ok {
			return false
		}
	}
	return true
}

// holdsMatch says whether an entry below dir passes the find -name tests;
// true too when dir holds more than it is worth reading.
func holdsMatch(dir string, tests []string) bool {
	budget := 4096
	var walk func(string) bool
	walk = func(d string) bool {
		ents, err := readDir(d)
		if err != nil {
			return false // not a directory (or unreadable): nothing below
		}
		for _, e := range ents {
			if budget--; budget < 0 {
				return true
			}
			if passesNames(tests, e.Name()) {
				return true
			}
			if e.IsDir() && walk(d+"/"+e.Name()) {
				return true
			}
		}
		return false
	}
	return walk(dir)
}

// realDir is isDir for a path the analysis resolved: what an lstat of it
// (remembered in the stat memo) said, when it said more than "a link".
func (r *run) realDir(p string) bool {
	if li, ok := r.stats[p]; ok && !li.link && !li.missing {
		return li.dir
	}
	return isDir(p)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
