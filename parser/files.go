package parser

import (
	"fmt"
	"strings"
)

// PathArg is a path given directly to a file tool (no shell in between).
type PathArg struct {
	Raw    string
	Access string // read | write | delete
	Glob   bool   // a glob pattern: judged by its literal prefix
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
	r := &run{a: a, opts: opts, cls: newClassifier(a.cfg, opts.Workspace, opts.Home), facts: f}
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
	}
	return f
}
