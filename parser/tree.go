package parser

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Recursive reads. A command that reads every file below a directory
// (grep -r, rg, tar c, zip -r, cp -r …) reads the secrets that lie below it
// as surely as cat would read them one by one: grep -r x . in a workspace
// holding the home reads ~/.ssh/id_rsa, grep -r x /etc as root reads
// /etc/shadow. Such directories are marked Path.Tree, and Sensitive when a
// sensitive entry the caller could read lies below.

// hasOpt reports whether args hold the short option letter (alone or in a
// cluster) or one of the long options (with or without =VALUE, or an
// unambiguous abbreviation of at least six characters, as getopt takes
// them) before any "--". A short letter of 0 matches none.
func hasOpt(args []field, short byte, long ...string) bool {
	for _, a := range args {
		t := a.text
		if t == "--" {
			return false
		}
		for _, l := range long {
			if k, _, _ := strings.Cut(t, "="); k == l || strings.HasPrefix(l, "--") && len(k) >= 6 && strings.HasPrefix(l, k) {
				return true
			}
		}
		if short != 0 && len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.IndexByte(t[1:], short) >= 0 {
			return true
		}
	}
	return false
}

// shortCount counts a short option letter over the clusters before "--"
// (rg -uu, rg -u -u).
func shortCount(args []field, short byte) int {
	n := 0
	for _, a := range args {
		t := a.text
		if t == "--" {
			break
		}
		if len(t) > 1 && t[0] == '-' && t[1] != '-' {
			n += strings.Count(t[1:], string(short))
		}
	}
	return n
}

// readsTree says whether a command reads the contents of every file below
// the directories among its read operands, and whether hidden entries
// (a name starting with ".") are read too. Commands that only list names
// (ls -R, find, du, tree) are not tree readers: names are not secrets.
func readsTree(name string, args []field) (tree, hidden bool) {
	switch name {
	case "rgrep":
		return true, true // grep -r
	case "grep", "egrep", "fgrep", "zgrep":
		for _, a := range args {
			if a.text == "--" {
				break
			}
			if a.text == "--directories=recurse" || a.text == "recurse" {
				return true, true // -d recurse, --directories recurse
			}
		}
		return hasOpt(args, 'r', "--recursive") || hasOpt(args, 'R', "--dereference-recursive"), true
	case "rg":
		// ripgrep skips hidden entries unless told: --hidden, -., -uu
		return true, hasOpt(args, '.', "--hidden") || shortCount(args, 'u')+longCount(args, "--unrestricted") >= 2
	case "ag":
		return true, hasOpt(args, 'u', "--hidden", "--unrestricted")
	case "ack", "ack-grep":
		return !hasOpt(args, 'n', "--no-recurse"), true
	case "tar", "bsdtar":
		if hasOpt(args, 0, "--no-recursion") {
			return false, false
		}
		old := len(args) > 0 && !strings.HasPrefix(args[0].text, "-") && strings.ContainsAny(args[0].text, "cru") && !strings.ContainsAny(args[0].text, "/.")
		return old || hasOpt(args, 'c', "--create") || hasOpt(args, 'r', "--append") || hasOpt(args, 'u', "--update"), true
	case "zip":
		return hasOpt(args, 'r', "--recurse-paths") || hasOpt(args, 'R', "--recurse-patterns"), true
	case "7z", "7za", "7zr":
		return len(args) > 0 && (args[0].text == "a" || args[0].text == "u"), true
	case "jar":
		return len(args) > 0 && (strings.ContainsAny(strings.TrimPrefix(args[0].text, "-"), "cu") && !strings.HasPrefix(args[0].text, "--") ||
			hasOpt(args, 0, "--create", "--update")), true
	case "pax":
		return hasOpt(args, 'w'), true
	case "mksquashfs", "mkisofs", "genisoimage", "xorrisofs", "mkfs.erofs":
		return true, true
	case "cp":
		return hasOpt(args, 'r', "--recursive") || hasOpt(args, 'R') || hasOpt(args, 'a', "--archive"), true
	case "rsync":
		// (-d copies every entry directly below)
		return hasOpt(args, 'r', "--recursive") || hasOpt(args, 'a', "--archive") || hasOpt(args, 'd', "--dirs"), true
	case "scp":
		return hasOpt(args, 'r'), true
	case "diff":
		return hasOpt(args, 'r', "--recursive"), true
	case "ugrep":
		return hasOpt(args, 'r', "--recursive") || hasOpt(args, 'R', "--dereference-recursive"), true
	case "ug":
		return !hasOpt(args, 0, "--no-recursive") && !hasOpt(args, 0, "--directories=read"), true
	case "gzip", "bzip2", "xz", "zstd", "lz4", "pigz":
		// (compressors) -r compresses (or with -c writes to stdout) every file below
		return hasOpt(args, 'r', "--recursive"), true
	case "docker", "podman", "nerdctl", "buildah":
		// a build sends its whole context directory to the builder
		sub, ops := engineSub(name, args)
		return building(sub, ops) || name == "buildah" && sub == "bud", true
	case "git":
		// git grep --no-index searches the files below, tracked or not;
		// diff --no-index compares (and prints) them; add reads them into
		// the index, stash -u into a stash: git show prints them after
		switch gitSub(args) {
		case "grep", "diff":
			return hasOpt(args, 0, "--no-index"), true
		case "add":
			return true, true
		case "stash":
			return hasOpt(args, 'u', "--include-untracked") || hasOpt(args, 'a', "--all"), true
		}
		return false, false
	}
	return false, false
}

// gitSub is git's subcommand: the first argument after its global options.
func gitSub(args []field) string {
	for k := 0; k < len(args); k++ {
		t := args[k].text
		switch {
		case gitValueOpts[t]:
			k++
		case strings.HasPrefix(t, "-"):
		default:
			return t
		}
	}
	return ""
}

// longCount counts a long option over the arguments before "--".
func longCount(args []field, long string) int {
	n := 0
	for _, a := range args {
		if a.text == "--" {
			break
		}
		if a.text == long {
			n++
		}
	}
	return n
}

var compressors = map[string]bool{"gzip": true, "bzip2": true, "xz": true, "zstd": true, "lz4": true, "pigz": true}

// searchesCwd: the tree readers that search the working directory when
// given no directory (grep -r reads "."; rg, ag and ack search the
// directory unless their input is a pipe or a file).
func searchesCwd(name string) bool {
	switch name {
	case "grep", "egrep", "fgrep", "zgrep", "rgrep", "rg", "ag", "ack", "ack-grep", "ugrep", "ug", "git":
		return true
	}
	return false
}

// treeReads marks the existing directories command idx reads whole (Tree),
// and those below which a secret the caller could read lies (Sensitive).
// With no directory operand a searching command reads its working
// directory, which is then added as a path when it holds a secret.
func (r *run) treeReads(idx int, name string, st *state, hidden bool) {
	if !hidden {
		hidden = r.unhides(idx, name, st)
	}
	filter := filterOf(name, r.facts.Commands[idx].Argv, hidden)
	operands := false
	for i := range r.facts.Paths {
		p := &r.facts.Paths[i]
		if p.Cmd != idx || p.Access == "cwd" {
			continue
		}
		// (a compressor's operands are written, and read first)
		reads := p.Access == "read" || p.Access == "write" && compressors[name]
		operands = operands || reads && !optionValue(name, r.facts.Commands[idx].Argv, p.Raw)
		if !reads || p.Glob || !p.Exists || !r.realDir(p.Real) {
			continue
		}
		p.Tree = true
		if !p.Sensitive {
			if m, ok := r.cls.holdsSecret(p.Real, filter); ok {
				p.Sensitive, p.SensitiveMatch = true, m
			}
		}
	}
	walksCwd := name == "zip" && (hasOptText(r.facts.Commands[idx].Argv, 'R', "--recurse-patterns")) ||
		strings.HasPrefix(name, "7z") && hasOptText(r.facts.Commands[idx].Argv, 'r')
	if (operands && !walksCwd) || !searchesCwd(name) && !walksCwd || st.cwd == "" {
		return
	}
	c := r.facts.Commands[idx]
	if (name == "rg" || name == "ag" || name == "ack" || name == "ack-grep" || name == "ug") && c.Stdin != "" {
		return // they search their input when it is not inherited
	}
	if m, ok := r.cls.holdsSecret(st.cwd, filter); ok {
		r.addPath(field{text: ".", pattern: "."}, st, "read", idx, name)
		q := &r.facts.Paths[len(r.facts.Paths)-1]
		q.Tree, q.Sensitive, q.SensitiveMatch = true, true, m
	}
}

// optionValue says whether raw appears in argv only as the value of an
// option (grep -f PATTERNS, rg --ignore-file F), not as an operand: a
// searcher given no operand still searches its working directory.
func optionValue(name string, argv []string, raw string) bool {
	sp := lookupSpec(name)
	for i := 1; i < len(argv); i++ {
		if argv[i] != raw {
			continue
		}
		prev := argv[i-1]
		switch {
		case strings.HasPrefix(prev, "--"):
			if _, takes := sp.long[sp.abbrev(prev)]; takes {
				continue
			}
		case len(prev) > 1 && prev[0] == '-':
			last := prev[len(prev)-1]
			if k := strings.IndexByte(sp.opts, last); k >= 0 && k+1 < len(sp.opts) && sp.opts[k+1] == ':' {
				continue
			}
		}
		return false // an operand
	}
	return true
}

// ignoreFiles are the files whose rules rg and ag follow; a "!" rule in
// one can bring hidden entries back (!.ssh).
var ignoreFiles = []string{".ignore", ".rgignore", ".agignore", ".gitignore"}

// unhides says whether rg or ag will read hidden entries although not told
// to on the command line: a config file named by RIPGREP_CONFIG_PATH can
// hold --hidden, an --ignore-file or an ignore file in the working
// directory (or one the script writes) can whitelist dot entries.
func (r *run) unhides(idx int, name string, st *state) bool {
	if name != "rg" && name != "ag" {
		return false
	}
	c := r.facts.Commands[idx]
	if _, ok := c.Env["RIPGREP_CONFIG_PATH"]; ok || st.wild["RIPGREP_CONFIG_PATH"] || r.env(st).Get("RIPGREP_CONFIG_PATH").IsSet() {
		return true // set for the command, by the script or in the environment
	}
	for _, a := range c.Argv[1:] {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--ignore-file") || strings.HasPrefix(a, "--path-to-ignore") || a == "-p" {
			return true
		}
	}
	for _, p := range r.facts.Paths {
		if p.Access == "write" && slices.Contains(ignoreFiles, path.Base(p.Real)) {
			return true
		}
	}
	dirs := []string{st.cwd}
	for _, p := range r.facts.Paths {
		if p.Cmd == idx && p.Access == "read" && p.Exists && r.realDir(p.Real) {
			dirs = append(dirs, p.Real)
		}
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		for _, f := range ignoreFiles {
			data, err := os.ReadFile(d + "/" + f)
			if err != nil || len(data) > 1<<20 {
				continue
			}
			for _, line := range strings.Split(string(data), "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "!") {
					return true
				}
			}
		}
	}
	return false
}

// hasOptText is hasOpt over an argv of strings (its first element the
// command name).
func hasOptText(argv []string, short byte, long ...string) bool {
	fs := make([]field, 0, len(argv))
	for _, a := range argv[min(1, len(argv)):] {
		fs = append(fs, field{text: a})
	}
	return hasOpt(fs, short, long...)
}

// treeFilter is what a tree reader leaves out: hidden entries (rg, ag
// unless told), directories and files excluded by name (grep
// --exclude-dir/--exclude, rg -g '!GLOB'), or every file but those an
// include names (grep --include, rg -g GLOB).
type treeFilter struct {
	hidden                   bool
	excludeDirs, excludeFile []string
	include                  []string
}

// filterOf reads a tree reader's filters from its argv.
func filterOf(name string, argv []string, hidden bool) treeFilter {
	f := treeFilter{hidden: hidden}
	val := func(i int, a, key string) (string, bool) {
		if v, ok := strings.CutPrefix(a, key+"="); ok {
			return v, true
		}
		if a == key && i+1 < len(argv) {
			return argv[i+1], true
		}
		return "", false
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			break
		}
		switch name {
		case "grep", "egrep", "fgrep", "zgrep", "rgrep", "ugrep":
			if v, ok := val(i, a, "--exclude-dir"); ok {
				f.excludeDirs = append(f.excludeDirs, v)
			} else if v, ok := val(i, a, "--exclude"); ok {
				f.excludeFile = append(f.excludeFile, v)
			} else if v, ok := val(i, a, "--include"); ok {
				f.include = append(f.include, v)
			}
		case "rg":
			v, ok := val(i, a, "--glob")
			if !ok {
				v, ok = val(i, a, "-g")
			}
			if !ok {
				continue
			}
			if neg, isNeg := strings.CutPrefix(v, "!"); isNeg {
				neg = strings.Trim(neg, "/")
				f.excludeDirs = append(f.excludeDirs, neg)
				f.excludeFile = append(f.excludeFile, neg)
			} else if !strings.Contains(v, "/") {
				f.include = append(f.include, v)
			} else {
				f.include = append(f.include, "*") // a path glob: not judged here
			}
		}
	}
	return f
}

// skips says whether the reader leaves out the entry abs (rel below the
// directory it reads).
func (f treeFilter) skips(abs, rel string) bool {
	if !f.hidden && (strings.HasPrefix(rel, ".") || strings.Contains(rel, "/.")) {
		return true
	}
	match := func(pats []string, name string) bool {
		for _, p := range pats {
			if ok, _ := path.Match(p, name); ok {
				return true
			}
		}
		return false
	}
	comps := strings.Split(rel, "/")
	dir := isDir(abs)
	for i, c := range comps {
		if i < len(comps)-1 || dir {
			if match(f.excludeDirs, c) {
				return true
			}
		} else if match(f.excludeFile, c) {
			return true
		}
	}
	if len(f.include) == 0 || slices.Contains(f.include, "*") {
		return false
	}
	if !dir {
		return !match(f.include, comps[len(comps)-1])
	}
	// a directory: skipped unless a file below it is included
	seen := 0
	found := false
	_ = filepath.WalkDir(abs, func(p string, d os.DirEntry, err error) error {
		if seen++; seen > 2000 || found {
			found = found || seen > 2000 // too many to look at: count it
			return filepath.SkipAll
		}
		if err == nil && !d.IsDir() && match(f.include, d.Name()) && !match(f.excludeFile, d.Name()) {
			found = true
		}
		return nil
	})
	return !found
}

// holdsSecretChecks bounds the entries holdsSecret looks at on disk; past
// it the directory is taken to hold one (fail closed).
const holdsSecretChecks = 512

// holdsSecret reports whether a sensitive entry lies strictly below dir
// (resolved) that the caller could read, and which entry; the filter
// leaves out what the command skips. Only the
// listed locations count (sensitive_paths); key names (sensitive_names)
// below a directory are not searched for.
func (c *classifier) holdsSecret(dir string, f treeFilter) (string, bool) {
	comps := splitPath(dir)
	budget := holdsSecretChecks
	check := func(abs, raw string) (string, bool, bool) {
		rel := strings.TrimPrefix(abs, strings.TrimSuffix(dir, "/")+"/")
		if f.skips(abs, rel) {
			return "", false, false
		}
		if budget--; budget < 0 {
			return raw, true, true
		}
		if readable(abs) {
			return raw, true, true
		}
		return "", false, false
	}
	n := c.tree
	for _, comp := range comps {
		if n = n.kids[comp]; n == nil {
			break
		}
	}
	if n != nil {
		var found string
		var walk func(n *secretNode) bool
		walk = func(n *secretNode) bool {
			for _, name := range n.names {
				k := n.kids[name]
				if k.raw != "" {
					if raw, ok, stop := check(k.abs, k.raw); stop {
						found = raw
						return ok
					}
				}
				if walk(k) {
					return true
				}
			}
			return false
		}
		if walk(n) {
			return found, true
		}
	}
	for i, pat := range c.secretPat {
		if len(pat) <= len(comps) || !matchComps(pat[:len(comps)], comps) {
			continue
		}
		// the rest of the pattern, below dir itself (/proc/*/environ
		// below /proc/sys is /proc/sys/environ)
		var raw string
		var ok, stop bool
		glob(strings.TrimSuffix(dir, "/")+"/"+strings.Join(pat[len(comps):], "/"), func(m string) bool {
			raw, ok, stop = check(m, c.secretRaw[i])
			return !stop
		})
		if stop {
			return raw, ok
		}
	}
	return "", false
}

// readable says whether the caller (the user the command would run as)
// may read p.
func readable(p string) bool {
	return unix.Faccessat(unix.AT_FDCWD, p, unix.R_OK, unix.AT_EACCESS) == nil
}

// patchTree: patch without a file to patch (patch -p1 < fix.patch) writes
// the files its patch names, below its directory (-d DIR, else the cwd):
// that directory is written. (GNU patch refuses names with ".." or a
// leading "/".) With -o FILE only FILE is written.
func (r *run) patchTree(idx int, args []field, st *state, in stdin) {
	dir := st.cwd
	patchFile := ""
	for _, p := range r.facts.Paths {
		if p.Cmd != idx {
			continue
		}
		switch p.Access {
		case "write":
			return // an operand or -o FILE: written as named
		case "cwd":
			dir = p.Real
		case "read":
			patchFile = p.Real // -i FILE
		}
	}
	// the files the patch names, when its text can be read
	text, ok := "", false
	if patchFile != "" {
		text, ok = r.knownText(patchFile, idx)
	} else if in.kind != "" {
		text, ok = r.inputText(in, idx)
	}
	if !ok || dir == "" || !r.patchWrites(idx, "patch", text, dir, patchStrip(args), st) {
		r.opaqueWrites(idx, "patch applying a patch the analysis cannot read")
	}
	if dir == "" {
		r.addPath(field{text: "*", pattern: "*", dynamic: true, wild: true}, st, "write", idx, "patch")
		return
	}
	r.addPath(field{text: dir, pattern: dir}, st, "write", idx, "patch")
}

// cpio: -i (extract) writes what the archive on stdin holds below its
// directory (-D DIR, else the cwd); -p (pass-through) copies the names on
// stdin into the directory operand. -o writes the archive to stdout.
func (r *run) cpio(idx int, args []field, st *state) {
	dir := field{text: st.cwd, pattern: st.cwd}
	extract, pass, relative := false, false, false
	var ops []field
	for k := 0; k < len(args); k++ {
		a := args[k]
		t := a.text
		switch {
		case t == "--no-absolute-filenames":
			relative = true
		case t == "--extract":
			extract = true
		case t == "--pass-through":
			pass = true
		case t == "-D" || t == "--directory":
			if k+1 < len(args) {
				k++
				dir = args[k]
			}
		case strings.HasPrefix(t, "--directory="):
			dir = valueField(a, "--directory=", strings.TrimPrefix(t, "--directory="))
		case t == "-F" || t == "-E" || t == "-H" || t == "-I" || t == "-O" || t == "-M" || t == "-R" || t == "-C":
			k++ // an option's value
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") && len(t) > 1:
			extract = extract || strings.ContainsRune(t, 'i')
			pass = pass || strings.ContainsRune(t, 'p')
		default:
			ops = append(ops, a)
		}
	}
	switch {
	case pass:
		for _, o := range ops {
			r.addPath(o, st, "write", idx, "cpio")
		}
	case extract:
		if dir.text == "" {
			dir = field{text: "*", pattern: "*", dynamic: true, wild: true}
		}
		r.addPath(dir, st, "write", idx, "cpio")
		if !relative {
			// copy-in writes the names the archive holds as they are,
			// absolute ones and ".." too, unless --no-absolute-filenames
			r.addPath(field{text: "{member}", pattern: "*", dynamic: true, wild: true}, st, "write", idx, "cpio")
		}
	}
}

// nameLists: commands that take the names of the files they read from a
// list - stdin or a file - rather than from their arguments (find . |
// cpio -o, sort --files0-from=-, xz --files, zstd --filelist F, rsync
// --files-from=F, wc --files0-from=F, 7z a out @list). The names come from
// the producer feeding stdin when it is a path lister (what find prints),
// else they could be any path.
func (r *run) nameLists(idx int, name string, args []field, st *state, in stdin) {
	fromStdin, fromFile := false, false
	value := func(a field, k int, key string) (string, bool) {
		if v, ok := strings.CutPrefix(a.text, key+"="); ok {
			return v, true
		}
		if a.text == key && k+1 < len(args) {
			return args[k+1].text, true
		}
		return "", false
	}
	list := func(v string) {
		if v == "-" || v == "/dev/stdin" || v == "" {
			fromStdin = true
		} else {
			fromFile = true
		}
	}
	for k, a := range args {
		if a.text == "--" {
			break
		}
		switch name {
		case "cpio":
			if a.text == "--create" || a.text == "--pass-through" ||
				len(a.text) > 1 && a.text[0] == '-' && a.text[1] != '-' && strings.ContainsAny(a.text, "op") {
				fromStdin = true
			}
		case "sort", "wc", "du":
			if v, ok := value(a, k, "--files0-from"); ok && name != "du" {
				list(v)
			}
		case "xz", "lzma", "unxz":
			if a.text == "--files" || a.text == "--files0" {
				fromStdin = true
			} else if v, ok := value(a, k, "--files"); ok {
				list(v)
			} else if v, ok := value(a, k, "--files0"); ok {
				list(v)
			}
		case "zstd", "unzstd", "zstdmt":
			if v, ok := value(a, k, "--filelist"); ok {
				list(v)
			}
		case "rsync":
			if v, ok := value(a, k, "--files-from"); ok {
				list(v)
			}
		case "7z", "7za", "7zr":
			if strings.HasPrefix(a.text, "@") {
				fromFile = true
			}
		}
	}
	var items []field
	if fromStdin {
		items, _ = r.inputItems(in, true)
	}
	if fromFile {
		items = append(items, unknownItem)
	}
	for _, it := range items {
		r.addPath(it, st, "read", idx, name)
	}
}

// extractTo: archive extractors that write what the archive holds below a
// directory - the cwd unless an option names another: jar x, ar x,
// dpkg-deb -x/-R ARCHIVE DIR, 7z x/e (-oDIR), unrar x/e [DIR/], pax -r,
// cabextract (-d DIR), unar (-o DIR), lha/arj x, atool -x/aunpack (-X DIR).
// The directory is written.
func (r *run) extractTo(idx int, name string, args []field, st *state) {
	cwd := field{text: st.cwd, pattern: st.cwd}
	if st.cwd == "" {
		cwd = field{text: "*", pattern: "*", dynamic: true, wild: true}
	}
	var dir *field
	extracts := false
	var ops []field
	for k := 0; k < len(args); k++ {
		a := args[k]
		t := a.text
		next := func() *field {
			if k+1 < len(args) {
				k++
				return &args[k]
			}
			return nil
		}
		switch {
		case t == "--":
			ops = append(ops, args[k+1:]...)
			k = len(args)
		case !strings.HasPrefix(t, "-") || a.dynamic:
			ops = append(ops, a)
		case name == "jar" && (t == "--dir" || t == "-C"):
			dir = next()
		case name == "jar" && strings.HasPrefix(t, "--dir="):
			v := valueField(a, "--dir=", strings.TrimPrefix(t, "--dir="))
			dir = &v
		case name == "ar" && strings.HasPrefix(t, "--output="):
			v := valueField(a, "--output=", strings.TrimPrefix(t, "--output="))
			dir = &v
		case name == "ar" && t == "--output":
			dir = next()
		case strings.HasPrefix(name, "7z") && strings.HasPrefix(t, "-o") && len(t) > 2:
			v := valueField(a, "-o", t[2:])
			dir = &v
		case (name == "cabextract" && (t == "-d" || t == "--directory")) || (name == "unar" && (t == "-o" || t == "--output-directory")) ||
			((name == "atool" || name == "aunpack") && (t == "-X" || t == "--extract-to")):
			dir = next()
		case name == "dpkg-deb" || name == "dpkg":
			if t == "-x" || t == "--extract" || t == "-X" || t == "--vextract" || t == "-R" || t == "--raw-extract" {
				extracts = true
			}
		case name == "pax":
			extracts = extracts || strings.ContainsRune(t, 'r') && !strings.ContainsRune(t, 'w')
		case name == "jar" && !strings.HasPrefix(t, "--"):
			extracts = extracts || strings.ContainsRune(t, 'x')
		case name == "atool":
			extracts = extracts || t == "-x" || t == "--extract"
		}
	}
	first := ""
	if len(ops) > 0 {
		first = ops[0].text
	}
	switch name {
	case "jar":
		extracts = extracts || strings.ContainsRune(strings.TrimPrefix(first, "-"), 'x') && !strings.Contains(first, "/")
	case "ar":
		extracts = strings.ContainsRune(strings.TrimPrefix(first, "-"), 'x') && !strings.Contains(first, "/")
	case "7z", "7za", "7zr", "unrar", "rar", "lha", "lzh", "arj":
		extracts = first == "x" || first == "e"
		if (name == "unrar" || name == "rar") && extracts && len(ops) > 2 && strings.HasSuffix(ops[len(ops)-1].text, "/") {
			d := ops[len(ops)-1]
			dir = &d
		}
	case "dpkg-deb", "dpkg":
		if extracts && len(ops) >= 2 {
			d := ops[len(ops)-1]
			dir = &d
		}
	case "cabextract", "unar", "aunpack", "dtrx", "unp":
		extracts = true
	}
	if !extracts {
		return
	}
	if dir == nil {
		dir = &cwd
	}
	r.addPath(*dir, st, "write", idx, name)
	r.opaqueWrites(idx, name+" extracting an archive the analysis does not read")
	if name == "pax" {
		// pax -r writes the names the archive holds as they are, absolute
		// ones and ".." too (checked with Debian's pax)
		r.addPath(field{text: "{member}", pattern: "*", dynamic: true, wild: true}, st, "write", idx, name)
	}
}

// mkdirs records the directories command idx (mkdir) creates: its literal
// operands that do not exist, and their missing parents (mkdir -p).
func (r *run) mkdirs(idx int) {
	for _, p := range r.facts.Paths {
		if p.Cmd != idx || p.Access != "write" || p.Glob || p.Dynamic || p.Exists || !strings.HasPrefix(p.Real, "/") {
			continue
		}
		if _, linked := r.links[p.Real]; linked {
			continue
		}
		if r.madeDirs == nil {
			r.madeDirs = map[string]bool{}
		}
		for d := p.Real; d != "/" && d != "."; d = path.Dir(d) {
			if _, err := os.Lstat(d); err == nil {
				break
			}
			r.madeDirs[d] = true
		}
	}
}
