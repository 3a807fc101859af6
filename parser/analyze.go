package parser

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Options say where a script runs and how much analysis it may cost.
type Options struct {
	Workspace  string // absolute, symlink-free workspace root
	Home       string // the agent's home directory ($HOME, ~)
	WorkingDir string // exec's working_dir argument, relative to Workspace; "" for the root
	MaxBytes   int    // longest script accepted; default 64 KiB
	MaxDepth   int    // deepest nesting of sh -c / eval / $(…); default 8
	MaxCmds    int    // most simple commands analysed; default 2,000
	MaxGlob    int    // most directory entries read while expanding globs; default 4,096
	MaxBraces  int    // most words one word's brace expansion may make; default 1,024
	// Environ is the environment the command runs in, when known (a box
	// clears it and sets a few variables; a hook's command inherits the
	// agent's, which toolgate shares): a variable the script does not set
	// has its value there, and is unset when it is not there. With EnvKnown
	// false such a variable could hold anything, so a path it leads is
	// judged as any path. OLDPWD is never taken from it (it follows the
	// agent's own cds).
	Environ  map[string]string
	EnvKnown bool
	// Bases are directories known to be existing, absolute, clean and
	// symlink-free, outside /proc and /dev, for the analyser's life (the
	// workspace root, and the home directory when it resolved so at
	// start): an absolute path below one is walked from there, as a
	// relative path is walked from the workspace, instead of from "/".
	Bases []string
}

func (o *Options) defaults() {
	if o.MaxBytes <= 0 {
		o.MaxBytes = 64 << 10
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 8
	}
	if o.MaxCmds <= 0 {
		o.MaxCmds = 2000
	}
	if o.MaxGlob <= 0 {
		o.MaxGlob = 4096
	}
	if o.MaxBraces <= 0 {
		o.MaxBraces = 1024
	}
}

// Analyzer turns scripts into facts. It is safe for concurrent use: each call
// to Analyze keeps its state on its own.
type Analyzer struct {
	cfg    Config
	shells map[string]bool
	// interpreters by exact name, and the patterns among them
	interpreters       map[string]bool
	interpreterPattern []string
	wrappers           map[string]bool
	execSinks          map[string]bool
	fileSinks          map[string]bool
	// command groups, by exact name and by pattern
	groupExact    map[string][]string
	groupPatterns []groupPattern
	// classifiers by workspace and home: built once, read-only after
	classifiers sync.Map
	// gitConfigs: core.hooksPath of the git config files read, keyed on
	// the file's identity and change time (configCache)
	gitConfigs sync.Map
}

// classifier returns the (cached) classifier for a workspace and home.
func (a *Analyzer) classifier(ws, home string) *classifier {
	key := ws + "\x00" + home
	if c, ok := a.classifiers.Load(key); ok {
		return c.(*classifier)
	}
	c, _ := a.classifiers.LoadOrStore(key, newClassifier(a.cfg, ws, home))
	return c.(*classifier)
}

// New returns an Analyzer for the given lists (empty lists take defaults).
func New(cfg Config) *Analyzer {
	cfg = cfg.merged()
	set := func(l []string) map[string]bool {
		m := make(map[string]bool, len(l))
		for _, s := range l {
			m[s] = true
		}
		return m
	}
	a := &Analyzer{cfg: cfg, shells: set(cfg.Shells), interpreters: map[string]bool{},
		wrappers: set(cfg.Wrappers), execSinks: set(cfg.ExecSinkVars), fileSinks: set(cfg.FileSinkVars),
		groupExact: map[string][]string{}}
	for _, n := range cfg.Interpreters {
		if strings.ContainsAny(n, "*?[") {
			a.interpreterPattern = append(a.interpreterPattern, n)
		} else {
			a.interpreters[n] = true
		}
	}
	for g, names := range cfg.groups() {
		for _, n := range names {
			if strings.ContainsAny(n, "*?[") {
				a.groupPatterns = append(a.groupPatterns, groupPattern{g, n})
			} else {
				a.groupExact[n] = append(a.groupExact[n], g)
			}
		}
	}
	return a
}

func (a *Analyzer) isInterpreter(name string) bool {
	if a.interpreters[name] {
		return true
	}
	for _, p := range a.interpreterPattern {
		if ok, _ := path.Match(p, name); ok || p == name {
			return true
		}
	}
	return false
}

// errBudget aborts a walk that exceeded its budget or depth.
type errStop struct{ pe *ParseError }

func (e errStop) Error() string { return e.pe.Message }

// run is the state of one analysis.
type run struct {
	// funcs are the functions the script declares, for walking their
	// bodies again at a call with the call's arguments; funcDepth and
	// funcWalks bound that.
	// funcs: the bodies declared for each function name, every one (a
	// redefinition in a subshell, a branch or another function may or may
	// not be the one a call runs)
	funcs map[string][]*syntax.Stmt
	// madeDirs are directories the script creates with mkdir (absent
	// before): a cwd there is a real directory once it runs, so ".."
	// from it is lexical
	madeDirs  map[string]bool
	funcDepth int
	funcWalks int
	a         *Analyzer
	opts      Options
	cls       *classifier
	facts     *Facts
	glob      int // directory entries read so far
	globOver  int // directory reads refused for the budget: mvdan/sh drops some of those errors
	// links made by the script (ln -s) that do not exist yet: link → target
	links map[string]string
	// exits: for each function call and loop being walked (innermost
	// last), the states a return, break or continue left it in
	exits []*exitFrame
	// login: commands started as a login shell is (exec -l)
	login map[int]bool
	// moved: entries a mv took away (mv src x): no longer what the disk
	// shows there
	moved map[string]bool
	// overDisk: entries where a link now stands over what the disk shows
	// (overDiskAt)
	overDisk map[string]bool
	// assoc: names declared associative arrays (declare -A); their
	// elements are not followed
	assoc map[string]bool
	// linkTexts: what those links hold, when known (ln -s TEXT): a relative
	// one is read from where the link is moved to (cpLinks)
	linkTexts map[string]string
	// calls between functions made in the background or a pipeline
	forkCalls map[string][]string
	// files the script wrote, with their content when it is literal (nil
	// when not): running one is running that content
	written map[string]*string
	// files whose text the analysis read from disk (knownText)
	textReads []textRead
	// catOut: what the cat just analysed copies, when known (catText)
	catOut *string
	// trap handlers, judged at the end with the script's final state
	traps []trap
	// directories filled by downloads (git clone): scripts under them are
	// code nobody saw
	opaqueDirs []string
	// opaque: files downloaded under names the script does not know
	// (download.go); opaqueAll: in a directory it does not know either.
	opaque    []opaqueFiles
	opaqueAll bool
	// globDeletes: entries of the workspace root deleted through a glob
	// word, by command (see emptiesRoot)
	globDeletes map[int]map[string]bool
	// globLoop: inside a for loop over a glob word (for f in *), whose
	// items the body deletes one by one: those deletes count as the glob's,
	// under one key, the first deleting command's (loopKey; -1 until then)
	globLoop bool
	loopKey  int
	// openVars: variables once assigned what could be any absolute path
	// (an opaque command's output); "$x/…" is then judged from the root
	openVars map[string]bool
	// stats memoises the path walks' lstat and readlink answers for the
	// analysis (statMemo)
	stats statMemo
	// rootDirs: directories of deleted glob matches, and whether each is
	// the workspace root through links (inRoot)
	rootDirs map[string]bool
	// entryWalks: the (directory, access, name tests, command) walks
	// entryLinks has done, so a loop body walked again adds nothing twice
	entryWalks map[string]bool
	// shopts are the shell options the script turns on that change what
	// globs match (shopt -s globstar, dotglob, nocaseglob; BASHOPTS): the
	// expansion follows them wherever in the script they were set, which
	// matches as much or more. globOpts: an option not known statically;
	// every glob is unknown then.
	shopts   map[string]bool
	globOpts bool
	// hooksDirs: the directories core.hooksPath names (hooksPaths), once
	// read
	hooksDirs *[]string
	// lists: the directory listings globs made in this analysis
	// (listDir)
	lists map[string]dirListing
	// finds: what each find command prints, by command index
	finds map[int]findInfo
}

// state is what a statement can change for the ones after it.
type state struct {
	cwd  string // "" when unknown
	vars map[string]string
	// arrays are the indexed arrays the script filled with elements known
	// statically (a=(x y), a+=(z)); a name here is not in vars. Their
	// slices are never changed in place: states share them.
	arrays map[string][]string
	// nums are wild variables known to hold a decimal integer (a counter
	// a loop carries from pass to pass): arithmetic on them runs nothing
	nums map[string]bool
	// ro are the read-only variables (readonly, declare -r): bash refuses
	// any later assignment to them and goes on. true: surely read-only;
	// false: read-only on some of the paths that led here (a readonly in a
	// branch, a loop, a function body), where an assignment may or may not
	// have happened
	ro map[string]bool
	// refs are the name references (declare -n NAME=TARGET): what is
	// assigned to NAME lands in TARGET ("" when not known)
	refs map[string]string
	dirs []string // pushd stack
	// cwdReal: cwd is an existing, symlink-free directory outside /proc
	// and /dev, so relative paths may be resolved from it (ResolveFrom).
	cwdReal bool
	// aliases defined by the script (alias NAME=BODY, hash -p PATH NAME)
	aliases map[string]string
	// wild variables could hold anything: one of several values (set in a
	// branch or a function), or input (read, mapfile). A path built from
	// one is unknown, not judged by its prefix.
	wild map[string]bool
	// entries: variables read from a path lister's output (find . | while
	// read f): each value is some entry of a directory
	entries map[string]entryVar
	// params are the positional parameters ($1 … $@) when known: inside a
	// function body walked for one call
	params []string
	// gone are variables the script unset or gave a value not known
	// statically; noEnv is set once a sourced file may have set any. The
	// environment's value (Options.Environ) no longer stands for them.
	gone  map[string]bool
	noEnv bool
	// failed is the state after the last command had it failed, when
	// that differs (a cd to a directory missing when the analysis runs
	// may fail, and bash then goes on where it was): set by the command,
	// taken by the && or || around it, else merged in once its statement
	// ends. Never copied by clone.
	failed *state
}

// forget drops what is known of a variable's value: it no longer has the
// environment's value either.
func (s *state) forget(name string) {
	if s.readOnly(name) || s.maybeReadOnly(name) || s.throughRef(name) {
		return
	}
	delete(s.nums, name)
	delete(s.vars, name)
	delete(s.arrays, name)
	if s.gone == nil {
		s.gone = map[string]bool{}
	}
	s.gone[name] = true
}

// entryVar is a value a lister printed: an entry matching pattern ("DIR/*");
// named when the lister picked entries by a name "." fails (find -name).
type entryVar struct {
	pattern string
	named   bool
	noLinks bool     // the lister prints no symbolic links (field.noLinks)
	names   []string // the -name tests every entry passes (field.findNames)
	tracked bool     // field.tracked
}

// throughRef handles a write to name that changes another variable than
// name itself: an element (a[0], set by printf -v, read, declare, unset)
// leaves the whole array unknown, and so does a write through a name
// reference its target. It says whether name was such a write.
func (s *state) throughRef(name string) bool {
	base, _, elem := strings.Cut(name, "[")
	if elem && base != "" {
		s.setWild(base)
		return true
	}
	if t, ok := s.refs[name]; ok {
		if s.wild == nil {
			s.wild = map[string]bool{}
		}
		s.wild[name] = true
		delete(s.vars, name)
		delete(s.arrays, name)
		if t, _, _ = strings.Cut(t, "["); t != "" && t != name {
			if _, loop := s.refs[t]; !loop {
				s.setWild(t)
			}
		}
		return false
	}
	return false
}

func (s *state) setWild(name string) {
	if s.readOnly(name) || s.throughRef(name) {
		return
	}
	if s.wild == nil {
		s.wild = map[string]bool{}
	}
	s.wild[name] = true
	delete(s.nums, name)
	delete(s.vars, name)
	delete(s.arrays, name)
}

// setWildOnly marks name wild, leaving its value maps as they are (the
// caller has cleared them).
func (s *state) setWildOnly(name string) {
	if s.wild == nil {
		s.wild = map[string]bool{}
	}
	s.wild[name] = true
}

// setNum records that name, whose value is not known, holds a decimal
// integer (the result of arithmetic).
func (s *state) setNum(name string) {
	if strings.Contains(name, "[") {
		return
	}
	if s.nums == nil {
		s.nums = map[string]bool{}
	}
	s.nums[name] = true
}

// setScalar gives name the value v, as NAME=v does: for an array, its
// first element (bash keeps the others).
// readOnly says whether name (or the array name[…] is an element of) is
// surely read-only: an assignment to it fails and changes nothing.
func (s *state) readOnly(name string) bool {
	base, _, _ := strings.Cut(name, "[")
	return s.ro[base]
}

// maybeReadOnly says whether name may be read-only: an assignment may have
// failed or not, so it leaves the value unknown (forget and setScalar make
// it wild instead).
func (s *state) maybeReadOnly(name string) bool {
	base, _, _ := strings.Cut(name, "[")
	ro, ok := s.ro[base]
	if ok && !ro {
		s.setWild(base)
		return true
	}
	return false
}

func (s *state) setScalar(name, v string) (set bool) {
	if s.readOnly(name) || s.maybeReadOnly(name) {
		return false
	}
	delete(s.nums, name)
	if _, ref := s.refs[name]; ref || strings.Contains(name, "[") {
		s.setWild(name)
		return false // what changed is unknown: wild it stays
	}
	if arr, ok := s.arrays[name]; ok {
		arr = slices.Clone(arr)
		if len(arr) == 0 {
			arr = []string{v} // a=(); a=x: a=(x)
		} else {
			arr[0] = v
		}
		s.arrays[name] = arr
		return true
	}
	s.vars[name] = v
	return true
}

func (s *state) clone() *state {
	n := &state{cwd: s.cwd, cwdReal: s.cwdReal, vars: maps.Clone(s.vars), dirs: append([]string(nil), s.dirs...)}
	if n.vars == nil {
		n.vars = map[string]string{}
	}
	// the arrays' slices are shared: never changed in place (setScalar)
	n.arrays, n.nums, n.refs, n.ro = maps.Clone(s.arrays), maps.Clone(s.nums), maps.Clone(s.refs), maps.Clone(s.ro)
	n.aliases, n.wild, n.gone, n.entries = maps.Clone(s.aliases), maps.Clone(s.wild), maps.Clone(s.gone), maps.Clone(s.entries)
	n.params, n.noEnv = s.params, s.noEnv
	return n
}

// merge makes st what is known after one of alts ran (alts may include st
// itself, for a branch that may not run): a variable, alias or directory
// that differs between them becomes unknown.
func merge(st *state, alts ...*state) {
	keys := map[string]bool{}
	wild := map[string]bool{}
	gone := map[string]bool{}
	noEnv := false
	for _, a := range alts {
		for k := range a.gone {
			gone[k] = true
		}
		noEnv = noEnv || a.noEnv
		for k := range a.vars {
			keys[k] = true
		}
		for k := range a.wild {
			wild[k] = true
		}
	}
	// An entry variable every alternative holds alike stays one (a branch
	// inside a `while read f` body leaves f as it was); one held by some
	// alternatives only, or differently, is unknown after.
	var entries map[string]entryVar
	for k, e := range alts[0].entries {
		agree := !wild[k]
		for _, a := range alts[1:] {
			if f, ok := a.entries[k]; !ok || f.pattern != e.pattern || f.named != e.named || f.noLinks != e.noLinks || f.tracked != e.tracked || !slices.Equal(f.names, e.names) {
				agree = false
			}
		}
		if agree {
			if entries == nil {
				entries = map[string]entryVar{}
			}
			entries[k] = e
		}
	}
	for _, a := range alts {
		for k := range a.entries {
			if _, ok := entries[k]; !ok {
				wild[k] = true
			}
		}
	}
	vars := map[string]string{}
	for k := range keys {
		v, ok := alts[0].vars[k]
		agree := true
		for _, a := range alts[1:] {
			if w, ok2 := a.vars[k]; ok2 != ok || w != v {
				agree = false
			}
		}
		switch {
		case agree && ok && !wild[k]:
			vars[k] = v
		case !agree:
			wild[k] = true // one of several values
		}
	}
	// a wild variable every alternative holds as a decimal integer (or
	// knew to be one) is a number still
	var nums map[string]bool
	for k := range wild {
		numeric := true
		for _, a := range alts {
			v, ok := a.vars[k]
			if !(ok && v != "" && strings.Trim(v, "0123456789") == "" || a.nums[k]) {
				numeric = false
				break
			}
		}
		if numeric {
			if nums == nil {
				nums = map[string]bool{}
			}
			nums[k] = true
		}
	}
	st.nums = nums
	// An array every alternative holds alike stays known; one that
	// differs (or exists in some only) holds one of several values.
	var arrays map[string][]string
	for _, a := range alts {
		for k := range a.arrays {
			arr, ok := alts[0].arrays[k]
			agree := ok && !wild[k]
			for _, b := range alts[1:] {
				if o, ok2 := b.arrays[k]; !ok2 || !slices.Equal(o, arr) {
					agree = false
				}
			}
			if agree {
				if arrays == nil {
					arrays = map[string][]string{}
				}
				arrays[k] = arr
			} else {
				wild[k] = true
				delete(vars, k)
			}
		}
	}
	st.wild, st.arrays = wild, arrays
	cwd, real := alts[0].cwd, alts[0].cwdReal
	aliases := alts[0].aliases
	for _, a := range alts[1:] {
		if a.cwd != cwd {
			cwd, real = "", false
		}
		if len(a.aliases) != len(aliases) {
			aliases = unionAliases(aliases, a.aliases)
		}
	}
	st.vars, st.cwd, st.cwdReal, st.aliases, st.entries = vars, cwd, real, aliases, entries
	st.gone, st.noEnv = gone, noEnv
	// a name reference made in any alternative may be one after
	var refs map[string]string
	for _, a := range alts {
		for k, v := range a.refs {
			if refs == nil {
				refs = map[string]string{}
			}
			if o, ok := refs[k]; ok && o != v {
				v = ""
			}
			refs[k] = v
		}
	}
	st.refs = refs
	// read-only on every path: surely; on some: maybe
	var ro map[string]bool
	for _, a := range alts {
		for k := range a.ro {
			if ro == nil {
				ro = map[string]bool{}
			}
			sure := true
			for _, b := range alts {
				if !b.ro[k] {
					sure = false
				}
			}
			ro[k] = sure
		}
	}
	st.ro = ro
}

func unionAliases(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// scope is how the statement being walked is nested.
type scope struct {
	depth int
	ctx   string
	fn    string // enclosing function, for fork-bomb detection
	forky bool   // inside a pipeline or background job within fn
	// decl: walking a function's body where it is declared, its
	// arguments not known; each call walks it again with its own
	decl  bool
	fnIdx int
	nest  int // compound commands (subshells, blocks, if, loops, case) around this one
	// keepFailed: the statement is a part of a && chain or the left side
	// of ||, which take its state.failed themselves (for it alone, not
	// for the statements inside it)
	keepFailed bool
}

// maxNest bounds how deeply compound commands may nest.
const maxNest = 256

func (sc scope) with(ctx string) scope { sc.ctx = ctx; return sc }

// Analyze parses an exec command and reduces it to facts. It never panics and
// never returns nil; a script it cannot analyse has ParseError set.
func (a *Analyzer) Analyze(src string, opts Options) (f *Facts) {
	opts.defaults()
	f = newFacts()
	defer func() {
		if r := recover(); r != nil {
			f.ParseError = &ParseError{Code: CodeInternal, Message: fmt.Sprintf("the analyser failed: %v", r)}
		}
	}()
	switch {
	case len(src) > opts.MaxBytes:
		f.ParseError = &ParseError{Code: CodeTooLong, Message: fmt.Sprintf("command is %d bytes, longer than the %d-byte limit; split it or write a script file in the workspace", len(src), opts.MaxBytes)}
		return f
	case strings.IndexByte(src, 0) >= 0:
		f.ParseError = &ParseError{Code: CodeNUL, Message: "command holds a NUL byte"}
		return f
	case len(opts.WorkingDir) > maxPath:
		f.ParseError = &ParseError{Code: CodeTooLong, Message: fmt.Sprintf("working_dir is %d bytes, longer than the %d-byte limit", len(opts.WorkingDir), maxPath)}
		return f
	case strings.TrimSpace(src) == "":
		f.ParseError = &ParseError{Code: CodeEmpty, Message: "command is empty"}
		return f
	}
	r := &run{a: a, opts: opts, cls: a.classifier(opts.Workspace, opts.Home), facts: f, stats: statMemo{}}
	defer func() { r.cls.protect(f.Paths, f.Commands) }()
	st := &state{cwd: opts.Workspace, cwdReal: opts.Workspace != "", vars: map[string]string{}}
	if opts.WorkingDir != "" {
		wd := r.word(opts.WorkingDir)
		p := r.addPath(wd, st, "cwd", -1, "")
		if p.Zone == "unknown" || p.Dynamic {
			st.cwd, st.cwdReal = "", false
		} else {
			st.cwd, st.cwdReal = p.Real, realDir(p)
		}
	}
	file, err := parseBash(src)
	if err == nil {
		r.quotedSubscripts(file)
	}
	if err != nil {
		f.ParseError = &ParseError{Code: CodeSyntax, Message: "bash syntax error: " + err.Error()}
		return f
	}
	if len(file.Stmts) == 0 {
		f.ParseError = &ParseError{Code: CodeEmpty, Message: "command is empty"}
		return f
	}
	defer r.finishForks()
	err = r.stmts(file.Stmts, st, scope{ctx: "simple", fnIdx: -1})
	for i := 0; err == nil && i < len(r.traps); i++ {
		err = r.nested(r.traps[i].body, st, r.traps[i].sc, "nested-shell")
	}
	if err == nil {
		r.emptiesRoot()
		r.textsRewritten()
	}
	if err != nil {
		var stop errStop
		if errors.As(err, &stop) {
			f.ParseError = stop.pe
		} else {
			f.ParseError = &ParseError{Code: CodeInternal, Message: err.Error()}
		}
	}
	return f
}

// realDir reports whether a resolved cwd path can serve as a ResolveFrom base.
func realDir(p Path) bool {
	return p.Exists && !p.Glob && p.Zone != "unknown" && !under(p.Real, "/proc") && !under(p.Real, "/dev")
}

// word makes a synthetic literal field (for arguments given outside the script).
func (r *run) word(s string) field { return field{text: s, pattern: s} }

func (r *run) stop(code, format string, args ...any) error {
	return errStop{&ParseError{Code: code, Message: fmt.Sprintf(format, args...)}}
}

// stdin describes where a statement's standard input comes from.
type stdin struct {
	kind    string // "", pipe, file, procsubst, heredoc, herestring
	literal *string
	// fileText: for a pipe, the text of the files a plain cat copies
	// into it when the analysis knows them (catText)
	fileText *string
	path     string // the file, for kind file
	from     string // producing command name for pipes
	fromIdx  int    // its index in Commands (meaningful when from != "")
}

func (r *run) stmts(list []*syntax.Stmt, st *state, sc scope) error {
	for _, s := range list {
		if err := r.stmt(s, st, sc, stdin{}); err != nil {
			return err
		}
	}
	return nil
}

// stmt walks one statement; it returns the literal text the statement writes
// to stdout when that is known (echo/printf/cat of literals), for pipes into
// shells.
func (r *run) stmt(s *syntax.Stmt, st *state, sc scope, in stdin) error {
	_, err := r.stmtOut(s, st, sc, in)
	return err
}

func (r *run) stmtOut(s *syntax.Stmt, st *state, sc scope, in stdin) (*string, error) {
	if s.Background || s.Coprocess {
		sc.ctx = "background"
		if sc.fn != "" {
			sc.forky = true
		}
		// a job runs in a subshell: what it assigns, cds or declares
		// stays there (x=src & — x is what it was)
		st = st.clone()
	}
	// Redirections first: they are the statement's stdin and output files.
	pathStart, redirStart := len(r.facts.Paths), len(r.facts.Redirects)
	for _, rd := range s.Redirs {
		if err := r.redirect(rd, st, sc, &in); err != nil {
			return nil, err
		}
	}
	if s.Cmd == nil {
		return nil, nil
	}
	keepFailed := sc.keepFailed
	sc.keepFailed = false
	if !keepFailed {
		// the statement may have failed: the ones after it run either way
		defer func() {
			if st.failed != nil {
				failed := st.failed
				st.failed = nil
				merge(st, st.clone(), failed)
			}
		}()
	}
	pathEnd, cmdStart, redirEnd := len(r.facts.Paths), len(r.facts.Commands), len(r.facts.Redirects)
	out, err := r.command(s.Cmd, st, sc, in)
	// what a redirection of stdout wrote is the command's literal output;
	// text tools, downloaders and decoders with other input wrote content
	// nobody saw; other programs' output (a build) is not tracked
	producer := ""
	if len(r.facts.Commands) > cmdStart {
		producer = r.facts.Commands[cmdStart].Name
	}
	for i := redirStart; i < redirEnd && err == nil; i++ {
		rd := r.facts.Redirects[i]
		if rd.Path == "" || rd.Fd != 1 && rd.Op != "&>" && rd.Op != "&>>" {
			continue
		}
		if out == nil && !r.opaqueWriter(producer) {
			// a program's output (sort <<< '…' > b.sh): text nobody
			// read, should the script run the file
			if r.written == nil {
				r.written = map[string]*string{}
			}
			r.written[rd.Path] = nil
			continue
		}
		if rd.Op == ">" || rd.Op == ">|" || rd.Op == "&>" {
			r.wrote(rd.Path, out)
		} else {
			prev, ok := r.written[rd.Path]
			if ok && prev != nil && out != nil {
				both := *prev + *out
				r.wrote(rd.Path, &both)
			} else {
				r.wrote(rd.Path, nil)
			}
		}
	}
	// A simple command's redirections belong to it; a file fed to an HTTP
	// client on stdin is sent away.
	if _, ok := s.Cmd.(*syntax.CallExpr); ok && err == nil && len(r.facts.Commands) > cmdStart && redirStart < len(r.facts.Redirects) {
		name := r.facts.Commands[cmdStart].Name
		sends := r.a.sendsAwayCmd(r.facts.Commands[cmdStart])
		for i := pathStart; i < pathEnd; i++ {
			p := &r.facts.Paths[i]
			if p.Cmd == -1 && p.Command == "" {
				p.Cmd, p.Command = cmdStart, name
				if sends && p.Access == "read" && p.Zone != "dev_safe" {
					p.Role = "upload"
				}
			}
		}
	} else if err == nil && redirStart < len(r.facts.Redirects) {
		// { nc host 80; } < .env: the stdin of a block, a subshell or a
		// loop reaches the client inside it
		for k := cmdStart; k < len(r.facts.Commands); k++ {
			if !r.a.sendsAwayCmd(r.facts.Commands[k]) {
				continue
			}
			for i := pathStart; i < pathEnd; i++ {
				p := &r.facts.Paths[i]
				if p.Cmd == -1 && p.Command == "" && p.Access == "read" && p.Zone != "dev_safe" {
					p.Cmd, p.Command, p.Role = k, r.facts.Commands[k].Name, "upload"
				}
			}
			break
		}
	}
	return out, err
}

// sendsAwayCmd is sendsAway for one command: openssl sends its input away
// only as s_client or s_time (x509, dgst, enc … read it locally).
func (a *Analyzer) sendsAwayCmd(c Command) bool {
	if c.Name == "openssl" {
		return opensslSends(c.Argv)
	}
	return a.sendsAway(c.Name)
}

// opensslSends says whether openssl with argv (its name first) is a
// client that sends its stdin to a server.
func opensslSends(argv []string) bool {
	return len(argv) > 1 && (argv[1] == "s_client" || argv[1] == "s_time")
}

// sendsAway says whether name sends a file fed to its stdin to another
// host: a client of sendsStdin or an uploader (curl, wget, httpie).
func (a *Analyzer) sendsAway(name string) bool {
	if a.sendsStdin(name) {
		return true
	}
	for _, g := range a.groupsOf(name) {
		if g == "uploaders" {
			return true
		}
	}
	return false
}

func (r *run) redirect(rd *syntax.Redirect, st *state, sc scope, in *stdin) error {
	fd := -1
	if rd.N != nil {
		fmt.Sscanf(rd.N.Value, "%d", &fd)
	}
	op := rd.Op.String()
	switch rd.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if err := r.substs(rd.Hdoc, st, sc); err != nil {
			return err
		}
		in.kind = "heredoc"
		in.literal = nil
		if rd.Hdoc != nil {
			if doc, ok := r.literalDoc(rd.Hdoc, st); ok {
				in.literal = &doc
			}
		} else {
			empty := ""
			in.literal = &empty
		}
		r.facts.Redirects = append(r.facts.Redirects, Redirect{Op: op, Fd: 0})
		return nil
	case syntax.WordHdoc:
		if err := r.substs(rd.Word, st, sc); err != nil {
			return err
		}
		in.kind = "herestring"
		in.literal = nil
		fs := r.fields(st, sc, rd.Word)
		if len(fs) == 1 && !fs[0].dynamic {
			s := fs[0].text + "\n"
			in.literal = &s
		}
		r.facts.Redirects = append(r.facts.Redirects, Redirect{Op: op, Fd: 0})
		return nil
	case syntax.DplIn, syntax.DplOut:
		if err := r.substs(rd.Word, st, sc); err != nil {
			return err
		}
		fs := r.fields(st, sc, rd.Word)
		if len(fs) == 1 && !fs[0].dynamic && (isDigits(fs[0].text) || fs[0].text == "-" || isDigits(strings.TrimSuffix(fs[0].text, "-"))) {
			r.facts.Redirects = append(r.facts.Redirects, Redirect{Op: op, Fd: fd})
			if rd.Op == syntax.DplIn && (fd <= 0) && fs[0].text != "0" {
				// <&3: stdin from another descriptor, content unknown
				in.kind, in.literal, in.from = "pipe", nil, ""
			}
			return nil
		}
		// ">& file" writes both streams to file.
	}
	procStart := len(r.facts.Commands)
	if err := r.substs(rd.Word, st, sc); err != nil {
		return err
	}
	access := "write"
	switch rd.Op {
	case syntax.RdrIn, syntax.DplIn:
		access = "read"
		if fd < 0 {
			fd = 0
		}
	case syntax.RdrInOut:
		access = "write"
	default:
		if fd < 0 {
			fd = 1
		}
	}
	target := ""
	for _, f := range r.fields(st, sc, rd.Word) {
		p := r.addPath(f, st, access, -1, "")
		target = p.Real
		if access == "read" && fd == 0 {
			in.kind, in.path = "file", p.Real
			if f.dynamic {
				in.kind = "pipe" // < $X: what is read is not known
			}
			in.literal = nil
			if f.proc {
				in.kind = "procsubst" // < <(…): the output of a process
				if len(r.facts.Commands) > procStart {
					in.from, in.fromIdx = r.facts.Commands[procStart].Name, procStart
				}
			}
		}
	}
	r.facts.Redirects = append(r.facts.Redirects, Redirect{Op: op, Fd: fd, Path: target})
	return nil
}

func (r *run) command(cmd syntax.Command, st *state, sc scope, in stdin) (*string, error) {
	switch cmd.(type) {
	case *syntax.Block, *syntax.Subshell, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause, *syntax.FuncDecl:
		sc.nest++
		if sc.nest > maxNest {
			return nil, r.stop(CodeTooDeep, "compound commands nest deeper than %d levels", maxNest)
		}
	}
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		return r.call(c, st, sc, in)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			return r.pipeline(c, st, sc, in)
		case syntax.AndStmt:
			// a && b && c: each part runs in the state the parts before
			// it left (they all succeeded); afterwards the chain may have
			// stopped after any of them
			// (a part that failed stops it in the state that failure
			// left: state.failed)
			parts := andChain(c)
			psc := sc
			psc.keepFailed = true
			var fails []*state
			takeFailed := func(s *state) {
				if s.failed != nil {
					fails = append(fails, s.failed)
					s.failed = nil
				}
			}
			if err := r.stmt(parts[0], st, psc, in); err != nil {
				return nil, err
			}
			takeFailed(st)
			cur := st.clone()
			alts := []*state{st.clone()}
			for i, p := range parts[1:] {
				if err := r.stmt(p, cur, psc, stdin{}); err != nil {
					return nil, err
				}
				takeFailed(cur)
				if i < len(parts)-2 {
					alts = append(alts, cur.clone())
				}
			}
			merge(st, append(append(alts, cur), fails...)...)
			return nil, nil
		default: // ||: the right side may or may not run
			xsc := sc
			xsc.keepFailed = true
			if err := r.stmt(c.X, st, xsc, in); err != nil {
				return nil, err
			}
			// it runs when the left side failed: in the state that
			// failure left, where that differs
			y := st.clone()
			if st.failed != nil {
				y, st.failed = st.failed, nil
			}
			if err := r.stmt(c.Y, y, sc, stdin{}); err != nil {
				return nil, err
			}
			merge(st, st.clone(), y)
			return nil, nil
		}
	case *syntax.Block:
		return nil, r.stmtsIn(c.Stmts, st, sc, in)
	case *syntax.Subshell:
		return nil, r.stmtsIn(c.Stmts, st.clone(), sc, in)
	case *syntax.IfClause:
		// Each branch runs on its own copy; afterwards only what all of
		// them (and not running any, without a final else) agree on is known.
		var alts []*state
		cur := st.clone()
		hasElse := false
		for cl := c; cl != nil; cl = cl.Else {
			if len(cl.Cond) == 0 && cl != c {
				hasElse = true
			}
			if err := r.stmtsIn(cl.Cond, cur, sc, in); err != nil {
				return nil, err
			}
			branch := cur.clone()
			if err := r.stmts(cl.Then, branch, sc); err != nil {
				return nil, err
			}
			alts = append(alts, branch)
		}
		if !hasElse {
			alts = append(alts, cur)
		}
		merge(st, alts...)
		return nil, nil
	case *syntax.WhileClause:
		if names, ok := readLoop(c); ok {
			// while read f; do …; done < known input: one pass per line
			if items, known := r.inputItems(in, true); known && len(items) <= maxFeedItems {
				for _, it := range items {
					r.assignRead(st, names, it)
					done := r.frame(false)
					err := r.stmts(c.Do, st, sc)
					done(st)
					if err != nil {
						return nil, err
					}
				}
				for _, n := range names {
					st.setWild(n)
				}
				return nil, nil
			}
		}
		if err := r.stmtsIn(c.Cond, st, sc, in); err != nil {
			return nil, err
		}
		body, err := r.loopBody(c.Do, st.clone(), sc)
		if err != nil {
			return nil, err
		}
		merge(st, st.clone(), body)
		return nil, nil
	case *syntax.ForClause:
		return nil, r.forClause(c, st, sc)
	case *syntax.CaseClause:
		if err := r.substs(c.Word, st, sc); err != nil {
			return nil, err
		}
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				if err := r.substs(p, st, sc); err != nil {
					return nil, err
				}
			}
		}
		alts := []*state{st.clone()}
		for _, item := range c.Items {
			branch := st.clone()
			if err := r.stmts(item.Stmts, branch, sc); err != nil {
				return nil, err
			}
			alts = append(alts, branch)
		}
		merge(st, alts...)
		return nil, nil
	case *syntax.FuncDecl:
		return nil, r.funcDecl(c, st, sc)
	case *syntax.ArithmCmd:
		r.arithAssigns(c.X, st)
		return nil, r.substNode(c.X, st, sc)
	case *syntax.LetClause:
		for _, e := range c.Exprs {
			if err := r.substNode(e, st, sc); err != nil {
				return nil, err
			}
			r.arithAssigns(e, st)
		}
		return nil, nil
	case *syntax.TestClause:
		return nil, r.substNode(c.X, st, sc)
	case *syntax.DeclClause:
		return nil, r.decl(c, st, sc)
	case *syntax.TimeClause:
		if c.Stmt == nil {
			return nil, nil
		}
		return r.stmtOut(c.Stmt, st, sc, in)
	case *syntax.CoprocClause:
		if c.Stmt == nil {
			return nil, nil
		}
		// a coprocess reads what the script later writes to it; it runs
		// in a subshell
		return nil, r.stmt(c.Stmt, st.clone(), sc.with("background"), stdin{kind: "pipe"})
	case *syntax.TestDecl:
		if c.Body == nil {
			return nil, nil
		}
		return nil, r.stmt(c.Body, st, sc, in)
	}
	return nil, r.stop(CodeUnsupported, "unsupported shell construct %T", cmd)
}

// stmtsIn walks a list whose first statement inherits stdin.
func (r *run) stmtsIn(list []*syntax.Stmt, st *state, sc scope, in stdin) error {
	for i, s := range list {
		cur := stdin{}
		if i == 0 {
			cur = in
		}
		if err := r.stmt(s, st, sc, cur); err != nil {
			return err
		}
	}
	return nil
}

func (r *run) pipeline(c *syntax.BinaryCmd, st *state, sc scope, in stdin) (*string, error) {
	var elems []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && len(s.Redirs) == 0 && !s.Background && !s.Negated {
			flatten(b.X)
			flatten(b.Y)
			return
		}
		elems = append(elems, s)
	}
	flatten(c.X)
	flatten(c.Y)
	inner := sc.with("pipeline")
	if sc.fn != "" {
		inner.forky = true
	}
	names := make([]string, 0, len(elems))
	cur := in
	var out *string
	for i, e := range elems {
		before := len(r.facts.Commands)
		// each part runs in a subshell; with shopt -s lastpipe (or shell
		// options not known) the last one may run in the shell itself,
		// and what it assigns holds after (echo | x=~)
		es := st.clone()
		last := i == len(elems)-1 && (r.shopts["lastpipe"] || r.globOpts)
		r.catOut = nil
		o, err := r.stmtOut(e, es, inner, cur)
		if err != nil {
			return nil, err
		}
		var fileText *string
		if _, simple := e.Cmd.(*syntax.CallExpr); simple && len(e.Redirs) == 0 && !e.Background && !e.Negated {
			// only a plain cat's: in a block, other commands write too
			fileText = r.catOut
		}
		r.catOut = nil
		if last {
			merge(st, st.clone(), es)
		}
		name := ""
		if len(r.facts.Commands) > before {
			name = r.facts.Commands[before].Name
		}
		names = append(names, name)
		cur = stdin{kind: "pipe", literal: o, fileText: fileText, from: name, fromIdx: before}
		out = o
	}
	r.facts.Pipelines = append(r.facts.Pipelines, names)
	return out, nil
}

func anyGlobWord(fs []field) bool {
	for _, f := range fs {
		if f.globWord {
			return true
		}
	}
	return false
}

func (r *run) forClause(c *syntax.ForClause, st *state, sc scope) error {
	if l, ok := c.Loop.(*syntax.WordIter); ok && c.Select {
		// select reads a choice from the input: the variable is one of
		// the items or empty, and the body runs any number of times,
		// none included
		for _, w := range l.Items {
			if err := r.substs(w, st, sc); err != nil {
				return err
			}
		}
		entry := st.clone()
		entry.setWild(l.Name.Value)
		entry.setWild("REPLY")
		body, err := r.loopBody(c.Do, entry, sc)
		if err != nil {
			return err
		}
		merge(st, st.clone(), body)
		return nil
	}
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		for _, w := range l.Items {
			if err := r.substs(w, st, sc); err != nil {
				return err
			}
		}
		items := r.fields(st, sc, l.Items...)
		name := l.Name.Value
		// Walk the body once per static item (bounded); otherwise once with the variable unknown.
		if len(items) > 0 && len(items) <= 16 && !anyDynamic(items) {
			if !r.globLoop && anyGlobWord(items) {
				// for f in *; do rm -rf "$f"; done deletes what rm -rf *
				// does
				r.globLoop, r.loopKey = true, -1
				defer func() { r.globLoop = false }()
			}
			for _, it := range items {
				st.setScalar(name, it.text)
				done := r.frame(false)
				err := r.stmts(c.Do, st, sc)
				done(st) // a break or continue left the pass early
				if err != nil {
					return err
				}
			}
			return nil
		}
		st.forget(name)
		body := st.clone()
		open := false
		for _, it := range items {
			if it.leadOpen {
				// for f in $(cat list): f could be any absolute path
				r.markOpen(name)
				open = true
			}
		}
		if !open && len(items) > 0 {
			// one of the items, whichever: where they lie in common
			if body.entries == nil {
				body.entries = map[string]entryVar{}
			}
			named, noLinks := true, true
			for _, it := range items {
				named = named && it.named
				noLinks = noLinks && it.noLinks
			}
			var names []string
			tracked := len(items) == 1 && items[0].tracked
			if len(items) == 1 {
				names = items[0].findNames
			}
			body.entries[name] = entryVar{pattern: commonPattern(items), named: named, noLinks: noLinks, names: names, tracked: tracked}
		}
		body, err := r.loopBody(c.Do, body, sc)
		if err != nil {
			return err
		}
		merge(st, st.clone(), body)
		return nil
	case *syntax.CStyleLoop:
		for _, e := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
			if e != nil {
				if err := r.substNode(e, st, sc); err != nil {
					return err
				}
				r.arithAssigns(e, st)
			}
		}
		body, err := r.loopBody(c.Do, st.clone(), sc)
		if err != nil {
			return err
		}
		merge(st, st.clone(), body)
		return nil
	}
	return r.stop(CodeUnsupported, "unsupported loop %T", c.Loop)
}

// shadowedBuiltins are the builtins whose effect on the shell's state the
// analysis applies (and bash's hook for a command not found): a function
// of that name changes what a call does.
var shadowedBuiltins = map[string]bool{"eval": true, "unset": true, "cd": true, "pushd": true, "popd": true, "export": true,
	"declare": true, "typeset": true, "local": true, "readonly": true, "set": true, "shift": true, "read": true,
	"mapfile": true, "readarray": true, "printf": true, "source": true, ".": true, "alias": true, "unalias": true,
	"shopt": true, "trap": true, "hash": true, "enable": true, "builtin": true, "command": true, "exec": true,
	"return": true, "break": true, "continue": true, "let": true, "getopts": true, "command_not_found_handle": true}

// exitFrame collects the states in which a function (fn) or a loop is
// left early: return, break, continue.
type exitFrame struct {
	fn     bool
	states []*state
}

// leave records, for return (fn) or break/continue, the state st the
// innermost function or loop is left in.
func (r *run) leave(st *state, fn bool, levels int) {
	var outer *exitFrame // the outermost loop seen: break 9 leaves it
	for i := len(r.exits) - 1; i >= 0; i-- {
		f := r.exits[i]
		if f.fn == fn {
			outer = f
			if levels--; levels > 0 {
				continue // break 2: the loop around this one
			}
			break
		}
		if f.fn {
			break // no loop of this function further out
		}
	}
	if outer != nil {
		outer.states = append(outer.states, st.clone())
	}
}

// frame pushes an exit frame; done pops it and merges the states it
// collected into end (the frame's normal end).
func (r *run) frame(fn bool) (done func(end *state)) {
	f := &exitFrame{fn: fn}
	r.exits = append(r.exits, f)
	return func(end *state) {
		r.exits = r.exits[:len(r.exits)-1]
		if len(f.states) > 0 {
			merge(end, append([]*state{end.clone()}, f.states...)...)
		}
	}
}

// loopBody walks a loop body that runs any number of times, from entry:
// once as the first pass sees it, then once more from the merge of entry
// with what that pass left, so that a value assigned late in a pass counts
// for the next pass's earlier commands (x=src; while …; do rm -rf "$x";
// x=~; done). Merging makes a variable that differs wild, and a wild one
// stays wild, so a third pass would see nothing new. It returns the merge
// of both passes' ends.
func (r *run) loopBody(do []*syntax.Stmt, entry *state, sc scope) (*state, error) {
	done := r.frame(false)
	first := entry.clone()
	if err := r.stmts(do, first, sc); err != nil {
		done(first)
		return nil, err
	}
	done(first) // a break or continue: the pass ended there
	done = r.frame(false)
	second := entry.clone()
	merge(second, entry.clone(), first)
	if err := r.stmts(do, second, sc); err != nil {
		done(second)
		return nil, err
	}
	done(second)
	end := entry.clone()
	merge(end, first, second)
	return end, nil
}

// commonPattern is a pattern every item matches: one item's own pattern,
// else the directory the items share with "/*" (or "*" when they share
// none), as components.
func commonPattern(items []field) string {
	if len(items) == 1 {
		return items[0].pattern
	}
	common := path.Dir(items[0].pattern)
	for _, it := range items[1:] {
		d := path.Dir(it.pattern)
		for common != "." && common != "/" && !under(d, common) {
			common = path.Dir(common)
		}
		if !strings.HasPrefix(d, "/") && strings.HasPrefix(common, "/") || strings.HasPrefix(d, "/") && !strings.HasPrefix(common, "/") {
			return "/*" // relative and absolute items: anything
		}
	}
	if i := strings.IndexAny(common, "*?["); i >= 0 {
		common = path.Dir(common[:i] + "x")
	}
	switch common {
	case ".":
		return "*"
	case "/":
		return "/*"
	}
	return common + "/*"
}

// andChain lists the statements of a && chain in order (bash parses
// a && b && c as (a && b) && c).
func andChain(c *syntax.BinaryCmd) []*syntax.Stmt {
	var parts []*syntax.Stmt
	if x, ok := c.X.Cmd.(*syntax.BinaryCmd); ok && x.Op == syntax.AndStmt && !c.X.Negated && !c.X.Background && !c.X.Coprocess && len(c.X.Redirs) == 0 {
		parts = andChain(x)
	} else {
		parts = []*syntax.Stmt{c.X}
	}
	return append(parts, c.Y)
}

func anyDynamic(fs []field) bool {
	for _, f := range fs {
		if f.dynamic || f.glob {
			return true
		}
	}
	return false
}

func (r *run) funcDecl(c *syntax.FuncDecl, st *state, sc scope) error {
	if c.Name == nil {
		// "() body": bash has no anonymous functions
		return r.stop(CodeUnsupported, "a function without a name")
	}
	name := c.Name.Value
	if shadowedBuiltins[name] {
		// eval(){ :; }; eval x=src: the analysis applies the builtin's
		// effect, bash runs the function instead; and bash calls
		// command_not_found_handle for any command it cannot find
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "a function named " + name, Cmd: -1})
	}
	r.facts.Functions = append(r.facts.Functions, Function{Name: name})
	inner := sc.with("function")
	inner.fn = name
	inner.forky = false
	inner.decl = true
	inner.fnIdx = len(r.facts.Functions) - 1
	if c.Body == nil {
		return nil
	}
	if r.funcs == nil {
		r.funcs = map[string][]*syntax.Stmt{}
	}
	if !slices.Contains(r.funcs[name], c.Body) {
		r.funcs[name] = append(r.funcs[name], c.Body)
	}
	body := st.clone()
	if err := r.stmt(c.Body, body, inner, stdin{}); err != nil {
		return err
	}
	// the function may be called later: what it changes becomes unknown;
	// but for the working directory, which only a call changes, and every
	// call walks the body again and carries its cd to the caller (f() { cd
	// src; }; f; ls: ls runs in src)
	cwd, real, dirs := st.cwd, st.cwdReal, st.dirs
	pwd, hasPWD := st.vars["PWD"]
	old, hasOld := st.vars["OLDPWD"]
	merge(st, st.clone(), body)
	st.cwd, st.cwdReal, st.dirs = cwd, real, dirs
	for _, kv := range []struct {
		name, v string
		ok      bool
	}{{"PWD", pwd, hasPWD}, {"OLDPWD", old, hasOld}} {
		if kv.ok && !body.wild[kv.name] {
			st.vars[kv.name] = kv.v
			delete(st.wild, kv.name)
		}
	}
	return nil
}

// callFunction walks the body of a function the script declared once more,
// at each call, with $1 … $@ bound to the arguments when they are all known
// (a body that passes "$@" on, g() { grep "$@"; }; g -r x ., is judged with
// what it is given). What the call changes is carried into the caller's
// state st (g(){ x=~; }; x=src; g; rm -rf "$x"), but for the variables the
// body makes its own (local). A call nested deeper than the analysis
// follows is unanalysable.
func (r *run) callFunction(idx int, name string, args []field, st *state, sc scope, in stdin) error {
	bodies, ok := r.funcs[name]
	if !ok {
		return nil
	}
	if r.funcDepth >= 3 || r.funcWalks >= 64 {
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + ": a function call nested deeper than the analysis follows", Cmd: idx})
		return nil
	}
	// every body the name was given may be the one that runs
	var ends []*state
	for _, body := range bodies {
		end, err := r.callBody(idx, name, body, args, st, sc, in)
		if err != nil {
			return err
		}
		ends = append(ends, end)
	}
	// the call ran: the caller goes on in the state it left
	params, failed := st.params, st.failed
	if len(ends) == 1 {
		*st = *ends[0]
	} else {
		merge(st, ends...)
	}
	st.params, st.failed = params, failed
	return nil
}

// callBody walks one body of a function for a call and returns the state
// the caller goes on in.
func (r *run) callBody(idx int, name string, body *syntax.Stmt, args []field, st *state, sc scope, in stdin) (*state, error) {
	// $1 … $@: the arguments when all are known (none is none), else
	// unknown (nil)
	params := knownTexts(args)
	r.funcDepth++
	r.funcWalks++
	defer func() { r.funcDepth-- }()
	call := st.clone()
	call.params = params
	inner := sc.with("function")
	inner.fn = name
	inner.fnIdx = -1
	for i, f := range r.facts.Functions {
		if f.Name == name {
			inner.fnIdx = i
		}
	}
	done := r.frame(true)
	err := r.stmt(body, call, inner, in)
	done(call) // a return: the call ended there
	if err != nil {
		return nil, err
	}
	// local, declare and typeset in the body make the function's own
	// variables: the caller's are as they were
	// a name declared local anywhere else may or may not be the
	// caller's after the call (f(){ x=~; local x=1; }): not known
	leading := localNames(body)
	for _, n := range anyLocalNames(body) {
		if !slices.Contains(leading, n) {
			call.setWild(n)
		}
	}
	for _, n := range leading {
		restore := func(has bool, put, drop func()) {
			if has {
				put()
			} else {
				drop()
			}
		}
		v, ok := st.vars[n]
		restore(ok, func() { call.vars[n] = v }, func() { delete(call.vars, n) })
		arr, ok := st.arrays[n]
		restore(ok, func() {
			if call.arrays == nil {
				call.arrays = map[string][]string{}
			}
			call.arrays[n] = arr
		}, func() { delete(call.arrays, n) })
		restore(st.wild[n], func() { call.setWildOnly(n) }, func() { delete(call.wild, n) })
		restore(st.nums[n], func() { call.setNum(n) }, func() { delete(call.nums, n) })
	}
	return call, nil
}

// anyLocalNames are the names any declaration in a function body (outside
// functions declared in it) mentions.
func anyLocalNames(body *syntax.Stmt) []string {
	var out []string
	syntax.Walk(body, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.FuncDecl:
			return false
		case *syntax.DeclClause:
			if v := x.Variant.Value; v == "local" || v == "declare" || v == "typeset" {
				for _, as := range x.Args {
					if as.Name != nil {
						out = append(out, as.Name.Value)
					}
				}
			}
		}
		return true
	})
	return out
}

// localNames are the variables a function body surely makes its own: those
// its leading declarations name (local, declare or typeset without -g, -p,
// -f or -F, before any other statement of the body). A local declared
// anywhere else may not run, or run after the name was set: the caller
// then takes what the call left, which is the safe side.
func localNames(body *syntax.Stmt) []string {
	var out []string
	list := []*syntax.Stmt{body}
	if b, ok := body.Cmd.(*syntax.Block); ok {
		list = b.Stmts
	}
	for _, s := range list {
		d, ok := s.Cmd.(*syntax.DeclClause)
		if !ok || s.Background || s.Coprocess || s.Negated || len(s.Redirs) > 0 {
			break
		}
		switch d.Variant.Value {
		case "local", "declare", "typeset":
		default:
			return out
		}
		for _, as := range d.Args {
			if as.Name == nil && as.Value != nil && strings.HasPrefix(as.Value.Lit(), "-") && strings.ContainsAny(as.Value.Lit(), "gpfF") {
				return out
			}
		}
		for _, as := range d.Args {
			if as.Name != nil {
				out = append(out, as.Name.Value)
			}
		}
	}
	return out
}

func (r *run) decl(c *syntax.DeclClause, st *state, sc scope) error {
	variant := c.Variant.Value
	// With options only (or nothing), export -p, declare -p and the like
	// print variables: a command of its own, for the policy to see.
	printing := true
	argv := []string{variant}
	for _, as := range c.Args {
		l := ""
		if as.Name == nil && as.Value != nil {
			l = as.Value.Lit()
		}
		if !strings.HasPrefix(l, "-") {
			printing = false
			break
		}
		argv = append(argv, l)
	}
	if printing {
		cmd := Command{Name: variant, Argv: argv, Wrappers: []string{}, Depth: sc.depth, Context: sc.ctx, Cwd: st.cwd, Env: map[string]string{}, stdinIdx: -1}
		cmd.Flags, cmd.Subcommand = flagsOf(variant, argv)
		r.facts.Commands = append(r.facts.Commands, cmd)
	}
	// -n (name reference), -l/-u/-c (case change), -i (arithmetic) make the
	// stored value differ from the text assigned.
	transforms, refs, assoc, global := false, false, false, false
	readonly := variant == "readonly"
	for _, as := range c.Args {
		if as.Name == nil && as.Value != nil {
			if f := as.Value.Lit(); strings.HasPrefix(f, "-") {
				readonly = readonly || strings.ContainsRune(f, 'r') && variant != "export"
				if strings.ContainsAny(f, "fF") {
					readonly = false // readonly -f: functions, not variables
				}
				transforms = transforms || strings.ContainsAny(f, "nluci")
				refs = refs || strings.ContainsRune(f, 'n')
				assoc = assoc || strings.ContainsRune(f, 'A')
				global = global || strings.ContainsRune(f, 'g')
			}
		}
	}
	if readonly {
		// after the assignments: from here on the names keep their value
		defer func() {
			for _, as := range c.Args {
				if as.Name != nil {
					if st.ro == nil {
						st.ro = map[string]bool{}
					}
					st.ro[as.Name.Value] = true
				}
			}
		}()
	}
	if global {
		// declare -g sets the global, which a local of a caller up the
		// stack may hide: the name's value here is not known after
		defer func() {
			for _, as := range c.Args {
				if as.Name != nil {
					st.setWild(as.Name.Value)
				}
			}
		}()
	}
	for _, as := range c.Args {
		if as.Name == nil {
			continue
		}
		if assoc {
			// an associative array: m=(k v …) later pairs keys and
			// values; its elements are not followed
			r.markOpen(as.Name.Value)
			if r.assoc == nil {
				r.assoc = map[string]bool{}
			}
			r.assoc[as.Name.Value] = true
		}
		if refs {
			target := ""
			if as.Value != nil {
				if f, ok := r.single(st, sc, as.Value); ok {
					target = f.text
				}
			}
			if st.refs == nil {
				st.refs = map[string]string{}
			}
			st.refs[as.Name.Value] = target
			if target == "" && as.Value != nil {
				// declare -n r="$x": what r=… changes is known only
				// when it runs
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: variant + " -n " + as.Name.Value, Cmd: -1})
			}
		}
	}
	for _, as := range c.Args {
		if transforms && as.Name != nil {
			if as.Value != nil {
				if err := r.substs(as.Value, st, sc); err != nil {
					return err
				}
				// declare -n r='a[$(cmd)]' or declare -i y=x (x holding
				// 'a[$(cmd)]' or input): bash evaluates the subscript
				f, _ := r.single(st, sc, as.Value)
				v, named := st.vars[f.text]
				if subscriptCode(f.text) || named && subscriptCode(v) || st.wild[f.text] {
					r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: variant + " " + as.Name.Value + "=" + f.text, Cmd: -1})
				}
			}
			if err := r.recordAssign(as.Name.Value, "(transformed)", true, st, sc, -1, nil); err != nil {
				return err
			}
			st.setWild(as.Name.Value)
			continue
		}
		if as.Name == nil {
			// flags such as -x, or names given by expansion
			if as.Value != nil {
				if err := r.substs(as.Value, st, sc); err != nil {
					return err
				}
				for _, f := range r.fields(st, sc, as.Value) {
					switch {
					case f.dynamic:
						// declare "$name=value": which variable is set cannot be known
						r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: variant + " " + f.text, Cmd: -1})
					case isAssignWord(f.text):
						// export "$v=x" or LD_PRE{LOAD=x,}: an assignment after all
						k, v, _ := strings.Cut(f.text, "=")
						if err := r.recordAssign(k, v, false, st, sc, -1, nil); err != nil {
							return err
						}
					case strings.Contains(f.text, "[") && strings.Contains(f.text, "="):
						// declare "a[0]=…": an element, not followed
						k, _, _ := strings.Cut(f.text, "[")
						if isAssignWord(k + "=") {
							st.setWild(k)
							r.markOpen(k)
							r.bashVarWritten(k, variant+" "+f.text, false, st, -1)
						}
					}
				}
			}
			continue
		}
		if as.Naked && variant != "local" {
			// export NAME, readonly NAME, declare NAME: the value stays,
			// and is judged as if assigned here (export LD_PRELOAD)
			name := as.Name.Value
			v, known := st.vars[name]
			if _, arr := st.arrays[name]; arr || !known && !st.wild[name] {
				continue // an array, or the environment's own value
			}
			if err := r.recordAssign(name, v, !known, st, sc, -1, nil); err != nil {
				return err
			}
			continue
		}
		if err := r.assign(as, st, sc, -1, nil); err != nil {
			return err
		}
	}
	return nil
}

// assign records NAME=value; for a shell variable (cmd -1) it updates st.
func (r *run) assign(as *syntax.Assign, st *state, sc scope, cmd int, env map[string]string) error {
	name := as.Name.Value
	val, dyn := "", false
	if as.Index != nil {
		// a[$(cmd)]=x runs cmd; the element's value is not tracked, so
		// ${a[0]} could be any path
		if err := r.substNode(as.Index, st, sc); err != nil {
			return err
		}
		r.arithAssigns(as.Index, st)
		dyn = true
		r.markOpen(name)
	}
	wildValue := false
	if as.Value != nil {
		if err := r.substs(as.Value, st, sc); err != nil {
			return err
		}
		f, ok := r.single(st, sc, as.Value)
		val, dyn = f.text, dyn || !ok
		if m, ok := r.mktemp(as.Value, st); ok {
			val, dyn = m, false
		}
		_, _, _, wildValue = r.unknownPartsWild(as.Value, st)
		if r.leadOpen(as.Value, st) {
			// x=$(base64 -d …): what x holds could be any absolute path
			// wherever it leads a word
			r.markOpen(name)
		}
	}
	if wildValue && env == nil {
		defer st.setWild(name)
	}
	var elems []string // the elements, when every one is known
	if as.Array != nil {
		elems = []string{}
		for _, el := range as.Array.Elems {
			// each element word expands as a command's word does: split,
			// globbed, brace-expanded ("$@", src/*.py, {a,b})
			ok := el.Index == nil && el.Value != nil && !hasCmdSubst(el.Value)
			var fs []field
			if ok {
				fs = r.fields(st, sc, el.Value)
			}
			for _, f := range fs {
				// a glob that matched nothing now may match what the
				// script makes before it runs
				if f.dynamic || f.proc || f.glob {
					ok = false
				}
			}
			if !ok {
				elems = nil
				break
			}
			for _, f := range fs {
				elems = append(elems, f.text)
			}
		}
		for _, el := range as.Array.Elems {
			if el.Index != nil {
				// a=([$(cmd)]=1) runs cmd as the index is evaluated
				if err := r.substNode(el.Index, st, sc); err != nil {
					return err
				}
				r.arithAssigns(el.Index, st)
			}
			if el.Value != nil {
				if err := r.substs(el.Value, st, sc); err != nil {
					return err
				}
			}
		}
		dyn = true
		val = "(…)"
		if as.Append {
			if old, ok := st.arrays[name]; ok && elems != nil {
				elems = append(slices.Clone(old), elems...)
			} else {
				elems = nil
			}
		}
		if elems == nil || env != nil || as.Index != nil || r.assoc[name] {
			// The elements' values are not followed: a=($x) splits,
			// a=(*.go) globs, a=($(cmd)) could be any path.
			r.markOpen(name)
			elems = nil
		}
	}
	if as.Append && as.Array == nil {
		if old, ok := st.vars[name]; ok && !dyn {
			val = old + val
		} else {
			dyn = true
		}
	}
	if t, ok := st.refs[name]; ok && t != "" && env == nil && as.Index == nil {
		// declare -n r=PS4; r=…: the value lands in the target, judged
		// as if assigned to it (a reference to a reference is not
		// followed further)
		if tb, _, _ := strings.Cut(t, "["); tb != name {
			if _, chain := st.refs[tb]; chain {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + "=" + val + " through name references", Cmd: cmd})
			} else if err := r.recordAssign(t, val, dyn, st, sc, cmd, nil); err != nil {
				return err
			}
		}
	}
	if err := r.recordAssign(name, val, dyn, st, sc, cmd, env); err != nil {
		return err
	}
	if dyn && env == nil && as.Index == nil && as.Array == nil && !as.Append && arithOnly(as.Value) {
		st.setNum(name) // n=$((n+1)): a number, whatever it is
	}
	if elems != nil && !st.readOnly(name) {
		if st.arrays == nil {
			st.arrays = map[string][]string{}
		}
		st.arrays[name] = elems
		delete(st.vars, name)
		delete(st.wild, name)
	}
	return nil
}

// arithOnly says whether w is nothing but arithmetic expansions: its value
// is a decimal integer.
func arithOnly(w *syntax.Word) bool {
	if w == nil || len(w.Parts) == 0 {
		return false
	}
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.ArithmExp); !ok {
			return false
		}
	}
	return true
}

// knownElem says whether ${a[i]} (or ${a[@]}) names elements of an array
// the state holds, by a literal index.
func knownElem(pe *syntax.ParamExp, st *state) bool {
	if pe.Param == nil || pe.Index == nil || pe.Excl {
		return false
	}
	if _, ok := st.arrays[pe.Param.Value]; !ok {
		return false
	}
	w, ok := pe.Index.(*syntax.Word)
	if !ok {
		return false
	}
	t := w.Lit()
	return t == "@" || t == "*" || t != "" && strings.Trim(t, "0123456789") == ""
}

// bashVarWritten judges a write to one of bash's own variables that the
// analysis does not otherwise follow: name may be an element (a[k]) or a
// name reference to it, and followed says the value is recorded (and
// judged) by recordAssign. BASH_CMDS and BASH_ALIASES change which program
// or text a name runs; DIRSTACK changes where popd and pushd land; a
// prompt, or any variable whose value bash or a program runs, written by
// read, printf -v, mapfile, ${NAME=…} or through a name reference holds
// what the analysis never saw (recordAssign judges a name reference's
// target as assigned itself).
func (r *run) bashVarWritten(name, how string, followed bool, st *state, cmd int) {
	base, _, _ := strings.Cut(name, "[")
	if t, ok := st.refs[base]; ok && t != "" {
		base, _, _ = strings.Cut(t, "[")
	}
	unknown := func(why string) {
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: how + ": " + why, Cmd: cmd})
	}
	switch {
	case base == "BASH_CMDS" || base == "BASH_ALIASES":
		unknown(base + " changes which program or text a command name runs")
	case base == "DIRSTACK":
		// popd and pushd change into the stack's entries: which ones
		// changed is not followed
		dirs := make([]string, len(st.dirs))
		st.dirs = dirs
	case followed:
	case r.runsValue(base):
		unknown(base + " gets a value that is not followed, and bash or a program runs it")
	}
}

// runsValue says whether bash or a program it starts runs or loads what
// variable name holds (recordAssign judges its value).
func (r *run) runsValue(name string) bool {
	return name == "PS0" || name == "PS1" || name == "PS2" || name == "PS4" || name == "PROMPT_COMMAND" ||
		strings.HasPrefix(name, "BASH_FUNC_") || name == "BASH_ENV" || name == "ENV" || name == "SHELLOPTS" || name == "BASHOPTS" ||
		r.a.execSinks[name] || r.a.fileSinks[name] || optionVars[name] || dirSinkVars[name]
}

func (r *run) recordAssign(name, val string, dyn bool, st *state, sc scope, cmd int, env map[string]string) error {
	r.facts.Assigns = append(r.facts.Assigns, Assign{Name: name, Value: val, Dynamic: dyn, Cmd: cmd})
	r.bashVarWritten(name, name+"="+val, true, st, cmd)
	if !dyn && subscriptCode(val) {
		// x='a[$(cmd)]': wherever bash evaluates x as arithmetic (an
		// index ${b[x]}, a slice, declare -i, printf -v/read "b[x]",
		// [[ -v b[x] ]], a nameref to it), the subscript's cmd runs
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + "=" + val, Cmd: cmd})
	}
	if env != nil {
		env[name] = val
	} else if dyn {
		st.forget(name)
		delete(st.wild, name)
	} else {
		if st.setScalar(name, val) {
			delete(st.wild, name)
		}
		if name == "HOME" || name == "PWD" {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "param", Text: name + "=" + val, Cmd: cmd})
		}
	}
	if name == "SHELLOPTS" && (dyn || strings.Contains(val, "keyword")) {
		// a bash started with SHELLOPTS=keyword takes NAME=value words
		// after a command's name as its environment (set -k)
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + "=" + val, Cmd: cmd})
	}
	if name == "BASHOPTS" {
		// a bash started with it in its environment sets those options
		if dyn {
			r.globOpts = true
		}
		for _, o := range strings.Split(val, ":") {
			r.setShopt(o)
		}
	}
	switch {
	case strings.HasPrefix(name, "BASH_FUNC_"):
		// an exported function: its body runs when the name is called
		if dyn {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + "=" + val, Cmd: cmd})
			return nil
		}
		return r.nested("f"+strings.TrimSpace(val), st, sc, "nested-shell")
	case name == "PS0" || name == "PS1" || name == "PS2" || name == "PS4":
		// prompts are expanded (and their substitutions run) when shown
		if dyn {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + "=" + val, Cmd: cmd})
			return nil
		}
		return r.nested(": "+strconvQuote(val), st, sc, "nested-shell")
	case optionVars[name] && !dyn:
		// NODE_OPTIONS='--require x.js', PERL5OPT=-Mx: files loaded by options
		for _, tok := range strings.Fields(val) {
			if _, after, ok := strings.Cut(tok, "="); ok && strings.HasPrefix(tok, "-") {
				tok = after
			}
			for _, pfx := range []string{"-M", "-r", "-I", "-m"} {
				if strings.HasPrefix(tok, pfx) && len(tok) > 2 && !strings.HasPrefix(tok, "--") {
					tok = tok[2:]
				}
			}
			if looksLikePath(tok) {
				r.addPath(field{text: tok, pattern: tok}, st, "exec", cmd, "")
			}
		}
	}
	if r.a.execSinks[name] {
		if dyn {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + "=" + val, Cmd: cmd})
		} else if strings.TrimSpace(val) != "" {
			return r.nested(sinkCommand(name, val), st, sc, "nested-shell")
		}
	}
	if dirSinkVars[name] && !dyn && val != "" {
		r.addPath(r.word(val), st, "write", cmd, "")
	}
	if (name == "BASH_ENV" || name == "ENV") && dyn {
		// the file a shell runs at start is known only when it runs
		// (BASH_ENV=<(…) is what a command prints)
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + "=" + val, Cmd: cmd})
	}
	if r.a.fileSinks[name] && !dyn && val != "" {
		for _, part := range strings.Split(val, ":") {
			if part != "" {
				r.addPath(r.word(part), st, "exec", cmd, "")
			}
		}
	}
	if strings.HasPrefix(name, "GIT_TRACE") {
		// GIT_TRACE*=/abs/path appends git's trace to that file (1, 2,
		// true and fd numbers go to descriptors)
		switch {
		case dyn:
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "param", Text: name + "=" + val, Cmd: cmd})
			r.addPath(field{text: val, pattern: "/*", dynamic: true, glob: true}, st, "write", cmd, "git")
		case strings.HasPrefix(val, "/") || strings.HasPrefix(val, "~"):
			r.addPath(r.word(val), st, "write", cmd, "git")
		}
	}
	return nil
}

// nested parses a literal script found inside another (sh -c, …) and walks
// it in a copy of the state: a new process.
func (r *run) nested(script string, st *state, sc scope, ctx string) error {
	return r.nestedIn(script, st.clone(), sc, ctx, stdin{})
}

// bashParsers keeps parsers for reuse: a parser is a large value (its read
// buffer), and every call parses at least one script. Parse starts from a
// clean state and the trees it returns share nothing with the parser.
var bashParsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

func parseBash(src string) (*syntax.File, error) {
	p := bashParsers.Get().(*syntax.Parser)
	defer bashParsers.Put(p)
	return p.Parse(strings.NewReader(src), "")
}

// nestedIn walks a literal script in st itself (eval, source of a literal)
// with in as the first statement's stdin.
func (r *run) nestedIn(script string, st *state, sc scope, ctx string, in stdin) error {
	if sc.depth+1 > r.opts.MaxDepth {
		return r.stop(CodeTooDeep, "nested scripts go deeper than %d levels", r.opts.MaxDepth)
	}
	file, err := parseBash(script)
	if err != nil {
		return r.stop(CodeSyntax, "bash syntax error in nested script: %v", err)
	}
	r.quotedSubscripts(file)
	inner := sc
	inner.depth++
	inner.ctx = ctx
	return r.stmtsIn(file.Stmts, st, inner, in)
}

// substs walks the command and process substitutions inside a word.
func (r *run) substs(w *syntax.Word, st *state, sc scope) error {
	if w == nil {
		return nil
	}
	return r.substNode(w, st, sc)
}

func (r *run) substNode(n syntax.Node, st *state, sc scope) error {
	var err error
	syntax.Walk(n, func(node syntax.Node) bool {
		if err != nil {
			return false
		}
		switch x := node.(type) {
		case *syntax.CmdSubst:
			err = r.subshellList(x.Stmts, st, sc, "subst")
			return false
		case *syntax.ArithmExp:
			r.arithAssigns(x.X, st)
			return true
		case *syntax.ParamExp:
			// ${a[i]}, ${s:o:l} evaluate i, o and l as arithmetic
			if x.Index != nil {
				r.arithAssigns(x.Index, st)
			}
			if x.Slice != nil {
				if x.Slice.Offset != nil {
					r.arithAssigns(x.Slice.Offset, st)
				}
				if x.Slice.Length != nil {
					r.arithAssigns(x.Slice.Length, st)
				}
			}
			return true
		case *syntax.BinaryTest:
			switch x.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsLeq, syntax.TsGtr, syntax.TsGeq:
				// [[ a -eq b ]] evaluates both sides as arithmetic
				r.arithAssigns(x.X, st)
				r.arithAssigns(x.Y, st)
			}
			return true
		case *syntax.ProcSubst:
			in := stdin{}
			if x.Op == syntax.CmdOut {
				in = stdin{kind: "pipe"} // >(cmd): cmd reads what the outer command writes
			}
			err = r.subshellListIn(x.Stmts, st, sc, "procsubst", in)
			return false
		}
		return true
	})
	return err
}

func (r *run) subshellList(list []*syntax.Stmt, st *state, sc scope, ctx string) error {
	return r.subshellListIn(list, st, sc, ctx, stdin{})
}

func (r *run) subshellListIn(list []*syntax.Stmt, st *state, sc scope, ctx string, in stdin) error {
	if sc.depth+1 > r.opts.MaxDepth {
		return r.stop(CodeTooDeep, "nested scripts go deeper than %d levels", r.opts.MaxDepth)
	}
	inner := sc
	inner.depth++
	inner.ctx = ctx
	return r.stmtsIn(list, st.clone(), inner, in)
}

// ---- expansion ----

// field is one argument as bash would produce it, or as close as static
// analysis can get.
type field struct {
	text    string // expanded text; for dynamic words the source with unknown parts kept
	pattern string // text with every unknown part written as "*"
	dynamic bool   // some part could not be known statically
	subst   bool   // a command substitution or arithmetic is among the unknown parts
	glob    bool   // unexpanded glob characters remain (nothing matched)
	proc    bool   // a process substitution <(…) / >(…)
	// globWord: the word had an unquoted glob pattern, whatever it matched;
	// a command name spelled this way is not static.
	globWord bool
	// wild: the word could be anything at all (a brace expansion too large
	// to expand), so not even its prefix can be trusted.
	wild bool
	// substWord: the word holds a command substitution, even one whose
	// output is known; a command name spelled this way is not static.
	substWord bool
	// findNames: a find's -name/-iname tests ("i:" marks -iname) that every
	// entry the word stands for ("start/{}") passes; nil when none narrow
	// it or the expression is not a plain conjunction.
	findNames []string
	// listed: the word stands for any entry a path lister printed (find
	// . | xargs cat, $(find .), find -exec … {}), links included
	listed bool
	// tracked: those entries are files git tracks (git ls-files, git
	// diff --name-only): only links in git's index are among them
	tracked bool
	// noLinks: the word stands for entries a lister printed that cannot
	// be symbolic links (find -type f without -L): a command following
	// links reaches nothing through them
	noLinks bool
	// allEntries: an item ls prints for a directory it lists whole (ls |
	// xargs rm -rf): every entry of it
	allEntries bool
	// noFollow: the command acts on a symbolic link named by the word
	// itself, not on what it points to (rm, readlink, ls -l, stat, the
	// glob tool's matches): the path is the link's own place
	noFollow bool
	// named: the word is the output of a find that prints only entries
	// passing a -name test "." fails ($(find . -name '*.pyc')): entries
	// below the directory, never the directory itself
	named bool
	// leadOpen: the word starts with an unknown part that could be an
	// absolute path (an unset variable, the output of a command that is
	// not a path lister): cat "$(base64 -d <<< …)" could read anything
	leadOpen bool
	// climbs: an unknown part could hold ".." (a command's output, a
	// variable read at run time): src/$(cat f) is any path at all that
	// ends with climbRest, the pattern of what follows the last such part
	climbs    bool
	climbRest string
	// positional: the word is only "$@", "$*" or "$N": a function's
	// arguments
	positional bool
	// parentOnly: the word is the ".." a pattern such as .* may match
	// (dotDotAlternative), as its last component: the parent directory
	// itself, which a command that only names or lists it does not enter
	parentOnly bool
}

type env struct {
	st   *state
	home string
	// environ is Options.Environ when EnvKnown; nil otherwise
	environ map[string]string
}

func (e env) Get(name string) expand.Variable {
	str := func(s string) expand.Variable { return expand.Variable{Set: true, Kind: expand.String, Str: s} }
	if arr, ok := e.st.arrays[name]; ok {
		return expand.Variable{Set: true, Kind: expand.Indexed, List: arr}
	}
	if v, ok := e.st.vars[name]; ok {
		return str(v)
	}
	if e.st.params != nil {
		switch {
		case name == "@" || name == "*":
			return expand.Variable{Set: true, Kind: expand.Indexed, List: e.st.params}
		case name == "#":
			return str(strconv.Itoa(len(e.st.params)))
		case isDigits(name) && name != "0":
			if i, _ := strconv.Atoi(name); i <= len(e.st.params) {
				return str(e.st.params[i-1])
			}
			return expand.Variable{Set: true, Kind: expand.String}
		}
	}
	switch name {
	case "HOME":
		if e.home != "" {
			return str(e.home)
		}
	case "PWD":
		if e.st.cwd != "" {
			return str(e.st.cwd)
		}
	case "IFS":
		return str(" \t\n")
	}
	if v, ok := e.environ[name]; ok && name != "OLDPWD" && name != "PWD" && name != "HOME" && !e.st.wild[name] && !e.st.gone[name] && !e.st.noEnv {
		return str(v)
	}
	if user, ok := strings.CutPrefix(name, "HOME "); ok {
		switch user {
		case "root":
			return str("/root")
		case "+": // ~+ is the working directory
			if e.st.cwd != "" {
				return str(e.st.cwd)
			}
			return expand.Variable{}
		case "-": // ~- is the previous one ($OLDPWD)
			if v, ok := e.st.vars["OLDPWD"]; ok && !e.st.wild["OLDPWD"] {
				return str(v)
			}
			// not known here: a path nobody may assume is inside the
			// workspace (judged as outside it)
			return str("/home/-")
		}
		return str("/home/" + user)
	}
	return expand.Variable{}
}

// env is the expansion environment of a state.
func (r *run) env(st *state) env {
	e := env{st: st, home: r.opts.Home}
	if r.opts.EnvKnown {
		e.environ = r.opts.Environ
		if e.environ == nil {
			e.environ = map[string]string{}
		}
	}
	return e
}

func (e env) Each(fn func(string, expand.Variable) bool) {
	for k, v := range e.st.vars {
		if !fn(k, expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}) {
			return
		}
	}
	for k, v := range e.st.arrays {
		if !fn(k, expand.Variable{Set: true, Kind: expand.Indexed, List: v}) {
			return
		}
	}
}

var errGlobBudget = errors.New("glob reads too many entries")

// cwdEnv is an environment whose PWD is the directory the shell runs in,
// whatever the script assigned to it: the base mvdan/sh globs relative
// patterns in.
type cwdEnv struct {
	expand.Environ
	cwd string
}

func (e cwdEnv) Get(name string) expand.Variable {
	if name == "PWD" {
		return expand.Variable{Set: true, Kind: expand.String, Str: e.cwd}
	}
	return e.Environ.Get(name)
}

// globInCwd expands w after the script assigned PWD, globbing relative
// patterns in the directory the shell runs in: mvdan/sh globs them in
// $PWD, bash in its working directory (PWD=/usr; cat link_*/shadow reads
// the workspace's link_etc/shadow). A word that does not expand $PWD is
// left to the rest of fields with PWD answered as that directory; one
// that does (${PWD:0:0}link_*/shadow) needs the assigned value, and is
// globbed here with starGlob. Should it expand to several fields, a read
// at or below the assigned directory, which a relative pattern's would
// be, is refused as past the budget and the word judged as a pattern.
func (r *run) globInCwd(st *state, cfg *expand.Config, w *syntax.Word, pwd string) (fields []string, done bool, err error) {
	if !refersTo(w, "PWD") {
		cfg.Env = cwdEnv{Environ: cfg.Env, cwd: st.cwd}
		return nil, false, nil
	}
	if fields, done, err = r.globWord(st, cfg, w, false); done {
		return fields, done, err
	}
	read, base := cfg.ReadDir2, path.Clean(pwd)
	cfg.ReadDir2 = func(dir string) ([]fs.DirEntry, error) {
		if dir == base || strings.HasPrefix(dir, strings.TrimSuffix(base, "/")+"/") {
			r.globOver++
			return nil, errGlobBudget
		}
		return read(dir)
	}
	return nil, false, nil
}

// refersTo says whether w expands the parameter name anywhere.
func refersTo(w *syntax.Word, name string) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value == name {
			found = true
		}
		return !found
	})
	return found
}

// closed returns the expansion config of a state: no globbing, unset
// variables are errors, and only literal command substitutions expand.
func (r *run) closed(st *state) *expand.Config {
	return &expand.Config{Env: r.env(st), NoUnset: true, CmdSubst: func(w io.Writer, cs *syntax.CmdSubst) error {
		if out, ok := r.substOutput(cs, st); ok {
			_, err := io.WriteString(w, out)
			return err
		}
		return errDynamic
	}}
}

var errDynamic = errors.New("not known statically")

// substOutput is the output of $(echo …) or $(printf …) with static
// arguments: what bash would substitute, trailing newlines removed.
func (r *run) substOutput(cs *syntax.CmdSubst, st *state) (string, bool) {
	if len(cs.Stmts) != 1 {
		return "", false
	}
	s := cs.Stmts[0]
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(s.Redirs) > 0 || s.Background || s.Negated || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return "", false
	}
	name := call.Args[0].Lit()
	if r.shadowed(st, name) {
		return "", false
	}
	for _, w := range call.Args {
		if unknown, _, _ := r.unknownParts(w, st); unknown {
			return "", false
		}
	}
	fs, err := expand.Fields(&expand.Config{Env: r.env(st), NoUnset: true}, call.Args...)
	if err != nil {
		return "", false
	}
	if out, ok := r.knownOutput(name, fs[1:], st); ok {
		return out, true
	}
	if name != "echo" && name != "printf" {
		return "", false
	}
	argv := make([]field, len(fs))
	for i, f := range fs {
		argv[i] = field{text: f, pattern: f}
	}
	out := r.literalOut(argv, name == "echo", st)
	if out == nil {
		return "", false
	}
	return strings.TrimRight(*out, "\n"), true
}

func (r *run) config(st *state) *expand.Config {
	cfg := r.closed(st)
	cfg.GlobStar, cfg.DotGlob, cfg.NoCaseGlob = r.shopts["globstar"], r.shopts["dotglob"], r.shopts["nocaseglob"]
	if st.cwd != "" {
		cfg.ReadDir2 = func(dir string) ([]fs.DirEntry, error) {
			if z := r.cls.zone(path.Clean(dir)); z == "tmp" || z == "tmp_root" {
				return nil, nil // the sandbox's /tmp is private: the host's says nothing
			}
			ents, err := r.listDir(dir)
			r.glob += len(ents) + 1
			if r.glob > r.opts.MaxGlob {
				r.globOver++
				return nil, errGlobBudget
			}
			r.stats.seed(dir, ents)
			return ents, err
		}
	}
	return cfg
}

// fields expands words as bash would; words that cannot be expanded
// statically become one dynamic field each.
func (r *run) fields(st *state, sc scope, words ...*syntax.Word) []field {
	var out []field
	for _, w := range words {
		if w == nil {
			continue
		}
		if lit, ok := plainWord(w); ok {
			// nothing to expand: the word is its own one field
			out = append(out, field{text: lit, pattern: lit})
			continue
		}
		r.defaultAssigns(w, st, sc)
		if unknown, subst, proc, wild := r.unknownPartsWild(w, st); unknown {
			text, pattern := r.render(w, st)
			f := field{text: text, pattern: pattern, dynamic: true, subst: subst, proc: proc, wild: wild, substWord: hasCmdSubst(w), leadOpen: r.leadOpen(w, st), named: namedFind(w) || namedEntry(w, st), positional: positionalOnly(w)}
			f.climbRest, f.climbs = r.climbRest(w, st)
			listedWord(&f, w, st)
			out = append(out, f)
			continue
		}
		var fs []string
		err := errBraceBudget
		if braceCount(w, r.opts.MaxBraces) <= r.opts.MaxBraces {
			over := r.globOver
			cfg := r.config(st)
			var done bool
			if pwd, ok := st.vars["PWD"]; ok && pwd != st.cwd && cfg.ReadDir2 != nil {
				fs, done, err = r.globInCwd(st, cfg, w, pwd)
			}
			if !done {
				if fs, done, err = r.globStar(st, cfg, w); !done {
					fs, err = expand.Fields(cfg, w)
				}
			}
			if err == nil && r.globOver != over {
				// A directory below a ** was not read for the budget, and
				// mvdan/sh takes an unreadable directory for an empty
				// one: the list is partial, and judging it as whole
				// would let cat /usr/** through.
				fs, err = nil, errGlobBudget
			}
		}
		if err != nil {
			text, pattern := r.render(w, st)
			wild := errors.Is(err, errBraceBudget) || strings.Contains(err.Error(), "brace expansion")
			if wild {
				// too large to expand: what the word holds is unknowable
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "too_large", Text: text, Cmd: -1})
			}
			out = append(out, field{text: text, pattern: pattern, dynamic: true, glob: errors.Is(err, errGlobBudget), wild: wild})
			continue
		}
		gw, sw, quoted := r.globbed(w, st), hasCmdSubst(w), hasQuotes(w)
		if gw {
			// .? and .* match .. in bash before 5.2, in sh, and after
			// shopt -u globskipdots: the word with .. for them comes
			// first (cd takes its first operand)
			if _, pattern := r.render(w, st); pattern != "" {
				if alt, ok := dotDotAlternative(pattern); ok {
					out = append(out, field{text: alt, pattern: alt, glob: isGlob(alt), globWord: true, dynamic: isGlob(alt),
						parentOnly: alt == ".." || strings.HasSuffix(alt, "/..")})
				}
			}
		}
		for _, s := range fs {
			if s == "" && !quoted {
				continue // bash drops empty unquoted words ({sh,}, $EMPTY)
			}
			// A result that still holds glob characters is the pattern
			// itself (nothing matched) — unless an entry of that very name
			// exists: then it is a match ("[l]ink" found by "*"), or bash
			// passes the unmatched pattern on and the command opens that
			// entry all the same. Either way it is a literal path to
			// resolve, symlinks and all.
			g := gw && isGlob(s) && !r.literalExists(s, st)
			out = append(out, field{text: s, pattern: s, glob: g, globWord: gw, substWord: sw})
		}
	}
	return out
}

// dotDotAlternative is pattern with ".." for each of its components that
// bash could match with ".." (a component starting with a literal "." that
// matches ".."), when there is one.
func dotDotAlternative(pattern string) (string, bool) {
	comps := strings.Split(pattern, "/")
	found := false
	for i, c := range comps {
		if len(c) < 2 || c[0] != '.' || !strings.ContainsAny(c, "*?[") {
			continue
		}
		// bash negates a class with ! as well as ^
		// (a POSIX class such as [[:punct:]] is beyond path.Match: taken
		// to match)
		if ok, err := path.Match(strings.ReplaceAll(c, "[!", "[^"), ".."); ok || err != nil || strings.Contains(c, "[:") {
			comps[i], found = "..", true
		}
	}
	return strings.Join(comps, "/"), found
}

// positionalOnly says whether w is nothing but an expansion of the
// positional parameters ("$@", $1, "$*"), quoted or not.
func positionalOnly(w *syntax.Word) bool {
	part, ok := onlyPart(w)
	if !ok {
		return false
	}
	pe, ok := part.(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Exp != nil || pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.Length || pe.Excl || pe.Width {
		return false
	}
	n := pe.Param.Value
	return n == "@" || n == "*" || isDigits(n)
}

// climbRest says whether an unknown part of w could hold a ".."
// component (partClimbs) and then returns the pattern of what follows the
// last such part: the path climbs to any directory and goes on from
// there, so that suffix is all that is known of it.
func (r *run) climbRest(w *syntax.Word, st *state) (string, bool) {
	type qpart struct {
		p      syntax.WordPart
		quoted bool
	}
	var parts []qpart
	for _, p := range w.Parts {
		if dq, ok := p.(*syntax.DblQuoted); ok {
			for _, q := range dq.Parts {
				parts = append(parts, qpart{q, true})
			}
			continue
		}
		parts = append(parts, qpart{p, false})
	}
	last, text := -1, false
	for i, p := range parts {
		// the word's first text is leadOpen's to judge (and "*/x" is
		// judged as /x besides); what comes after text may climb out
		// of it
		if text && r.partClimbs(p.p, st) {
			last = i
		}
		switch x := p.p.(type) {
		case *syntax.Lit:
			text = text || x.Value != ""
		case *syntax.SglQuoted:
			text = text || x.Value != ""
		default:
			text = true
		}
	}
	if last < 0 {
		return "", false
	}
	rest := &syntax.Word{}
	for _, p := range parts[last+1:] {
		if p.quoted {
			rest.Parts = append(rest.Parts, &syntax.DblQuoted{Parts: []syntax.WordPart{p.p}})
		} else {
			rest.Parts = append(rest.Parts, p.p)
		}
	}
	_, pattern := r.render(rest, st)
	return pattern, true
}

// numericParams are the variables bash keeps that only ever hold numbers.
var numericParams = map[string]bool{"$": true, "?": true, "!": true, "#": true, "RANDOM": true, "SRANDOM": true, "SECONDS": true,
	"LINENO": true, "BASHPID": true, "PPID": true, "UID": true, "EUID": true, "EPOCHSECONDS": true, "EPOCHREALTIME": true, "HISTCMD": true}

// partClimbs says whether a part of a word, not known here, could expand
// to text holding a ".." component: anything but a number, a path a
// lister prints below its operands (ls without -a), a program's path
// (which), or a value such as date +FORMAT (without "." or "/"), id or
// git rev-parse HEAD. basename and dirname print ".." for "..".
func (r *run) partClimbs(p syntax.WordPart, st *state) bool {
	switch x := p.(type) {
	case *syntax.Lit, *syntax.SglQuoted, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob:
		return false
	case *syntax.DblQuoted:
		for _, q := range x.Parts {
			if r.partClimbs(q, st) {
				return true
			}
		}
		return false
	case *syntax.ParamExp:
		return r.paramClimbs(x, st)
	case *syntax.CmdSubst:
		if _, ok := r.substOutput(x, st); ok {
			return false
		}
		if cutsLines(x) {
			return true // grep -o "[.][.]" makes .. of any line
		}
		switch substKind(x) {
		case "lister":
			return listsDots(x)
		case "value":
			return r.climbingValue(x, st)
		}
		return true
	}
	unknown, _, _ := r.unknownParts(&syntax.Word{Parts: []syntax.WordPart{p}}, st)
	return unknown
}

// paramClimbs says whether a variable's value could hold ".." where the
// analysis does not know it: a value the script got at run time (read, a
// command's output, a loop over such a list: wild or open), an indirect
// or transformed expansion, an element not followed. A variable of the
// environment the script did not set is the user's, not the agent's:
// in the middle of a path it is taken as it is (leadOpen judges one at
// the start). An entry a lister printed lies below its directory.
func (r *run) paramClimbs(x *syntax.ParamExp, st *state) bool {
	if x.Param == nil || x.Excl || r.distrusted(x, st) || bashKept[x.Param.Value] || st.wild["IFS"] || st.gone["IFS"] {
		return true
	}
	name := x.Param.Value
	if x.Length || numericParams[name] {
		return false
	}
	if x.Exp != nil && x.Exp.Word != nil {
		for _, p := range x.Exp.Word.Parts {
			if r.partClimbs(p, st) {
				return true
			}
		}
	}
	if x.Index != nil && !knownElem(x, st) {
		return true
	}
	if _, ok := st.entries[name]; ok && !st.wild[name] {
		return false
	}
	return st.wild[name] || r.openVars[name]
}

// cutsLines says whether a substitution pipes its output through a grep
// that prints only the matching part of a line (-o): a lister's names or
// a value's digits then come out as whatever the pattern picks.
func cutsLines(x *syntax.CmdSubst) bool {
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return !found
		}
		switch call.Args[0].Lit() {
		case "grep", "egrep", "fgrep", "rg":
			for _, w := range call.Args[1:] {
				t, ok := staticText(w)
				if !ok || t == "--only-matching" || len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsRune(t, 'o') {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// listsDots says whether a lister substitution is ls showing "." and
// ".." (lsShowsDots; an argument not known counts as showing them).
func listsDots(x *syntax.CmdSubst) bool {
	call := firstCall(x)
	if call == nil || call.Args[0].Lit() != "ls" {
		return false
	}
	args, ok := staticArgs(call)
	return !ok || lsShowsDots(args)
}

// staticArgs is the text of a call's arguments after the name, when every
// one is known as written.
func staticArgs(call *syntax.CallExpr) ([]string, bool) {
	args := make([]string, 0, len(call.Args)-1)
	for _, a := range call.Args[1:] {
		t, ok := staticText(a)
		if !ok {
			return nil, false
		}
		args = append(args, t)
	}
	return args, true
}

// firstCall is the first command of a substitution that is one command
// or a pipeline ($(ls | head)), or nil.
func firstCall(x *syntax.CmdSubst) *syntax.CallExpr {
	if len(x.Stmts) != 1 {
		return nil
	}
	cmd := x.Stmts[0].Cmd
	for {
		b, ok := cmd.(*syntax.BinaryCmd)
		if !ok || b.X.Cmd == nil {
			break
		}
		cmd = b.X.Cmd
	}
	call, ok := cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil
	}
	return call
}

// climbingValue says whether a "value" substitution could print "..":
// expr and wc print what they are given; basename and dirname when what
// they are given could hold it; the others (date, seq) when their
// arguments hold ".." or "/".
func (r *run) climbingValue(x *syntax.CmdSubst, st *state) bool {
	call := firstCall(x)
	if call == nil {
		return true
	}
	switch call.Args[0].Lit() {
	case "expr", "wc":
		return true
	case "basename", "dirname":
		// ".." for "..": only when what they are given could be it
		for _, w := range call.Args[1:] {
			if t, ok := staticText(w); ok {
				if strings.Contains(t, "..") {
					return true
				}
				continue
			}
			for _, p := range w.Parts {
				if r.partClimbs(p, st) {
					return true
				}
			}
		}
		return false
	}
	for _, a := range call.Args[1:] {
		t, ok := staticText(a)
		if !ok || strings.Contains(t, "..") || strings.Contains(t, "/") {
			return true
		}
	}
	return false
}

// leadOpen says whether w starts with an unknown part that could hold an
// absolute path: a command substitution whose command is not a path lister
// (find, ls, git ls-files, grep -l …, whose output lies below operands
// inside the tree) or which/command -v/type (programs on PATH). A variable
// assigned such a value is wild (assign), so "$x" is judged as unknown;
// other unset variables come from the environment, not from the agent.
func (r *run) leadOpen(w *syntax.Word, st *state) bool {
	return r.partsOpen(w.Parts, st)
}

// partsOpen walks the leading parts of a word that may expand to nothing
// (unset variables, empty quotes) and says whether the first one that
// could hold text could hold an absolute path.
func (r *run) partsOpen(parts []syntax.WordPart, st *state) bool {
	e := r.env(st)
	for _, p := range parts {
		switch x := p.(type) {
		case *syntax.DblQuoted:
			if len(x.Parts) == 0 {
				continue // "" adds nothing
			}
			return r.partsOpen(x.Parts, st)
		case *syntax.SglQuoted:
			if x.Value == "" {
				continue
			}
			return false
		case *syntax.Lit:
			if x.Value == "" {
				continue
			}
			return false
		case *syntax.CmdSubst:
			if _, ok := r.substOutput(x, st); ok {
				return false
			}
			return substKind(x) == "opaque"
		case *syntax.ParamExp:
			if x.Param == nil || x.Excl || r.distrusted(x, st) || bashKept[x.Param.Value] || st.wild["IFS"] || st.gone["IFS"] {
				// ${!x}, ${x/%X/$HOME}, $BASH_REMATCH: what comes out is
				// not worked out here, and may be any path
				return true
			}
			name := x.Param.Value
			if _, ok := st.entries[name]; ok && !st.wild[name] && !e.Get(name).IsSet() {
				return false // an entry of a known directory (render writes it)
			}
			if r.openVars[name] && !e.Get(name).IsSet() {
				return true
			}
			if x.Exp != nil && x.Exp.Word != nil && (x.Exp.Op == syntax.DefaultUnset || x.Exp.Op == syntax.DefaultUnsetOrNull ||
				x.Exp.Op == syntax.AlternateUnset || x.Exp.Op == syntax.AlternateUnsetOrNull) {
				// ${x:-WORD}, ${x:+WORD}: WORD may be what comes out
				if r.partsOpen(x.Exp.Word.Parts, st) {
					return true
				}
			}
			if name == "@" || name == "*" || isDigits(name) {
				return r.openVars[name]
			}
			if x.Index != nil && !x.Length && !knownElem(x, st) {
				// ${a[0]} of an array filled where the value is not
				// followed (printf -v 'a[0]', read 'a[1]', declare
				// 'a[0]=…'), ${a[i]} by an index worked out at run time
				return true
			}
			if !e.Get(name).IsSet() {
				plain := x.Exp == nil || x.Exp.Op == syntax.DefaultUnset || x.Exp.Op == syntax.DefaultUnsetOrNull
				if e.environ != nil && name != "OLDPWD" && !st.noEnv {
					plain = false // the environment is known: unset means empty
				}
				if plain && x.Repl == nil && x.Slice == nil && !x.Length && x.Index == nil {
					// not set by the script: its value comes from the
					// environment the command runs in (GOOGLE_APPLICATION_CREDENTIALS,
					// OLDPWD), which could name any path
					return true
				}
				continue // unset: expands to nothing, look further
			}
			return false
		default:
			return false
		}
	}
	return false
}

// bashKept are the variables bash sets itself from what a script did, whose
// values this analysis does not follow: the match of [[ =~ ]], the
// directory stack, mapfile's default array, the hash and alias tables.
var bashKept = map[string]bool{"BASH_REMATCH": true, "DIRSTACK": true, "MAPFILE": true, "BASH_CMDS": true,
	"BASH_ALIASES": true, "BASH_ARGV": true, "BASH_SOURCE": true, "COPROC": true, "READLINE_LINE": true}

// unfaithful says whether the expansion here computes pe other than bash
// does, so that its value must count as unknown: a replacement anchored at
// the start or the end (${x/#p/r}, ${x/%p/r}: taken here as a literal # or
// %), one whose replacement holds & (bash 5.2 puts the match there) or a
// backslash (kept here), and any pattern with extglob operators
// (${x##+(X)}: matched with shopt -s extglob, not here) or a parameter.
func unfaithful(pe *syntax.ParamExp) bool {
	// odd: w holds what is taken otherwise here; in a pattern, also a
	// parameter (bash matches its value as a pattern)
	odd := func(w *syntax.Word, pattern bool) bool {
		if w == nil {
			return false
		}
		for _, p := range w.Parts {
			switch x := p.(type) {
			case *syntax.ExtGlob:
				return true
			case *syntax.Lit:
				// in a pattern an escaped character is taken as bash
				// takes it; in a replacement the library keeps the
				// backslash, and bash 5.2 puts the match for &
				if extglobOp(x.Value) || !pattern && strings.ContainsAny(x.Value, `\&`) {
					return true
				}
			case *syntax.ParamExp:
				if pattern {
					return true
				}
			}
		}
		return false
	}
	if pe.Repl != nil {
		if pe.Repl.Orig != nil && len(pe.Repl.Orig.Parts) > 0 {
			if l, ok := pe.Repl.Orig.Parts[0].(*syntax.Lit); ok && (strings.HasPrefix(l.Value, "#") || strings.HasPrefix(l.Value, "%")) {
				return true
			}
		}
		return odd(pe.Repl.Orig, true) || odd(pe.Repl.With, false)
	}
	if pe.Exp != nil {
		switch pe.Exp.Op {
		case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix,
			syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
			return odd(pe.Exp.Word, true)
		}
	}
	return false
}

// distrusted says whether pe's value as worked out here may not be what
// bash makes of it: unfaithful, or a replacement under shopt -s
// nocasematch (bash ignores case there, the library does not), or one
// whose replacement takes an & or a backslash from a parameter's value
// (r="&"; ${x/*/$r} is the match in bash 5.2).
func (r *run) distrusted(pe *syntax.ParamExp, st *state) bool {
	if unfaithful(pe) {
		return true
	}
	if pe.Repl == nil {
		return false
	}
	if r.shopts["nocasematch"] || r.globOpts {
		return true
	}
	if pe.Repl.With == nil {
		return false
	}
	e := r.env(st)
	for _, p := range pe.Repl.With.Parts {
		switch x := p.(type) {
		case *syntax.ParamExp:
			if x.Param == nil {
				return true
			}
			v := e.Get(x.Param.Value)
			if !v.IsSet() || strings.ContainsAny(v.String(), `\&`) || x.Index != nil || x.Exp != nil || x.Repl != nil {
				return true
			}
		case *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst:
			return true
		}
	}
	return false
}

// extglobOp says whether s holds an extglob operator: ?( *( +( @( !(.
func extglobOp(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] == '(' && strings.IndexByte("?*+@!", s[i-1]) >= 0 {
			return true
		}
	}
	return false
}

// markOpen records that a variable may hold any absolute path.
func (r *run) markOpen(name string) {
	if r.openVars == nil {
		r.openVars = map[string]bool{}
	}
	r.openVars[name] = true
}

// substKind sorts a command substitution by what its output can be:
// "lister" (paths below relative operands: find, ls, git ls-files, grep
// -l, …, optionally filtered by head/tail/sort/uniq/grep; or programs on
// PATH: which, command -v, type), "value" (text with no slash: date with a
// slash-free format, id, whoami, git rev-parse --short, wc, …) or "opaque"
// (anything, an absolute path or ../.. included).
func substKind(x *syntax.CmdSubst) string {
	if len(x.Stmts) != 1 || x.Stmts[0].Cmd == nil {
		return "opaque"
	}
	var calls []*syntax.CallExpr
	var flatten func(c syntax.Command) bool
	flatten = func(c syntax.Command) bool {
		switch y := c.(type) {
		case *syntax.CallExpr:
			calls = append(calls, y)
			return true
		case *syntax.BinaryCmd:
			if y.Op != syntax.Pipe || y.X.Cmd == nil || y.Y.Cmd == nil {
				return false
			}
			return flatten(y.X.Cmd) && flatten(y.Y.Cmd)
		}
		return false
	}
	if !flatten(x.Stmts[0].Cmd) || len(calls) == 0 || len(calls[0].Assigns) > 0 {
		return "opaque"
	}
	var args []string
	for _, a := range calls[0].Args {
		l, ok := staticText(a)
		if !ok {
			l = "\x00" // not known: no operand check can pass
		}
		args = append(args, l)
	}
	if len(args) == 0 {
		return "opaque"
	}
	for _, c := range calls[1:] {
		if len(c.Args) == 0 {
			return "opaque"
		}
		switch c.Args[0].Lit() {
		case "head", "tail", "sort", "uniq", "grep", "egrep", "fgrep":
		case "xargs":
			if !xargsDirname(c) {
				return "opaque"
			}
		default:
			return "opaque"
		}
	}
	has := func(flags ...string) bool {
		for _, a := range args[1:] {
			for _, f := range flags {
				if a == f || strings.HasPrefix(f, "--") && strings.HasPrefix(a, f+"=") ||
					len(f) == 2 && f[0] == '-' && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], f[1]) >= 0 {
					return true
				}
			}
		}
		return false
	}
	relative := func(from int) bool {
		for _, a := range args[from:] {
			// git's pathspec magic (:/, :(top)) names the repository's
			// top, which may lie above the workspace
			if a == "\x00" || strings.HasPrefix(a, "/") || strings.HasPrefix(a, "~") || containsDotDot(a) || strings.HasPrefix(a, ":") {
				return false
			}
		}
		return true
	}
	noSlash := func() bool {
		for _, a := range args[1:] {
			if a == "\x00" || strings.ContainsAny(a, "/") {
				return false
			}
		}
		return true
	}
	name := args[0]
	switch name {
	case "which", "command", "type":
		return "lister"
	case "date":
		if noSlash() {
			return "value"
		}
	case "id", "whoami", "hostname", "uname", "nproc", "arch", "wc", "seq", "basename", "expr", "getconf", "pgrep", "pidof", "tty", "uuidgen":
		return "value"
	case "dirname":
		if relative(1) || len(args) == 2 && args[1] == "\x00" && len(calls[0].Args) == 2 && dollarZero(calls[0].Args[1]) {
			return "value" // dirname "$0": bash -c's $0 is "bash", so "."
		}
	case "git":
		if len(args) < 2 {
			return "opaque"
		}
		switch args[1] {
		case "rev-parse":
			if !has("--git-dir", "--absolute-git-dir", "--git-common-dir", "--show-toplevel", "--show-superproject-working-tree", "--git-path", "--resolve-git-dir", "--show-cdup", "--show-prefix") {
				return "value"
			}
		case "describe", "rev-list":
			return "value"
		case "branch":
			if has("--show-current") {
				return "value"
			}
		case "ls-files":
			if !has("--format") && relative(2) {
				return "lister"
			}
		case "diff":
			if has("--name-only", "--name-status") && relative(2) {
				return "lister"
			}
		case "grep":
			if has("-l", "--name-only", "--files-with-matches", "-L", "--files-without-match") && relative(2) {
				return "lister"
			}
		case "status":
			if relative(2) {
				return "lister"
			}
		}
	case "go":
		if len(args) >= 2 && args[1] == "list" && !has("-f", "-json") {
			return "lister"
		}
	case "find":
		if !has("-exec", "-execdir", "-ok", "-okdir", "-printf", "-fprintf", "-fprint", "-fprint0", "-ls", "-fls") && relative(1) {
			return "lister"
		}
	case "grep", "egrep", "fgrep":
		if has("-l", "-L", "--files-with-matches", "--files-without-match") && relative(1) {
			return "lister"
		}
	case "rg":
		if has("-l", "--files", "--files-with-matches", "--files-without-match") && relative(1) {
			return "lister"
		}
	case "ag", "ack":
		if has("-l", "-g", "--files-with-matches") && relative(1) {
			return "lister"
		}
	case "fd", "fdfind", "ls", "tree":
		if !has("-x", "--exec", "-X", "--exec-batch") && relative(1) {
			return "lister"
		}
	}
	return "opaque"
}

// namedEntry says whether w is only a variable read from the output of a
// find that picks entries by name (find . -name '*.o' | while read f).
func namedEntry(w *syntax.Word, st *state) bool {
	part, ok := onlyPart(w)
	if !ok {
		return false
	}
	pe, ok := part.(*syntax.ParamExp)
	return ok && pe.Param != nil && st.entries[pe.Param.Value].named && !st.wild[pe.Param.Value]
}

// namedFind says whether w is only a command substitution of a path-listing
// find whose expression is a plain conjunction holding a -name/-iname test
// that "." (find's first line for a start of ".") cannot pass.
func namedFind(w *syntax.Word) bool {
	call := listerSubst(w)
	if call == nil {
		return false
	}
	if call.Args[0].Lit() == "git" && len(call.Args) > 2 && call.Args[1].Lit() == "ls-files" {
		// git ls-files --others lists untracked files, never "." nor the
		// tracked ones
		for _, a := range call.Args[2:] {
			if l := a.Lit(); l == "--others" || l == "-o" {
				return true
			}
		}
		return false
	}
	args, ok := findArgs(call)
	return ok && findNamed(args)
}

// listerSubst returns the command of w when w is only a command
// substitution of a path lister ($(find . -name '*.o')), else nil.
func listerSubst(w *syntax.Word) *syntax.CallExpr {
	part, ok := onlyPart(w)
	if !ok {
		return nil
	}
	cs, ok := part.(*syntax.CmdSubst)
	if !ok || substKind(cs) != "lister" {
		return nil
	}
	call, _ := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	return call
}

// findArgs returns the arguments after find's name when call is a find
// whose arguments are all static.
func findArgs(call *syntax.CallExpr) ([]string, bool) {
	if call.Args[0].Lit() != "find" {
		return nil, false
	}
	return staticArgs(call)
}

// listedWord marks f when w is only the output of a path lister ($(find
// .), $(git ls-files | grep x)) or only a variable read from one: f then
// stands for any entry the lister printed (field.listed), and what is
// known of those entries is kept (no links, -name tests, tracked by git).
func listedWord(f *field, w *syntax.Word, st *state) {
	part, ok := onlyPart(w)
	if !ok {
		return
	}
	switch x := part.(type) {
	case *syntax.CmdSubst:
		if substKind(x) != "lister" {
			return
		}
		calls := pipeCalls(x.Stmts[0].Cmd)
		if len(calls) == 0 {
			return
		}
		f.listed = true
		for _, c := range calls[1:] {
			if c.Args[0].Lit() == "xargs" && xargsDirname(c) {
				// the directories the entries lie in, never a link (a
				// lister does not go below one)
				f.noLinks = true
			}
		}
		if args, ok := findArgs(calls[0]); ok {
			fs := make([]field, len(args))
			for i, a := range args {
				fs[i] = field{text: a, pattern: a}
			}
			f.noLinks = f.noLinks || findNoLinks(args)
			f.findNames = findNameTests(fs)
		}
		f.tracked = gitTracked(calls[0])
	case *syntax.ParamExp:
		if x.Param == nil || x.Exp != nil || x.Slice != nil || x.Repl != nil || x.Length || x.Excl || x.Index != nil || st.wild[x.Param.Value] {
			return
		}
		e, ok := st.entries[x.Param.Value]
		if !ok {
			return
		}
		f.listed, f.noLinks, f.findNames, f.tracked = true, e.noLinks, e.names, e.tracked
	}
}

// pipeCalls lists the commands of a pipeline of simple commands, or nil.
func pipeCalls(c syntax.Command) []*syntax.CallExpr {
	switch y := c.(type) {
	case *syntax.CallExpr:
		if len(y.Args) == 0 {
			return nil
		}
		return []*syntax.CallExpr{y}
	case *syntax.BinaryCmd:
		if y.Op != syntax.Pipe || y.X.Cmd == nil || y.Y.Cmd == nil {
			return nil
		}
		x, z := pipeCalls(y.X.Cmd), pipeCalls(y.Y.Cmd)
		if x == nil || z == nil {
			return nil
		}
		return append(x, z...)
	}
	return nil
}

// gitTracked says whether call is a git command listing files git tracks
// (ls-files without --others, diff --name-only, …): a link among them is
// in git's index.
func gitTracked(call *syntax.CallExpr) bool {
	if call.Args[0].Lit() != "git" {
		return false
	}
	args, ok := staticArgs(call)
	return ok && gitListsTracked(args)
}

// gitListsTracked says whether git with these (static) arguments lists
// only paths in its index: ls-files or diff, without --others (untracked
// files) or --no-index (any two paths).
func gitListsTracked(args []string) bool {
	sub := ""
	for _, l := range args {
		switch {
		case sub == "" && !strings.HasPrefix(l, "-"):
			sub = l
		case l == "--others" || l == "--no-index" || strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "--") && strings.ContainsRune(l, 'o'):
			return false
		}
	}
	return sub == "ls-files" || sub == "diff"
}

// findNamed says whether find's arguments (after its name) are a plain
// conjunction holding a -name/-iname test that "." cannot pass: what it
// prints is then never its start directory, nor every entry.
func findNamed(args []string) bool {
	named := false
	for k := 0; k < len(args); k++ {
		switch t := args[k]; t {
		case "-o", "-or", "!", "-not", ",", "(", ")":
			return false // alternatives and negations widen what is printed
		case "-name", "-iname":
			if k+1 >= len(args) {
				return false
			}
			pat := args[k+1]
			if m, _ := path.Match(strings.ToLower(pat), "."); !m && strings.Trim(pat, "*") != "" {
				named = true
			}
			k++
		}
	}
	return named
}

// xargsDirname says whether c is xargs [-n1|-L1|-r] dirname|basename: of
// relative paths, relative paths (or ".") and plain names.
func xargsDirname(c *syntax.CallExpr) bool {
	for i := 1; i < len(c.Args); i++ {
		switch a := c.Args[i].Lit(); a {
		case "-n1", "-L1", "-r", "--no-run-if-empty":
		case "-n", "-L":
			if i+1 >= len(c.Args) || c.Args[i+1].Lit() != "1" {
				return false
			}
			i++
		case "dirname", "basename":
			return i == len(c.Args)-1
		default:
			return false
		}
	}
	return false
}

// onlyPart is the one part a word is made of, quoted or not ("$x", $(…)).
func onlyPart(w *syntax.Word) (syntax.WordPart, bool) {
	parts := w.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return nil, false
	}
	return parts[0], true
}

// dollarZero says whether w is "$0" (quoted or not).
func dollarZero(w *syntax.Word) bool {
	part, ok := onlyPart(w)
	if !ok {
		return false
	}
	pe, ok := part.(*syntax.ParamExp)
	return ok && pe.Param != nil && pe.Param.Value == "0" && pe.Exp == nil && pe.Index == nil && !pe.Excl && !pe.Length
}

// staticText is the text of a word made only of literal and quoted
// literal parts; "" and false when any part is expanded.
func staticText(w *syntax.Word) (string, bool) {
	var b strings.Builder
	var part func(p syntax.WordPart) bool
	part = func(p syntax.WordPart) bool {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if !part(q) {
					return false
				}
			}
		default:
			return false
		}
		return true
	}
	for _, p := range w.Parts {
		if !part(p) {
			return "", false
		}
	}
	return b.String(), true
}

// errBraceBudget: a word's brace expansion would make more than
// Options.MaxBraces words. Each word made is a path to classify, so a
// brace bomb is refused from its size, before it is expanded.
var errBraceBudget = errors.New("brace expansion too large")

// braceCount is how many words brace expansion makes of w, worked out
// from the braces without expanding them; past limit it stops counting.
func braceCount(w *syntax.Word, limit int) int {
	cp := *w // SplitBraces replaces the parts
	if !syntax.SplitBraces(&cp) {
		return 1
	}
	return partsCount(cp.Parts, limit)
}

func partsCount(parts []syntax.WordPart, limit int) int {
	n := 1
	for _, p := range parts {
		br, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		n *= braceElems(br, limit)
		if n > limit {
			return limit + 1
		}
	}
	return n
}

func braceElems(br *syntax.BraceExp, limit int) int {
	if !br.Sequence {
		n := 0
		for _, e := range br.Elems {
			n += partsCount(e.Parts, limit)
			if n > limit {
				return limit + 1
			}
		}
		return n
	}
	// {x..y[..step]}: numbers, or single characters
	from, err1 := strconv.ParseInt(br.Elems[0].Lit(), 10, 64)
	to, err2 := strconv.ParseInt(br.Elems[1].Lit(), 10, 64)
	if err1 != nil || err2 != nil {
		a, b := br.Elems[0].Lit(), br.Elems[1].Lit()
		if a == "" || b == "" {
			return 1
		}
		from, to = int64(a[0]), int64(b[0])
	}
	step := int64(1)
	if len(br.Elems) > 2 {
		if s, err := strconv.ParseInt(br.Elems[2].Lit(), 10, 64); err == nil && s != 0 {
			step = max(s, -s)
		}
	}
	// the distance as unsigned: it does not overflow where to-from would
	span := uint64(to) - uint64(from)
	if to < from {
		span = uint64(from) - uint64(to)
	}
	if span/uint64(step) >= uint64(limit) {
		return limit + 1
	}
	return int(span/uint64(step)) + 1
}

// plainWord returns the value of a word that expansion leaves as it is: a
// bare literal with no escapes, braces, glob characters or leading tilde,
// or a single-quoted string. (Most words of most commands are such words;
// expanding them costs more than the rest of their analysis.)
func plainWord(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		if p.Value == "" || strings.ContainsAny(p.Value, "\\{}*?[]~") {
			return "", false
		}
		return p.Value, true
	case *syntax.SglQuoted:
		if p.Dollar {
			return "", false
		}
		return p.Value, true
	}
	return "", false
}

// single expands a word that must stay one field (assignment values).
func (r *run) single(st *state, sc scope, w *syntax.Word) (field, bool) {
	if unknown, _, _ := r.unknownParts(w, st); unknown {
		text, pattern := r.render(w, st)
		return field{text: text, pattern: pattern, dynamic: true}, false
	}
	s, err := expand.Literal(r.closed(st), w)
	if err != nil {
		text, pattern := r.render(w, st)
		return field{text: text, pattern: pattern, dynamic: true}, false
	}
	return field{text: s, pattern: s}, true
}

func (r *run) literalDoc(w *syntax.Word, st *state) (string, bool) {
	if unknown, _, _ := r.unknownParts(w, st); unknown {
		return "", false
	}
	s, err := expand.Document(r.closed(st), w)
	return s, err == nil
}

// unknownParts reports whether the word has parts whose value static
// analysis cannot know: substitutions, and parameters not set in the script.
func (r *run) unknownParts(w *syntax.Word, st *state) (unknown, subst, proc bool) {
	unknown, subst, proc, _ = r.unknownPartsWild(w, st)
	return
}

// unknownPartsWild also reports whether an unknown part is a wild variable.
func (r *run) unknownPartsWild(w *syntax.Word, st *state) (unknown, subst, proc, wild bool) {
	e := r.env(st)
	syntax.Walk(w, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			if _, ok := r.substOutput(x, st); !ok {
				unknown, subst = true, true
			}
			return false
		case *syntax.ArithmExp:
			unknown, subst = true, true
			return false
		case *syntax.ProcSubst:
			unknown, proc = true, true
			return false
		case *syntax.ExtGlob:
			// @(…), +(…) …: matched only with shopt -s extglob, which the
			// expansion here does not do: what it matches is not known
			unknown, wild = true, true
			return false
		case *syntax.ParamExp:
			if x.Param == nil || !e.Get(x.Param.Value).IsSet() || x.Excl || x.Index != nil && !knownElem(x, st) || r.distrusted(x, st) {
				unknown = true
			}
			if st.wild["IFS"] || st.gone["IFS"] {
				// IFS set where its value is not known (read IFS,
				// printf -v IFS, IFS=/ : in POSIX mode): how a value
				// splits, and how "$*" joins, is not known either
				unknown = true
			}
			if x.Param != nil && st.wild[x.Param.Value] {
				wild = true
			}
			if x.Exp != nil && x.Exp.Op == syntax.OtherParamOps && x.Exp.Word != nil && strings.Contains(x.Exp.Word.Lit(), "P") {
				unknown, subst = true, true // ${x@P} expands the value like a prompt: it can run code
				if x.Param != nil {
					if v, ok := st.vars[x.Param.Value]; !ok || strings.ContainsAny(v, "$`") {
						r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "${" + x.Param.Value + "@P}", Cmd: -1})
					}
				}
			}
			return true
		}
		return true
	})
	if r.oddGlob(w, st) {
		unknown, wild = true, true
	}
	return
}

// oddGlob says whether w is a glob this analysis cannot expand as bash
// would: a bracket expression with a collating symbol or an equivalence
// class ([[.e.]], [[=e=]]: bash matches "e", the expansion here nothing),
// or any glob once the script set shell options not known statically, as
// text or through an unquoted variable.
func (r *run) oddGlob(w *syntax.Word, st *state) bool {
	odd := func(s string) bool {
		if strings.Contains(s, "[=") || strings.Contains(s, "[.") {
			return strings.Contains(s, "[")
		}
		return r.globOpts && hasGlobMeta(s)
	}
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			if odd(x.Value) {
				return true
			}
		case *syntax.ParamExp:
			if x.Param != nil {
				if v, ok := st.vars[x.Param.Value]; ok && odd(v) {
					return true
				}
			}
		}
	}
	return false
}

// render writes a word back with its static parts expanded where possible,
// returning the readable text and a pattern where unknown parts are "*".
func (r *run) render(w *syntax.Word, st *state) (text, pattern string) {
	var tb, pb strings.Builder
	cfg := r.closed(st)
	var part func(p syntax.WordPart, quoted bool)
	part = func(p syntax.WordPart, quoted bool) {
		switch x := p.(type) {
		case *syntax.Lit:
			v := x.Value
			if !quoted {
				v = unescapeLit(v)
			}
			tb.WriteString(v)
			pb.WriteString(v)
			return
		case *syntax.SglQuoted:
			if s, err := expand.Literal(cfg, &syntax.Word{Parts: []syntax.WordPart{x}}); err == nil {
				tb.WriteString(s)
				pb.WriteString(s)
				return
			}
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				part(q, true)
			}
			return
		case *syntax.ParamExp, *syntax.CmdSubst:
			if pe, ok := x.(*syntax.ParamExp); ok && pe.Param != nil && pe.Exp != nil && (pe.Exp.Op == syntax.DefaultUnset || pe.Exp.Op == syntax.DefaultUnsetOrNull) && !cfg.Env.Get(pe.Param.Value).IsSet() && (!r.opts.EnvKnown || st.noEnv) {
				break // ${X:-default}: X may come from the environment
			}
			if pe, ok := x.(*syntax.ParamExp); ok && (pe.Excl || r.distrusted(pe, st) || st.wild["IFS"] || st.gone["IFS"] || pe.Param != nil && bashKept[pe.Param.Value] || pe.Index != nil && !pe.Length && !knownElem(pe, st)) {
				break // worked out otherwise here than by bash (see partsOpen)
			}
			if s, err := expand.Literal(cfg, &syntax.Word{Parts: []syntax.WordPart{x}}); err == nil {
				tb.WriteString(s)
				pb.WriteString(s)
				return
			}
			if pe, ok := x.(*syntax.ParamExp); ok && pe.Param != nil && pe.Exp == nil && pe.Index == nil && pe.Repl == nil && pe.Slice == nil && !pe.Excl && !pe.Length {
				if e, ok := st.entries[pe.Param.Value]; ok && !st.wild[pe.Param.Value] {
					// an entry a lister printed: DIR/{} standing for DIR/*
					tb.WriteString(strings.TrimSuffix(e.pattern, "*") + "{}")
					pb.WriteString(e.pattern)
					return
				}
			}
		}
		var sb strings.Builder
		syntax.NewPrinter().Print(&sb, &syntax.Word{Parts: []syntax.WordPart{p}})
		tb.WriteString(sb.String())
		if !strings.HasSuffix(pb.String(), "*") {
			pb.WriteString("*")
		}
	}
	for _, p := range w.Parts {
		part(p, false)
	}
	return tb.String(), pb.String()
}

func unescapeLit(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func hasGlobMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

// isGlob reports whether s is a glob pattern as bash sees one: "*" or "?",
// or a "[" closed by a later "]" ("[" alone is the test command).
func isGlob(s string) bool {
	if strings.ContainsAny(s, "*?") {
		return true
	}
	if i := strings.IndexByte(s, '['); i >= 0 {
		return strings.IndexByte(s[i+1:], ']') > 0
	}
	return false
}

// wordHasUnquotedGlob reports whether a glob pattern appears unquoted.
// globbed says whether bash would expand a glob pattern in w: written in
// it unquoted, or brought by an unquoted part - a variable whose value
// holds one (x='*'; rm -rf $x) or the output of echo/printf given one
// (rm -rf $(echo *)). Its fields then are what the pattern matched.
func (r *run) globbed(w *syntax.Word, st *state) bool {
	if wordHasUnquotedGlob(w) {
		return true
	}
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.ParamExp:
			if x.Param != nil && x.Exp == nil && x.Repl == nil && x.Index == nil && x.Slice == nil && !x.Length && !x.Excl {
				if v, ok := st.vars[x.Param.Value]; ok && isGlob(v) {
					return true
				}
			}
		case *syntax.CmdSubst:
			if len(x.Stmts) != 1 {
				continue
			}
			if call, ok := x.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(call.Args) > 1 {
				if n := call.Args[0].Lit(); n == "echo" || n == "printf" {
					for _, a := range call.Args[1:] {
						if r.globbed(a, st) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

func wordHasUnquotedGlob(w *syntax.Word) bool {
	var lits strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			lits.WriteString(x.Value)
		case *syntax.ExtGlob:
			return true
		default:
			lits.WriteString("\x00")
		}
	}
	return isGlob(lits.String())
}

// arithAssigns forgets variables an arithmetic expression assigns, and
// quotedSubscripts flags literal text that holds an array subscript with
// a command substitution ('a[$(cmd)]'): bash runs cmd wherever such text
// is evaluated as a variable reference - read, printf -v, let, (( )),
// [[ -v ]], test -v, declare, ${a['…']}, a['…']=1 - and following every
// such context is not worth the risk; literal text like that has no
// ordinary use.
func (r *run) quotedSubscripts(f *syntax.File) {
	flag := func(text string) {
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: text, Cmd: -1})
	}
	// quoted code inside a subscript: a['$(cmd)']=1, ${a['$(cmd)']}
	inIndex := func(idx syntax.ArithmExpr) {
		if idx == nil {
			return
		}
		syntax.Walk(idx, func(n syntax.Node) bool {
			switch x := n.(type) {
			case *syntax.SglQuoted:
				if strings.Contains(x.Value, "$(") || strings.Contains(x.Value, "`") {
					flag(x.Value)
				}
			case *syntax.Lit:
				if strings.Contains(x.Value, "$(") || strings.Contains(x.Value, "`") {
					flag(x.Value)
				}
			}
			return true
		})
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.SglQuoted:
			if subscriptCode(x.Value) {
				flag(x.Value)
			}
		case *syntax.Lit:
			if subscriptCode(x.Value) {
				flag(x.Value)
			}
		case *syntax.Assign:
			inIndex(x.Index)
		case *syntax.ParamExp:
			inIndex(x.Index)
		case *syntax.ArrayElem:
			inIndex(x.Index)
		}
		return true
	})
}

// subscriptCode says whether a value holds an array subscript with a
// command substitution in it, which bash runs when the value is evaluated
// as arithmetic.
func subscriptCode(v string) bool {
	for {
		i := strings.IndexByte(v, '[')
		if i < 0 {
			return false
		}
		v = v[i+1:]
		in := v
		if j := strings.IndexByte(v, ']'); j >= 0 {
			in = v[:j]
		}
		if strings.Contains(in, "$(") || strings.Contains(in, "`") {
			return true
		}
	}
}

// flags arithmetic over variables whose text holds code: bash evaluates
// array subscripts in such values ("a[$(cmd)]").
func (r *run) arithAssigns(n syntax.Node, st *state) {
	syntax.Walk(n, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.BinaryArithm:
			if x.Op >= syntax.Assgn && x.Op <= syntax.ShrAssgn {
				if w, ok := x.X.(*syntax.Word); ok {
					if name := w.Lit(); name != "" {
						st.forget(name)
						st.setNum(name)
					}
				}
			}
		case *syntax.UnaryArithm:
			if w, ok := x.X.(*syntax.Word); ok {
				if name := w.Lit(); name != "" && (x.Op == syntax.Inc || x.Op == syntax.Dec) {
					st.forget(name)
					st.setNum(name)
				}
			}
		case *syntax.Word:
			if name := x.Lit(); name != "" {
				if st.wild[name] && !st.nums[name] {
					r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "arithmetic on " + name + ", which holds input", Cmd: -1})
				}
				if v, ok := st.vars[name]; ok && strings.ContainsAny(v, "$`[") {
					r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + "=" + v, Cmd: -1})
				}
			}
		case *syntax.ParamExp:
			if x.Param != nil {
				if v, ok := st.vars[x.Param.Value]; ok && strings.ContainsAny(v, "$`[") {
					r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: x.Param.Value + "=" + v, Cmd: -1})
				}
			}
		}
		return true
	})
}

// optionVars hold command-line options an interpreter or tool reads from
// the environment; files they load are exec paths.
var optionVars = map[string]bool{"NODE_OPTIONS": true, "PERL5OPT": true, "RUBYOPT": true, "PYTHONWARNINGS": false, "JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true}

func strconvQuote(s string) string {
	// a double-quoted bash word whose expansions are the value's own
	return "\"" + strings.NewReplacer(`"`, `\"`).Replace(s) + "\""
}

// mktemp recognises NAME=$(mktemp …): the value is a new path under the
// sandbox's /tmp (or under -p DIR), which is where later uses resolve.
func (r *run) mktemp(w *syntax.Word, st *state) (string, bool) {
	parts := w.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return "", false
	}
	cs, ok := parts[0].(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 {
		return "", false
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || call.Args[0].Lit() != "mktemp" || len(cs.Stmts[0].Redirs) > 0 {
		return "", false
	}
	dir, template := "/tmp", ""
	args := call.Args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i].Lit()
		switch {
		case a == "":
			return "", false // not literal
		case a == "-p" || a == "--tmpdir":
			if i+1 >= len(args) || args[i+1].Lit() == "" {
				return "", false
			}
			dir = args[i+1].Lit()
			i++
		case strings.HasPrefix(a, "--tmpdir="):
			dir = strings.TrimPrefix(a, "--tmpdir=")
		case strings.HasPrefix(a, "-p") && len(a) > 2:
			dir = a[2:]
		case strings.HasPrefix(a, "-"):
		default:
			template = a
		}
	}
	name := "tmp.mktemp"
	if template != "" {
		if strings.Contains(template, "/") {
			if !strings.HasPrefix(template, "/") {
				if st.cwd == "" {
					return "", false
				}
				return path.Clean(st.cwd + "/" + template), true
			}
			return path.Clean(template), true
		}
		name = template
	}
	if !strings.HasPrefix(dir, "/") {
		if st.cwd == "" {
			return "", false
		}
		dir = st.cwd + "/" + dir
	}
	return path.Clean(dir + "/" + name), true
}

// finishForks marks functions that reach themselves through calls made in
// the background or a pipeline (a() { b|b& }; b() { a|a& }).
func (r *run) finishForks() {
	for i := range r.facts.Functions {
		f := &r.facts.Functions[i]
		if f.Forks || len(r.forkCalls) == 0 {
			continue
		}
		seen := map[string]bool{}
		stack := append([]string(nil), r.forkCalls[f.Name]...)
		for len(stack) > 0 && !f.Forks {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == f.Name {
				f.Forks, f.Recursive = true, true
				break
			}
			if !seen[n] {
				seen[n] = true
				stack = append(stack, r.forkCalls[n]...)
			}
		}
	}
}

func hasCmdSubst(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.CmdSubst); ok {
			found = true
		}
		return !found
	})
	return found
}

// wrote records what the script wrote to a file.
func (r *run) wrote(real string, content *string) {
	if r.written == nil {
		r.written = map[string]*string{}
	}
	r.written[real] = content
}

// runsWritten handles running a file the script itself wrote: literal
// content is analysed as a script (for shells), anything else is code
// nobody saw. It reports whether p was such a file.
func (r *run) runsWritten(idx int, p Path, st *state, sc scope, parse bool) (bool, error) {
	if (p.Glob || p.Dynamic) && len(r.written) > 0 {
		// find -exec bash {} \;, ls *.sh | xargs bash: any file the
		// script wrote that the pattern takes
		matches := func(k string) bool {
			// the pattern, or a directory part of it (ls *.sh's entries
			// are *.sh/* when *.sh matched no directory yet)
			for pat := p.Real; pat != "/" && pat != "."; pat = path.Dir(pat) {
				if ok, _ := path.Match(pat, k); ok {
					return true
				}
			}
			return false
		}
		for _, k := range slices.Sorted(maps.Keys(r.written)) {
			if matches(k) || p.Zone == "unknown" {
				if _, err := r.runsWritten(idx, Path{Raw: k, Real: k}, st, sc, parse); err != nil {
					return true, err
				}
			}
		}
	}
	content, ok := r.written[p.Real]
	for _, d := range r.opaqueDirs {
		if under(p.Real, d) {
			content, ok = nil, true
		}
	}
	if !ok && r.opaqueFile(p.Real) {
		content, ok = nil, true
	}
	if !ok {
		return false, nil
	}
	if content == nil {
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "runs " + p.Raw + ", written earlier with content that is not literal", Cmd: idx})
		return true, nil
	}
	if parse && strings.TrimSpace(*content) != "" {
		return true, r.nested(*content, st, sc, "nested-shell")
	}
	return true, nil
}

// opaqueWriter reports whether what name writes is data nobody analysed:
// text tools echoing input, downloaders, decoders, or a name not known
// statically.
func (r *run) opaqueWriter(name string) bool {
	switch name {
	case "", "echo", "printf", "cat", "tee", "dd", "head", "tail", "sed", "awk", "tr", "cut", "xargs":
		return true
	}
	for _, g := range r.a.groupsOf(name) {
		if g == "downloaders" || g == "decoders" {
			return true
		}
	}
	return false
}

// knownOutput is the output of a few commands whose answer static analysis
// knows: pwd, git rev-parse --show-toplevel, dirname, basename, realpath.
func (r *run) knownOutput(name string, args []string, st *state) (string, bool) {
	switch {
	case name == "pwd" && st.cwd != "" && (len(args) == 0 || len(args) == 1 && (args[0] == "-P" || args[0] == "-L")):
		return st.cwd, true
	case name == "git" && len(args) == 2 && args[0] == "rev-parse" && args[1] == "--show-toplevel" && st.cwd != "":
		// the nearest directory holding .git, within the workspace
		for d := st.cwd; under(d, r.opts.Workspace); d = path.Dir(d) {
			if _, err := os.Lstat(d + "/.git"); err == nil {
				return d, true
			}
			if d == r.opts.Workspace {
				break
			}
		}
		return "", false
	case name == "mktemp":
		w := &syntax.Word{Parts: []syntax.WordPart{&syntax.CmdSubst{Stmts: []*syntax.Stmt{{Cmd: &syntax.CallExpr{Args: litWords(append([]string{"mktemp"}, args...))}}}}}}
		return r.mktemp(w, st)
	case name == "dirname" && len(args) == 1 && !strings.HasPrefix(args[0], "-"):
		return path.Dir(args[0]), true
	case name == "basename" && (len(args) == 1 || len(args) == 2) && !strings.HasPrefix(args[0], "-"):
		b := path.Base(args[0])
		if len(args) == 2 {
			b = strings.TrimSuffix(b, args[1])
		}
		return b, true
	case (name == "realpath" || name == "readlink" && len(args) == 2 && args[0] == "-f") && st.cwd != "":
		p := args[len(args)-1]
		if strings.HasPrefix(p, "-") {
			return "", false
		}
		if !strings.HasPrefix(p, "/") {
			p = st.cwd + "/" + p
		}
		real, _, _ := r.resolve(p)
		return real, true
	}
	return "", false
}

// readLoop recognises "while read [-r] NAME…": the names read.
func readLoop(c *syntax.WhileClause) ([]string, bool) {
	if c.Until || len(c.Cond) != 1 {
		return nil, false
	}
	call, ok := c.Cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || call.Args[0].Lit() != "read" || len(c.Cond[0].Redirs) > 0 {
		return nil, false
	}
	var names []string
	for i := 1; i < len(call.Args); i++ {
		a := call.Args[i].Lit()
		if t, ok := staticText(call.Args[i]); ok && len(t) > 1 && t[0] == '-' && strings.Trim(t[1:], "rse") == "d" && strings.HasSuffix(t, "d") && i+1 < len(call.Args) {
			// -d '' (read -rd ''): items end at a NUL, as find -print0
			// and git ls-files -z write them
			if v, ok := staticText(call.Args[i+1]); ok && v == "" {
				i++
				continue
			}
			return nil, false
		}
		switch {
		case a == "":
			return nil, false
		case a == "-r" || a == "-s" || a == "-e":
		case strings.HasPrefix(a, "-"):
			return nil, false // -d, -n, -a … change what is read
		default:
			names = append(names, a)
		}
	}
	if len(names) == 0 {
		names = []string{"REPLY"}
	}
	return names, true
}

// assignRead sets the variables of "read a b …" from one input line.
func (r *run) assignRead(st *state, names []string, it field) {
	if it.dynamic && !it.glob {
		for _, n := range names {
			st.setWild(n)
		}
		return
	}
	if it.glob {
		// an entry of a lister's output (find . | while read f): which
		// one is not known, only the directory it lies in
		for _, n := range names {
			st.forget(n)
			delete(st.wild, n)
			if st.entries == nil {
				st.entries = map[string]entryVar{}
			}
			st.entries[n] = entryVar{it.pattern, it.named, it.noLinks, it.findNames, it.tracked}
		}
		return
	}
	words := strings.Fields(it.text)
	for i, n := range names {
		v := ""
		switch {
		case i == len(names)-1 && i < len(words):
			v = strings.Join(words[i:], " ")
		case i < len(words):
			v = words[i]
		}
		if st.setScalar(n, v) {
			delete(st.wild, n)
			delete(st.entries, n)
		}
	}
}

// dirSinkVars name directories a program writes into (git's work tree).
var dirSinkVars = map[string]bool{"GIT_WORK_TREE": true, "GIT_INDEX_FILE": true, "GIT_OBJECT_DIRECTORY": true}

func litWords(ss []string) []*syntax.Word {
	out := make([]*syntax.Word, len(ss))
	for i, s := range ss {
		out[i] = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}}
	}
	return out
}

func hasQuotes(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}

// defaultAssigns applies ${name:=word} and ${name=word}: they assign name
// when it is unset (or empty), and later words see the value.
func (r *run) defaultAssigns(w *syntax.Word, st *state, sc scope) {
	syntax.Walk(w, func(n syntax.Node) bool {
		pe, ok := n.(*syntax.ParamExp)
		if !ok || pe.Param == nil || pe.Exp == nil || pe.Exp.Op != syntax.AssignUnset && pe.Exp.Op != syntax.AssignUnsetOrNull {
			return true
		}
		name := pe.Param.Value
		if v, set := st.vars[name]; set && (v != "" || pe.Exp.Op == syntax.AssignUnset) {
			return true
		}
		if pe.Exp.Word == nil {
			r.bashVarWritten(name, "${"+name+"=}", false, st, -1)
			st.setScalar(name, "")
			return true
		}
		f, ok := r.single(st, sc, pe.Exp.Word)
		if ok && r.runsValue(name) {
			// : ${CC:=gcc}, ${PS4='…'}: judged as the assignment it is
			if err := r.recordAssign(name, f.text, false, st, sc, -1, nil); err != nil {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "${" + name + "=" + f.text + "}", Cmd: -1})
			}
			return true
		}
		r.bashVarWritten(name, "${"+name+"=…}", false, st, -1)
		if ok {
			if st.setScalar(name, f.text) {
				delete(st.wild, name)
			}
		} else {
			st.setWild(name)
		}
		return true
	})
}

// literalExists says whether s, taken as a literal path from the cwd, names
// an existing entry (the entry itself: a dangling link counts).
func (r *run) literalExists(s string, st *state) bool {
	if !strings.HasPrefix(s, "/") {
		if st.cwd == "" {
			return false
		}
		s = st.cwd + "/" + s
	}
	if len(s) > maxPath {
		return false
	}
	_, err := os.Lstat(s)
	return err == nil
}

// sinkCommand is the shell command a variable that names one holds. less's
// LESSOPEN and LESSCLOSE mark how the command's output is used with a
// leading | or || (and - for standard input) that is not shell syntax.
func sinkCommand(name, val string) string {
	if name == "LESSOPEN" || name == "LESSCLOSE" {
		v := strings.TrimLeft(val, " \t")
		for _, p := range []string{"||-", "||", "|-", "|"} {
			if t, ok := strings.CutPrefix(v, p); ok {
				return t
			}
		}
	}
	return val
}
