package parser

import (
	"errors"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// globStar expands a word with a ** part under shopt -s globstar the way
// bash 5 walks it, or a little wider; ok is false for a word it leaves
// to mvdan/sh (one that expands to several fields, or whose ** comes
// from a variable). Braces are expanded first, as bash does, and each
// word globbed on its own.
//
// bash's ** matches the directories below it without descending into
// the links among them: a link to a directory is a match (a/**/*.py
// finds a/l/z.py through the link a/l) but what lies below it is not
// walked (a/**/w.py does not find a/l/u/w.py). mvdan/sh's ** follows
// every link, so a workspace with a link to an ancestor was walked
// around the cycle until the glob budget ended it: milliseconds for a
// word bash expands from a handful of entries. Here each link to a
// directory that ** reaches is a match and is not walked: what bash
// matches, and in the cases where bash 5.2 leaves such a link out
// (**/*.py without a directory before it) a little more.
//
// Directories are read through cfg.ReadDir2 (the glob budget, the
// private /tmp, the listing memo), names matched as mvdan/sh matches
// them; the matches come sorted. No match: the word itself, as bash
// passes it on (none with nullglob).
func (r *run) globStar(st *state, cfg *expand.Config, w *syntax.Word) (fields []string, ok bool, err error) {
	if !cfg.GlobStar || cfg.ReadDir2 == nil || st.cwd == "" || !litStar(w) {
		return nil, false, nil
	}
	words := []*syntax.Word{w}
	split := *w // SplitBraces replaces the parts
	if syntax.SplitBraces(&split) {
		words = words[:0]
		for bw, err := range expand.BracesSeq(cfg, &split) {
			if err != nil {
				return nil, false, nil
			}
			words = append(words, bw)
		}
	}
	for _, bw := range words {
		fs, ok, err := r.globStarWord(st, cfg, bw)
		if !ok {
			fs, err = expand.Fields(cfg, bw)
		}
		if err != nil {
			return nil, true, err
		}
		fields = append(fields, fs...)
	}
	return fields, true, nil
}

// globStarWord expands one word of a brace expansion; ok is false for a
// word it leaves to mvdan/sh.
func (r *run) globStarWord(st *state, cfg *expand.Config, w *syntax.Word) (fields []string, ok bool, err error) {
	if !litStar(w) {
		return nil, false, nil
	}
	return r.globWord(st, cfg, w, true)
}

// globWord globs a word that expands to one field (nothing split it)
// with starGlob, in the working directory; ok is false for a word it
// cannot (several fields; with star, a pattern without a ** part).
func (r *run) globWord(st *state, cfg *expand.Config, w *syntax.Word, star bool) (fields []string, ok bool, err error) {
	plain, err := expand.Fields(r.closed(st), w)
	if err != nil || len(plain) != 1 {
		return nil, false, nil
	}
	// the word's pattern: its quoted parts escaped
	pat, err := expand.Pattern(cfg, w)
	switch {
	case err != nil, star && !slices.Contains(strings.Split(pat, "/"), "**"):
		return nil, false, nil
	case !pattern.HasMeta(pat, 0):
		return plain, true, nil
	}
	g := starGlob{cfg: cfg, base: st.cwd}
	matches, err := g.glob(pat)
	switch {
	case err != nil:
		return nil, true, err
	case len(matches) > 0:
		return matches, true, nil
	case cfg.NullGlob:
		return nil, true, nil
	}
	return plain, true, nil
}

// litStar says whether w's unquoted text holds a **.
func litStar(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "**") {
			return true
		}
	}
	return false
}

type starGlob struct {
	cfg  *expand.Config
	base string // the working directory relative patterns start in
}

// glob expands pat, a pattern as mvdan/sh's escapedGlobField writes it
// (quoted metacharacters escaped with \), part by part.
func (g starGlob) glob(pat string) ([]string, error) {
	parts := strings.Split(pat, "/")
	matches := []string{""}
	if parts[0] == "" && len(parts) > 1 {
		matches[0] = "/"
		parts = parts[1:]
	}
	for i, part := range parts {
		wantDir := i < len(parts)-1
		var next []string
		switch {
		case part == "", part == ".", part == "..":
			for _, m := range matches {
				next = append(next, join(m, part))
			}
		case !pattern.HasMeta(part, 0):
			name := unescapeLit(part) // the backslashes pattern.QuoteMeta wrote
			for _, m := range matches {
				p := join(m, name)
				// as mvdan/sh: what exists, and only directories
				// before another part
				_, err := g.cfg.ReadDir2(g.full(p))
				switch {
				case errors.Is(err, errGlobBudget):
					return nil, err
				case err == nil, !wantDir && !errors.Is(err, fs.ErrNotExist):
					next = append(next, p)
				}
			}
		case part == "**" && g.cfg.GlobStar:
			for _, m := range matches {
				var err error
				if next, err = g.walk(join(m, ""), wantDir, next); err != nil {
					return nil, err
				}
			}
		default:
			rx, err := g.matcher(part)
			if err != nil {
				return nil, nil // a pattern bash cannot read matches nothing
			}
			for _, m := range matches {
				// as mvdan/sh: a directory that cannot be listed
				// makes the word unknown
				ents, err := g.cfg.ReadDir2(g.full(m))
				if err != nil {
					return nil, err
				}
				for _, e := range ents {
					if rx.MatchString(e.Name()) && (!wantDir || e.IsDir()) {
						next = append(next, join(m, e.Name()))
					}
				}
			}
		}
		matches = next
		if len(matches) == 0 {
			return nil, nil
		}
	}
	slices.Sort(matches)
	return slices.Compact(matches), nil
}

// walk adds dir (ending in /) and everything below it that ** matches:
// with wantDir the directories, otherwise every entry; dot entries only
// with dotglob. Real directories are walked; a link to one is a match
// and is not.
func (g starGlob) walk(dir string, wantDir bool, out []string) ([]string, error) {
	out = append(out, dir)
	stack := []string{dir}
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		// A directory ** cannot open holds no matches for bash either;
		// one whose listing broke off is not known whole.
		ents, err := g.cfg.ReadDir2(g.full(d))
		if errors.Is(err, errGlobBudget) || err != nil && len(ents) > 0 {
			return nil, err
		}
		for _, e := range ents {
			name := e.Name()
			if name[0] == '.' && !g.cfg.DotGlob {
				continue
			}
			p := join(d, name)
			real := false
			if de, ok := e.(*dirEntry); ok {
				real = de.typ.IsDir()
			}
			if wantDir && !e.IsDir() {
				continue
			}
			out = append(out, p)
			if real {
				stack = append(stack, p)
			}
		}
	}
	return out, nil
}

// matcher compiles a pattern part as mvdan/sh matches file names.
func (g starGlob) matcher(part string) (*regexp.Regexp, error) {
	mode := pattern.Filenames | pattern.EntireString | pattern.NoGlobStar
	if g.cfg.NoCaseGlob {
		mode |= pattern.NoGlobCase
	}
	if g.cfg.DotGlob {
		mode |= pattern.GlobLeadingDot
	}
	expr, err := pattern.Regexp(part, mode)
	if err != nil {
		return nil, err
	}
	return regexp.Compile(expr)
}

// full is p as a path to read: relative patterns start in the working
// directory.
func (g starGlob) full(p string) string {
	if path.IsAbs(p) {
		return p
	}
	return path.Join(g.base, p)
}

// join appends name to a match as bash writes it: "" + x is x, "a/" + x
// is "a/x".
func join(m, name string) string {
	switch {
	case m == "":
		return name
	case strings.HasSuffix(m, "/"):
		return m + name
	}
	return m + "/" + name
}
