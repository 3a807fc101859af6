package parser

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// PathArg is a path given directly to a file tool (no shell in between).
type PathArg struct {
	Raw    string
	Access string // read | write | delete
	Glob   bool   // a glob pattern: judged by its literal prefix
	// Tree: the tool reads every file below the path when it is a
	// directory, hidden ones too (the search tool without a file filter).
	Tree bool
}

// Paths normalizes and classifies the paths of a file tool call. Unlike
// Analyze there is no shell: nothing is expanded except a leading "~".
func (a *Analyzer) Paths(args []PathArg, opts Options) (f *Facts) {
	opts.defaults()
	f = newFacts()
	defer func() {
		if r := recover(); r != nil {
			f.ParseError = &ParseError{Code: CodeInternal, Message: fmt.Sprintf("the analyser failed: %v", r)}
		}
	}()
	r := &run{a: a, opts: opts, cls: a.classifier(opts.Workspace, opts.Home), facts: f, stats: statMemo{}}
	defer func() { r.cls.protect(f.Paths, f.Commands) }()
	st := &state{cwd: opts.Workspace, vars: map[string]string{}}
	for _, p := range args {
		switch {
		case strings.IndexByte(p.Raw, 0) >= 0:
			f.ParseError = &ParseError{Code: CodeNUL, Message: "path holds a NUL byte"}
			return f
		case len(p.Raw) > 4096:
			f.ParseError = &ParseError{Code: CodeTooLong, Message: "path is longer than 4096 bytes"}
			return f
		}
		fl := field{text: p.Raw, pattern: p.Raw, glob: p.Glob && hasGlobMeta(p.Raw)}
		r.addPath(fl, st, p.Access, -1, "")
		if q := &f.Paths[len(f.Paths)-1]; p.Tree && q.Exists && !q.Glob && isDir(q.Real) {
			q.Tree = true
			if m, ok := r.cls.holdsSecret(q.Real, treeFilter{hidden: true}); ok && !q.Sensitive {
				q.Sensitive, q.SensitiveMatch = true, m
			}
		}
		if p.Glob {
			// every match counts, with symlinks resolved; an alternative
			// that names a place outside the workspace is judged as that
			// place, unlisted
			matches, outside := r.globMatches(p.Raw)
			for _, m := range matches {
				// a match is named, not followed (the file tools skip
				// symbolic links they meet while matching)
				r.addPath(field{text: m, pattern: m, noFollow: true}, st, p.Access, -1, "")
			}
			for _, alt := range outside {
				r.addPath(field{text: alt, pattern: alt, glob: hasGlobMeta(alt)}, st, p.Access, -1, "")
			}
		}
	}
	return f
}

// globMatches expands a file tool's glob pattern against the workspace, as
// a glob tool would: braces, "*", "?", "[…]" within a component, "**" for
// any depth. "**" does not descend into symlinked directories; a wildcard
// component matching a symlink does go through it. The walk reads at most
// MaxGlob directory entries; past that the matches found so far are kept.
// The brace alternatives that are absolute, start with ~ or whose literal
// start leads outside the workspace are not walked (the file tools refuse
// them): they are returned in outside, to be judged as the places they name.
func (r *run) globMatches(pattern string) (matches, outside []string) {
	budget := r.opts.MaxGlob * 4
	for _, pat := range expandBraces(pattern) {
		comps := strings.Split(strings.Trim(pat, "/"), "/")
		if strings.HasPrefix(pat, "/") || strings.HasPrefix(pat, "~") || r.leavesWorkspace(comps) {
			outside = append(outside, pat)
			continue
		}
		r.globWalk(r.opts.Workspace, comps, &budget, &matches)
	}
	return matches, outside
}

// leavesWorkspace says whether the literal components a pattern starts with
// (up to its first wildcard) name a place outside the workspace, through
// ".." or a symlink: the pattern is then judged by that place, and its
// matches need not be listed.
func (r *run) leavesWorkspace(comps []string) bool {
	lit := r.opts.Workspace
	for _, c := range comps {
		if isGlob(c) || c == "**" {
			break
		}
		lit = path.Join(lit, c)
	}
	if lit == r.opts.Workspace {
		return false
	}
	real, err := filepath.EvalSymlinks(lit)
	if err != nil {
		real = path.Clean(lit) // missing: judged lexically
	}
	return real != r.opts.Workspace && !strings.HasPrefix(real, r.opts.Workspace+"/")
}

func (r *run) globWalk(dir string, comps []string, budget *int, out *[]string) {
	if *budget <= 0 || len(*out) > maxFeedItems*8 {
		return
	}
	if len(comps) == 0 {
		*out = append(*out, dir)
		return
	}
	c, rest := comps[0], comps[1:]
	join := func(name string) string {
		if dir == "/" {
			return "/" + name
		}
		return dir + "/" + name
	}
	switch {
	case c == "" || c == ".":
		r.globWalk(dir, rest, budget, out)
	case c == "..":
		r.globWalk(join(".."), rest, budget, out)
	case c == "**":
		r.globWalk(dir, rest, budget, out)
		ents, err := readDir(dir)
		*budget -= len(ents) + 1
		if err != nil {
			return
		}
		for _, e := range ents {
			if e.IsDir() { // a symlink is not IsDir: ** does not follow links
				r.globWalk(join(e.Name()), comps, budget, out)
			}
		}
	case isGlob(c):
		ents, err := readDir(dir)
		*budget -= len(ents) + 1
		if err != nil {
			return
		}
		for _, e := range ents {
			if ok, _ := path.Match(c, e.Name()); ok {
				r.globWalk(join(e.Name()), rest, budget, out)
			}
		}
	default:
		if _, err := os.Lstat(join(c)); err == nil {
			r.globWalk(join(c), rest, budget, out)
		}
	}
}

// expandBraces expands {a,b} alternatives (bounded), as glob tools do.
func expandBraces(p string) []string {
	w := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: p}}}
	if !syntax.SplitBraces(w) {
		return []string{p}
	}
	var out []string
	for x, err := range expand.BracesSeq(nil, w) {
		if err != nil || len(out) >= 64 {
			break
		}
		out = append(out, x.Lit())
	}
	return out
}
