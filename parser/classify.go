package parser

import (
	"path"
	"slices"
	"strings"
)

// classifier decides the zone and sensitivity of resolved paths. It is built
// once per Config and workspace; look-ups are map probes over a path's
// ancestors, so the cost does not grow with the number of entries.
type classifier struct {
	ws, home  string
	readRoots map[string]bool // exact directories
	readGlobs []string        // first-component patterns such as "/lib*"
	secrets   map[string]string
	tree      *secretNode // secrets by component, for patterns
	secretPat [][]string  // component patterns of entries with wildcards
	secretRaw []string
	names     []string
	// nameMatch is how each of names is matched against a base name: by
	// equality, by suffix ("*.pem") or by path.Match
	nameMatch []nameMatcher
	// reserved are the top directories under /tmp that hold the workspace
	// or the home directory: they are not scratch space, whatever /tmp is.
	reserved []string
	// protected are toolgate's own files, resolved
	protected []protection
}

func newClassifier(cfg Config, ws, home string) *classifier {
	c := &classifier{ws: ws, home: home, readRoots: map[string]bool{}, secrets: map[string]string{}, names: cfg.SensitiveNames, protected: resolveProtected(cfg.Protected)}
	for _, n := range c.names {
		c.nameMatch = append(c.nameMatch, matcherFor(n))
	}
	for _, d := range []string{ws, home} {
		for _, tmp := range []string{"/tmp", "/dev/shm", "/var/tmp"} {
			if rest, ok := strings.CutPrefix(d, tmp+"/"); ok && rest != "" {
				top, _, _ := strings.Cut(rest, "/")
				c.reserved = append(c.reserved, tmp+"/"+top)
			}
		}
	}
	for _, r := range cfg.ReadRoots {
		r = path.Clean("/" + r)
		if strings.ContainsAny(r, "*?[") {
			c.readGlobs = append(c.readGlobs, r)
		} else {
			c.readRoots[r] = true
		}
	}
	for _, s := range cfg.SensitivePaths {
		abs := s
		if strings.HasPrefix(s, "~/") || s == "~" {
			if home == "" {
				continue
			}
			abs = home + s[1:]
		}
		abs = path.Clean("/" + abs)
		if strings.ContainsAny(abs, "*?[") {
			c.secretPat = append(c.secretPat, splitPath(abs))
			c.secretRaw = append(c.secretRaw, s)
		} else {
			c.secrets[abs] = s
		}
	}
	c.tree = &secretNode{}
	for abs, raw := range c.secrets {
		c.tree.add(abs, splitPath(abs), raw)
	}
	c.tree.sort()
	return c
}

// secretNode is a tree of the literal sensitive entries by path component,
// so a pattern is compared only with the entries its literal components
// lead to, whatever the number of entries, and always in the same order.
type secretNode struct {
	abs, raw string // the entry ending here, if any
	names    []string
	kids     map[string]*secretNode
}

func (n *secretNode) add(abs string, comps []string, raw string) {
	for _, comp := range comps {
		if n.kids == nil {
			n.kids = map[string]*secretNode{}
		}
		k := n.kids[comp]
		if k == nil {
			k = &secretNode{}
			n.kids[comp] = k
			n.names = append(n.names, comp)
		}
		n = k
	}
	n.abs, n.raw = abs, raw
}

func (n *secretNode) sort() {
	slices.Sort(n.names)
	for _, k := range n.kids {
		k.sort()
	}
}

// first returns the first entry (in component order) at or below n that
// skip does not rule out.
func (n *secretNode) first(skip func(abs string) bool) (string, bool) {
	if n.raw != "" && !skip(n.abs) {
		return n.raw, true
	}
	for _, name := range n.names {
		if r, ok := n.kids[name].first(skip); ok {
			return r, true
		}
	}
	return "", false
}

// match finds an entry that the pattern comps could name or lie inside:
// its components intersect the pattern's, and the pattern is at least as
// long — or shorter, when open is set (its last component may stand for
// several).
func (n *secretNode) match(comps []string, open bool, skip func(abs string) bool) (string, bool) {
	for depth := 0; ; depth++ {
		if n.raw != "" && !skip(n.abs) {
			return n.raw, true
		}
		if depth == len(comps) {
			return "", false
		}
		comp := comps[depth]
		if !strings.ContainsAny(comp, "*?[") {
			k := n.kids[comp]
			if k == nil {
				return "", false
			}
			n = k
			continue
		}
		for _, name := range n.names {
			if !compsIntersect(comp, name) {
				continue
			}
			k := n.kids[name]
			if depth == len(comps)-1 {
				if k.raw != "" && !skip(k.abs) {
					return k.raw, true
				}
				if open {
					if r, ok := k.first(skip); ok {
						return r, true
					}
				}
				continue
			}
			if r, ok := k.match(comps[depth+1:], open, skip); ok {
				return r, true
			}
		}
		return "", false
	}
}

func splitPath(p string) []string {
	if p == "/" {
		return nil
	}
	return strings.Split(strings.TrimPrefix(p, "/"), "/")
}

func under(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || strings.HasPrefix(p, dir) && p[len(dir)] == '/'
}

// zone classifies a resolved, clean, absolute path.
func (c *classifier) zone(p string) string {
	switch {
	case p == c.ws:
		return "workspace_root"
	case under(p, c.ws):
		return "workspace"
	case p == "/":
		return "root"
	case under(p, "/proc"):
		return procZone(p)
	case under(p, "/dev"):
		return devZone(p)
	case c.home != "" && c.home != "/" && under(p, c.home):
		return "home"
	case c.isReserved(p):
		return "outside"
	case p == "/tmp":
		return "tmp_root"
	case under(p, "/tmp"), under(p, "/dev/shm"):
		return "tmp"
	}
	if c.readRoot(p) {
		return "system"
	}
	return "outside"
}

func (c *classifier) isReserved(p string) bool {
	for _, r := range c.reserved {
		if under(p, r) {
			return true
		}
	}
	return false
}

func (c *classifier) readRoot(p string) bool {
	for d := p; ; d = path.Dir(d) {
		if c.readRoots[d] {
			return true
		}
		if path.Dir(d) == d {
			break // "/", or "." for a path that is not absolute
		}
	}
	if len(c.readGlobs) > 0 {
		comps := splitPath(p)
		if len(comps) > 0 {
			for _, g := range c.readGlobs {
				if ok, _ := path.Match(g, "/"+comps[0]); ok {
					return true
				}
			}
		}
	}
	return false
}

var procPrivate = map[string]bool{"environ": true, "mem": true, "root": true, "cwd": true, "fd": true, "map_files": true, "fdinfo": false}

// procZone classifies /proc lexically: the gateway's symlinks there describe
// itself, not the sandboxed process.
func procZone(p string) string {
	comps := splitPath(p)
	if len(comps) == 1 {
		return "system"
	}
	first := comps[1]
	switch {
	case first == "self" || first == "thread-self":
		rest := comps[2:]
		if len(rest) >= 2 && rest[0] == "task" {
			rest = rest[2:] // /proc/self/task/TID/… is the same as /proc/self/…
		}
		if len(rest) > 0 && procPrivate[rest[0]] {
			return "proc_private"
		}
		return "system"
	case first == "kcore" || first == "kmem" || first == "sysrq-trigger":
		return "proc_private"
	case isDigits(first) || strings.ContainsAny(first, "*?[$"):
		return "proc_private"
	}
	return "system"
}

var safeDevices = map[string]bool{"/dev/null": true, "/dev/zero": true, "/dev/random": true, "/dev/urandom": true,
	"/dev/stdin": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true, "/dev/full": true, "/dev/fd": true}

func devZone(p string) string {
	switch {
	case p == "/dev":
		return "system"
	case strings.HasPrefix(p, "/dev/fd/") && strings.Contains(p[len("/dev/fd/"):], "/"),
		strings.HasPrefix(p, "/dev/std") && strings.Count(p, "/") > 2:
		// below a descriptor (/dev/fd/3/x): where it leads is not known
		return "unknown"
	case safeDevices[p], under(p, "/dev/fd"):
		return "dev_safe"
	case under(p, "/dev/tcp"), under(p, "/dev/udp"):
		return "dev_net"
	case under(p, "/dev/shm"):
		return "tmp"
	}
	return "device"
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// sensitive reports whether p (resolved) is a secret, and which entry says so.
func (c *classifier) sensitive(p string, zone string) (bool, string) {
	inWS := zone == "workspace" || zone == "workspace_root"
	for d := p; ; d = path.Dir(d) {
		if e, ok := c.secrets[d]; ok {
			return true, e
		}
		if path.Dir(d) == d || inWS && d == c.ws {
			// entries above the workspace (a workspace under /root) do
			// not make the workspace itself secret
			break
		}
	}
	if len(c.secretPat) > 0 && !inWS {
		comps := splitPath(p)
		for i, pat := range c.secretPat {
			if len(comps) >= len(pat) && matchComps(pat, comps[:len(pat)]) {
				return true, c.secretRaw[i]
			}
		}
	}
	if zone != "workspace" && zone != "workspace_root" {
		base := path.Base(p)
		for i, m := range c.nameMatch {
			if m.match(base) {
				return true, c.names[i]
			}
		}
	}
	return false, ""
}

// nameMatcher matches a base name against one of the sensitive names as
// path.Match does, without its work for the common shapes.
type nameMatcher struct {
	kind byte   // '=' equal, '*' suffix, 'p' path.Match
	text string // the name, or the suffix after "*"
}

func matcherFor(n string) nameMatcher {
	switch {
	case !strings.ContainsAny(n, `*?[\`):
		return nameMatcher{'=', n}
	case strings.HasPrefix(n, "*") && !strings.ContainsAny(n[1:], `*?[\`):
		return nameMatcher{'*', n[1:]}
	}
	return nameMatcher{'p', n}
}

func (m nameMatcher) match(base string) bool {
	switch m.kind {
	case '=':
		return base == m.text
	case '*':
		// "*" matches any run of characters but "/", and a base name has none
		return strings.HasSuffix(base, m.text) && !strings.Contains(base, "/")
	}
	ok, _ := path.Match(m.text, base)
	return ok
}

func matchComps(pat, comps []string) bool {
	for i := range pat {
		if ok, _ := path.Match(pat[i], comps[i]); !ok {
			return false
		}
	}
	return true
}

// couldBeSensitive reports whether a path pattern (a glob or a path with
// dynamic parts, written with "*" for the unknown parts) could name a
// secret. spans is true when a "*" may stand for several components (a
// dynamic part may hold slashes; a glob may not).
func (c *classifier) couldBeSensitive(pattern string, spans bool, zone string) (bool, string) {
	comps := splitPath(pattern)
	open := spans && len(comps) > 0 && strings.Contains(comps[len(comps)-1], "*")
	try := func(entry []string, raw string) (bool, string) {
		n := len(entry)
		if len(comps) < n && !open {
			return false, ""
		}
		for i := 0; i < n && i < len(comps); i++ {
			if !compsIntersect(comps[i], entry[i]) {
				return false, ""
			}
		}
		return true, raw
	}
	inWS := zone == "workspace" || zone == "workspace_root"
	// an entry enclosing the workspace (/root) is not a secret inside it
	skip := func(abs string) bool { return inWS && under(c.ws, abs) }
	if r, ok := c.tree.match(comps, open, skip); ok {
		return true, r
	}
	for i, pat := range c.secretPat {
		if inWS && len(pat) <= len(splitPath(c.ws)) && matchComps(pat, splitPath(c.ws)[:len(pat)]) {
			continue
		}
		if ok, r := try(pat, c.secretRaw[i]); ok {
			return ok, r
		}
	}
	if len(comps) > 0 && zone != "workspace" && zone != "workspace_root" && zone != "tmp" && zone != "tmp_root" {
		// key names could match anything a pattern ends with; in the
		// sandbox's private /tmp only what the command itself put there
		last := comps[len(comps)-1]
		for _, n := range c.names {
			if compsIntersect(last, n) {
				return true, n
			}
		}
	}
	return false, ""
}

// compsIntersect reports whether two component patterns can match one name.
func compsIntersect(a, b string) bool {
	am, bm := strings.ContainsAny(a, "*?["), strings.ContainsAny(b, "*?[")
	switch {
	case !am && !bm:
		return a == b
	case !am:
		ok, _ := path.Match(b, a)
		return ok
	case !bm:
		ok, _ := path.Match(a, b)
		return ok
	}
	// Both are patterns: compare their literal heads and tails.
	ah, at := literalEnds(a)
	bh, bt := literalEnds(b)
	return (strings.HasPrefix(ah, bh) || strings.HasPrefix(bh, ah)) &&
		(strings.HasSuffix(at, bt) || strings.HasSuffix(bt, at))
}

func literalEnds(p string) (head, tail string) {
	i := strings.IndexAny(p, "*?[")
	j := strings.LastIndexAny(p, "*?]")
	return p[:i], p[j+1:]
}
