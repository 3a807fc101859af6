package parser

import (
	"bufio"
	"bytes"
	"path"
	"strings"
	"syscall"
)

// gitCode says whether a write or delete of real (absolute, clean) changes
// what git runs or reads as configuration (Path.GitCode).
func (r *run) gitCode(real string) bool {
	if strings.EqualFold(path.Base(real), ".git") {
		return true
	}
	dir := path.Dir(real)
	switch path.Base(real) {
	case "HEAD", "objects", "refs":
		// the last of the three makes dir a repository git finds
		if r.looksLikeGitDir(dir, path.Base(real)) {
			return true
		}
	}
	// Climb to the workspace root (or /tmp, where exec may write): a write
	// anywhere else is judged as one outside already, and each level
	// costs a stat.
	top := ""
	switch ws := r.opts.Workspace; {
	case ws != "" && (dir == ws || under(dir, ws)):
		top = ws
	case dir == "/tmp" || under(dir, "/tmp"):
		top = "/tmp"
	}
	for d, n := dir, 0; top != "" && n < 64; d, n = path.Dir(d), n+1 {
		if strings.EqualFold(path.Base(d), ".git") || r.looksLikeGitDir(d, "") {
			return true
		}
		if d == top || d == "/" || d == "." || d == "" {
			break
		}
	}
	for _, h := range r.hooksPaths() {
		if real == h || under(real, h) {
			return true
		}
	}
	return false
}

// looksLikeGitDir says whether dir holds what makes git take it for a
// repository (HEAD, objects, refs) on disk or once the script's earlier
// writes and mkdirs are done, counting the entry named except as present.
func (r *run) looksLikeGitDir(dir, except string) bool {
	for _, e := range []string{"HEAD", "objects", "refs"} {
		if e == except {
			continue
		}
		p := dir + "/" + e
		if r.stats.look(p).missing && !r.madeDirs[p] && !r.scriptWrote(p) {
			return false
		}
	}
	return true
}

// scriptWrote says whether an earlier command of the script writes p.
func (r *run) scriptWrote(p string) bool {
	for _, q := range r.facts.Paths {
		if q.Access == "write" && !q.Glob && q.Real == p {
			return true
		}
	}
	return false
}

// hooksPaths are the directories core.hooksPath names in the workspace
// repository's config and the user's git config (read once per analysis):
// git runs the hooks found there.
func (r *run) hooksPaths() []string {
	if r.hooksDirs != nil {
		return *r.hooksDirs
	}
	var dirs []string
	add := func(file, base string) {
		v, ok := r.a.hooksPathOf(file)
		if !ok || v == "" {
			return
		}
		if strings.HasPrefix(v, "~/") && r.opts.Home != "" {
			v = r.opts.Home + v[1:]
		}
		if !strings.HasPrefix(v, "/") {
			v = base + "/" + v
		}
		if real, _, _ := r.resolve(v); real != "" {
			dirs = append(dirs, real)
			// husky (v9) points git at .husky/_, whose scripts run the
			// hook of the same name in .husky itself
			if path.Base(real) == "_" && path.Base(path.Dir(real)) == ".husky" {
				dirs = append(dirs, path.Dir(real))
			}
		}
	}
	if ws := r.opts.Workspace; ws != "" {
		add(ws+"/.git/config", ws)
	}
	if h := r.opts.Home; h != "" {
		add(h+"/.gitconfig", h)
		add(h+"/.config/git/config", h)
	}
	r.hooksDirs = &dirs
	return dirs
}

// hooksPathOf is core.hooksPath of a git config file. What a file said is
// kept while its device, inode, size and change time stay the same (a
// change time cannot be set back by a program), so a decision costs one
// stat per file instead of a read.
func (a *Analyzer) hooksPathOf(file string) (string, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(file, &st); err != nil {
		return "", false
	}
	type entry struct {
		dev, ino, size, ctimeSec, ctimeNsec int64
		val                                 string
		ok                                  bool
	}
	id := entry{dev: int64(st.Dev), ino: int64(st.Ino), size: st.Size, ctimeSec: st.Ctim.Sec, ctimeNsec: st.Ctim.Nsec}
	if e, found := a.gitConfigs.Load(file); found {
		if c := e.(entry); c.dev == id.dev && c.ino == id.ino && c.size == id.size && c.ctimeSec == id.ctimeSec && c.ctimeNsec == id.ctimeNsec {
			return c.val, c.ok
		}
	}
	id.val, id.ok = gitConfigValue(file, "core", "hookspath")
	a.gitConfigs.Store(file, id)
	return id.val, id.ok
}

// gitConfigValue reads the last value of section.key from a git config
// file, as git's own simple form writes it ("[core]" then "hooksPath =
// x"); names compare without case.
func gitConfigValue(file, section, key string) (string, bool) {
	b, err := readRegular(file, 1<<20)
	if err != nil {
		return "", false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	in, val, found := false, "", false
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "[") {
			name := strings.TrimSpace(strings.Trim(l, "[]"))
			in = strings.EqualFold(name, section)
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if in && ok && strings.EqualFold(strings.TrimSpace(k), key) {
			val, found = configValue(v), true
		}
	}
	return val, found
}

// configValue is a git config value as git reads it: quotes removed, and a
// comment (# or ; outside quotes) dropped.
func configValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			b.WriteByte(v[i])
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}
