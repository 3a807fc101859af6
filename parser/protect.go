package parser

import (
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
// for secret entries; writes count only on the file itself or inside it,
// deletes also on any directory above it.
func (c *classifier) protect(paths []Path) {
	if len(c.protected) == 0 {
		return
	}
	for i := range paths {
		p := &paths[i]
		if !strings.HasPrefix(p.Real, "/") {
			continue // where it leads is unknown, and denied as such
		}
		for _, e := range c.protected {
			if kind := e.match(p); kind != "" && (p.Protected == "" || kind == "secret") {
				p.Protected = kind
			}
		}
	}
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
	if p.Glob {
		// the literal directory before the first pattern character, and
		// the pattern after it
		meta := strings.IndexAny(real, "*?[")
		if meta < 0 {
			meta = len(real)
		}
		slash := strings.LastIndexByte(real[:meta], '/')
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
		// Does the pattern reach the entry (or inside it), or match a
		// directory above it, which a delete takes with it?
		rel := strings.Split(strings.TrimPrefix(e.real[len(dir):], "/"), "/")
		pat := strings.Split(strings.Trim(rest, "/"), "/")
		n := min(len(pat), len(rel))
		for i := 0; i < n; i++ {
			if ok, err := path.Match(pat[i], rel[i]); err != nil || !ok {
				return ""
			}
		}
		if len(pat) >= len(rel) || p.Access == "delete" {
			return kind
		}
		return ""
	}
	switch {
	case e.covers(real):
		return kind
	case p.Access == "delete" && within(e.real, real):
		return kind
	}
	return ""
}
