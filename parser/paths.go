package parser

import (
	"io/fs"
	"path"
	"strings"
)

// maxPath is PATH_MAX: longer paths are not resolved.
const maxPath = 4096

// addPath normalizes one path argument, classifies it and adds it to the
// path set. Static paths are resolved through symlinks in kernel order;
// globs that matched nothing and paths with dynamic parts are judged by
// their literal prefix and by the secrets they could still name. A path
// that starts with an unknown part ("$X/etc/shadow") may be absolute: it is
// judged as the worse of relative and absolute.
// entriesThroughLinks matches a pattern with a wildcard before its last
// component (an entry a lister printed, then more path: find -exec cat
// {}/id_rsa, ls | xargs -I{} cat {}/x) on disk as the shell would, the
// wildcard going through links: for a pattern in the workspace, a match
// that is a secret or lies outside it is what the command reaches.
func (r *run) entriesThroughLinks(p Path, st *state, access string, cmd int, name string) (Path, bool) {
	pat := p.Real
	i := strings.IndexAny(pat, "*?[")
	if i < 0 || !strings.HasPrefix(pat, "/") {
		return p, false
	}
	slash := strings.LastIndex(pat[:i], "/")
	rest := pat[slash+1:]
	if !strings.Contains(rest, "/") {
		return p, false // the entries themselves: judged as they are
	}
	dir := pat[:slash]
	if dir == "" {
		dir = "/"
	}
	comps := strings.Split(rest, "/")
	last := ""
	if c := comps[len(comps)-1]; !isGlob(c) && c != "" && c != "." && c != ".." {
		// a literal last name need not exist yet: a write makes it
		comps, last = comps[:len(comps)-1], c
	}
	// only a link the wildcard takes leads elsewhere: an entry that is
	// no link keeps the path where the pattern says
	ents, err := readDir(dir)
	if err != nil || len(comps) == 0 || !isGlob(comps[0]) {
		return p, false
	}
	budget := 4096
	var out []string
	for _, e := range ents {
		if e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		if ok, _ := path.Match(comps[0], e.Name()); ok {
			r.globWalk(strings.TrimSuffix(dir, "/")+"/"+e.Name(), comps[1:], &budget, &out)
		}
	}
	for k, m := range out {
		if last != "" {
			m = strings.TrimSuffix(m, "/") + "/" + last
		}
		if k >= 64 {
			break
		}
		q := r.classifyPath(field{text: m, pattern: m}, st, access, cmd, name)
		if q.Sensitive || q.Zone != "workspace" {
			return q, true
		}
	}
	return p, false
}

func (r *run) addPath(f field, st *state, access string, cmd int, name string) Path {
	p := r.classifyPath(f, st, access, cmd, name)
	if f.dynamic && !f.proc && p.Zone != "unknown" && (strings.HasPrefix(f.pattern, "*/") || f.leadOpen && strings.HasPrefix(f.pattern, "*") || f.climbs) {
		// what the unknown start holds could be absolute: judge the
		// path from the root as well ("*/x": as /x; "*…": as /*…); one
		// that climbs (src/$(cat f)/x) by what follows it, from the root
		rest := f.pattern[1:]
		if f.climbs {
			rest = f.climbRest
			if !strings.HasPrefix(rest, "/") {
				rest = "/*" + rest
			}
		} else if !strings.HasPrefix(rest, "/") {
			rest = "/" + f.pattern
		}
		alt := r.classifyPath(field{text: rest, pattern: rest, dynamic: strings.ContainsAny(rest, "*?["), glob: strings.ContainsAny(rest, "*?[")}, st, access, cmd, name)
		if alt.Sensitive || alt.Zone != "workspace" && alt.Zone != p.Zone {
			alt.Raw, alt.Dynamic, alt.Glob = p.Raw, true, true
			p = alt
		}
	}
	if p.Glob && p.Zone == "workspace" && !p.Sensitive && !f.proc {
		if q, ok := r.entriesThroughLinks(p, st, access, cmd, name); ok {
			q.Raw, q.Glob = p.Raw, true
			p = q
		}
	}
	if access == "delete" && cmd >= 0 && (name == "rm" || name == "shred" || name == "zip" || name == "tar" || name == "rsync" || name == "mv") {
		// what a glob operand of a deleter takes from the workspace root:
		// an entry it matched, or (a * over a directory the script has
		// yet to link to the root, so nothing matched now) everything
		entry := ""
		switch {
		case (f.globWord || r.globLoop) && !p.Glob && r.inRoot(p.Abs):
			entry = path.Base(p.Abs)
		case f.globWord && p.Glob && !p.Dynamic && path.Base(p.Abs) == "*" && r.inRoot(p.Abs):
			entry = "*"
		case f.allEntries && r.inRoot(p.Abs):
			entry = "*"
		}
		if entry != "" {
			key := cmd
			if r.globLoop {
				if r.loopKey < 0 {
					r.loopKey = cmd
				}
				key = r.loopKey
			}
			if r.globDeletes == nil {
				r.globDeletes = map[int]map[string]bool{}
			}
			if r.globDeletes[key] == nil {
				r.globDeletes[key] = map[string]bool{}
			}
			r.globDeletes[key][entry] = true
		}
	}
	if (access == "write" || access == "delete") && p.Zone != "unknown" {
		p.GitCode = r.gitCode(p.Real)
	}
	if access == "write" && !p.Glob && r.opaqueWriter(name) {
		r.wrote(p.Real, nil) // downloaded or decoded: nobody saw the content
	}
	r.facts.Paths = append(r.facts.Paths, p)
	return p
}

// inRoot says whether the entry abs (lexically clean) sits directly in the
// workspace root, its directory taken through symlinks (a link to the
// workspace, or one the script made).
func (r *run) inRoot(abs string) bool {
	ws := r.opts.Workspace
	if ws == "" {
		return false
	}
	dir := path.Dir(abs)
	if dir == ws {
		return true
	}
	// every match of one glob shares its directory: resolve an existing
	// one once
	if in, ok := r.rootDirs[dir]; ok {
		return in
	}
	real, exists, _ := r.resolve(dir)
	if !exists {
		// links the script makes change as it goes: not cached
		if t, ok := r.throughLinks(real); ok {
			real, _, _ = r.resolve(t)
		}
		return real == ws
	}
	if r.rootDirs == nil {
		r.rootDirs = map[string]bool{}
	}
	r.rootDirs[dir] = real == ws
	return real == ws
}

// classifyPath computes a path entry without adding it.
func (r *run) classifyPath(f field, st *state, access string, cmd int, name string) Path {
	p := Path{Raw: f.text, Access: access, Cmd: cmd, Command: name, Dynamic: f.dynamic, Glob: f.glob || f.dynamic, findNames: f.findNames, noLinks: f.noLinks, listed: f.listed, tracked: f.tracked}
	if f.proc {
		// <(…) and >(…) are pipes to a process analysed on its own
		p.Abs, p.Real, p.Zone = "/dev/fd/63", "/dev/fd/63", "dev_safe"
		return p
	}
	text := f.text
	if p.Glob {
		text = f.pattern
	}
	text = r.tilde(text)
	if text == "~" || strings.HasPrefix(text, "~/") {
		// no home directory known: where ~ leads cannot be told
		p.Abs, p.Zone = text, "unknown"
		return p
	}
	if text == "" {
		text = "."
	}
	if len(text) > maxPath {
		// longer than PATH_MAX: the kernel would refuse it; nothing to resolve
		p.Abs, p.Zone = text[:64]+"…", "unknown"
		return p
	}
	var joined string
	fromCwd := false
	switch {
	case strings.HasPrefix(text, "/"):
		joined = text
	case st.cwd == "":
		p.Abs, p.Zone = text, "unknown"
		return p
	default:
		joined = st.cwd + "/" + text
		fromCwd = st.cwdReal
		if !st.cwdReal && r.madeDirs[st.cwd] {
			joined = path.Clean(joined) // (a directory mkdir made)
		}
	}
	p.Abs = path.Clean(joined)
	if !p.Glob {
		var real string
		var exists, loop bool
		if fromCwd {
			real, exists, loop = r.resolveFrom(st.cwd, text)
		} else {
			real, exists, loop = r.resolve(joined)
		}
		if last := path.Base(text); f.noFollow && !strings.HasSuffix(text, "/") && last != "." && last != ".." {
			// the link itself: its directory resolved, its own name kept
			if r.stats.look(p.Abs).link {
				if dir, ok, _ := r.resolve(path.Dir(p.Abs)); ok {
					real, exists, loop = strings.TrimSuffix(dir, "/")+"/"+path.Base(p.Abs), true, false
					p.link = true
				}
			}
		}
		p.Real, p.Exists = real, exists
		p.Zone = r.cls.zone(real)
		if !exists || r.overDiskAt(real) {
			if t, ok := r.throughLinks(real); ok {
				real, exists, loop = r.resolve(t)
				p.Real, p.Exists = real, exists
				p.Zone = r.cls.zone(real)
			}
		}
		if loop {
			p.Zone = "unknown" // a symlink loop: where it leads cannot be told
		}
		p.Sensitive, p.SensitiveMatch = r.cls.sensitive(real, p.Zone)
	} else {
		r.classifyPattern(&p, joined, f)
	}
	p.InWorkspace = p.Zone == "workspace" || p.Zone == "workspace_root"
	return p
}

func (r *run) classifyPattern(p *Path, joined string, f field) {
	meta := strings.IndexAny(joined, "*?[")
	if meta < 0 {
		meta = len(joined)
	}
	slash := strings.LastIndexByte(joined[:meta], '/')
	prefixDir, rest := joined[:slash], joined[slash+1:]
	if prefixDir == "" {
		prefixDir = "/"
	}
	realPrefix, exists, _ := r.resolve(prefixDir)
	if !exists {
		if t, ok := r.throughLinks(realPrefix); ok {
			realPrefix, _, _ = r.resolve(t)
		}
	}
	p.Real = strings.TrimSuffix(realPrefix, "/") + "/" + rest
	couldBeEmpty := f.dynamic && !f.named && strings.Trim(rest, "*/") == ""
	switch {
	case f.wild, containsDotDot(rest):
		// a word that could be anything, or ".." after an unknown part
		p.Zone = "unknown"
	case couldBeEmpty:
		p.Zone = r.cls.zone(realPrefix)
	default:
		p.Zone = r.cls.zone(path.Join(realPrefix, "*"))
	}
	if s, m := r.cls.sensitive(realPrefix, p.Zone); s {
		p.Sensitive, p.SensitiveMatch = true, m
		return
	}
	if p.Zone == "unknown" {
		return // denied as unknown; guessing which secret it could be adds nothing
	}
	p.Sensitive, p.SensitiveMatch = r.cls.couldBeSensitive(p.Real, f.dynamic, p.Zone)
}

func containsDotDot(s string) bool {
	for _, c := range strings.Split(s, "/") {
		if c == ".." {
			return true
		}
	}
	return false
}

// tilde expands a leading ~ of a path that did not go through the shell's
// own expansion (option values such as --file=~/x).
func (r *run) tilde(s string) string {
	if !strings.HasPrefix(s, "~") {
		return s
	}
	user, rest, _ := strings.Cut(s[1:], "/")
	var home string
	switch user {
	case "":
		home = r.opts.Home
	case "root":
		home = "/root"
	case "+":
		return s // the working directory: not a home
	default:
		home = "/home/" + user
	}
	if home == "" {
		return s
	}
	if rest == "" && !strings.Contains(s, "/") {
		return home
	}
	return home + "/" + rest
}

// overDiskAt says whether real lies at or below an entry where the script
// put a link over what the disk still shows (mv src x; mv a/k src): there
// the link counts, not the disk.
func (r *run) overDiskAt(real string) bool {
	for e := range r.overDisk {
		if real == e || strings.HasPrefix(real, e+"/") {
			return true
		}
	}
	return false
}

// throughLinks rewrites a path that runs through a symbolic link the script
// created earlier (ln -s) to run through the link's target instead.
func (r *run) throughLinks(real string) (string, bool) {
	for link, target := range r.links {
		if real == link {
			return target, true
		}
		if strings.HasPrefix(real, link+"/") {
			return target + real[len(link):], true
		}
	}
	return "", false
}
