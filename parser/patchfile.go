package parser

import (
	"path"
	"strconv"
	"strings"
)

// A patch applied with patch or git apply writes the files its headers
// name, not only the files on its command line: a patch the agent wrote a
// call earlier can create .git/hooks/pre-commit or .claude/settings.json,
// or a link out of the workspace. When the analysis can read the patch
// (knownText) those names are the command's writes; otherwise the whole
// directory is written (patchTree).

// patchNames are the names a patch's text gives its files, as written
// (before any -p strip), and the links it creates with their targets.
type patchNames struct {
	files []string
	links map[string]string // name (as written) → link target
}

// maxPatchNames bounds the names taken from one patch.
const maxPatchNames = 256

// parsePatch reads the headers of a unified, context or git diff: ---,
// +++ and *** lines, Index:, diff --git a/X b/Y, rename/copy to, and the
// links a git diff creates (mode 120000, the target being the text the
// hunk adds).
func parsePatch(text string) patchNames {
	var pn patchNames
	add := func(name string) {
		name = strings.TrimSpace(name)
		if name == "" || name == "/dev/null" || len(pn.files) >= maxPatchNames {
			return
		}
		if strings.HasPrefix(name, `"`) {
			if u, err := strconv.Unquote(name); err == nil {
				name = u
			}
		}
		if name == "" || name == "/dev/null" {
			return
		}
		pn.files = append(pn.files, name)
	}
	header := func(line, prefix string) {
		rest := strings.TrimPrefix(line, prefix)
		if i := strings.IndexByte(rest, '\t'); i >= 0 {
			rest = rest[:i] // a time stamp follows a tab
		}
		add(rest)
		// or a space (GNU patch reads a name up to a time stamp after
		// spaces): the first word, or the quoted name, is a name too
		if strings.HasPrefix(rest, `"`) {
			if q, err := strconv.QuotedPrefix(rest); err == nil {
				add(q)
			}
		} else if f := strings.Fields(rest); len(f) > 1 {
			add(f[0])
		}
	}
	lines := strings.Split(text, "\n")
	link, inHunk := "", false
	for _, line := range lines {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			link, inHunk = "", false
			rest := strings.TrimPrefix(line, "diff --git ")
			if i := strings.Index(rest, " b/"); i >= 0 {
				add(rest[:i])
				add(rest[i+1:])
			} else {
				for _, f := range strings.Fields(rest) {
					add(f)
				}
			}
		case strings.HasPrefix(line, "+++ "):
			header(line, "+++ ")
			inHunk = false
		case strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "*** "):
			// a header, or a context diff's range (--- 1,4 ----); a
			// removed line "-- x" read as a name only adds a write
			if !strings.HasSuffix(line, "----") && !strings.HasSuffix(line, "****") {
				header(line, line[:4])
			}
		case strings.HasPrefix(line, "Index: "):
			add(strings.TrimPrefix(line, "Index: "))
		case strings.HasPrefix(line, "rename to "), strings.HasPrefix(line, "copy to "):
			_, name, _ := strings.Cut(line, " to ")
			add(name)
		case isLinkMode(line):
			if len(pn.files) > 0 {
				link = pn.files[len(pn.files)-1]
			}
		case strings.HasPrefix(line, "@@"):
			inHunk = true
		case inHunk && link != "" && strings.HasPrefix(line, "+"):
			if pn.links == nil {
				pn.links = map[string]string{}
			}
			pn.links[link] = strings.TrimPrefix(line, "+")
			link = ""
		}
	}
	return pn
}

// isLinkMode says whether a git diff line gives a file the mode of a
// symbolic link (120000, with any leading zeros git takes).
func isLinkMode(line string) bool {
	for _, p := range []string{"new file mode ", "new mode ", "old mode "} {
		if m, ok := strings.CutPrefix(line, p); ok && p != "old mode " {
			return strings.TrimLeft(strings.TrimSpace(m), "0") == "120000"
		}
	}
	return false
}

// stripName is name with the smallest prefix holding n slashes removed
// (patch -pN); ok is false when it has fewer.
func stripName(name string, n int) (string, bool) {
	for ; n > 0; n-- {
		i := strings.IndexByte(name, '/')
		if i < 0 {
			return "", false
		}
		name = name[i+1:]
	}
	return name, name != ""
}

// patchStrip reads -pN, -p N, --strip=N from a patch command's arguments
// (-1: none given).
func patchStrip(args []field) int {
	for k, a := range args {
		t := a.text
		var v string
		switch {
		case t == "-p" && k+1 < len(args):
			v = args[k+1].text
		case strings.HasPrefix(t, "-p") && len(t) > 2:
			v = t[2:]
		case strings.HasPrefix(t, "--strip="):
			v = strings.TrimPrefix(t, "--strip=")
		case t == "-p":
		default:
			continue
		}
		if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < 64 {
			return n
		}
		return -2 // not known
	}
	return -1
}

// patchWrites adds what the patch with text writes below dir (resolved):
// each name with strip components removed (with none given, as patch
// does, both the name whole and its last component), and the targets of
// the links it makes, read from where each link lies. It reports whether
// the patch named anything.
func (r *run) patchWrites(idx int, name, text, dir string, strip int, st *state) bool {
	pn := parsePatch(text)
	if len(pn.files) == 0 {
		return false
	}
	write := func(rel string) {
		p := rel
		if !strings.HasPrefix(p, "/") {
			p = dir + "/" + rel
		}
		w := r.addPath(field{text: p, pattern: p}, st, "write", idx, name)
		if !w.Glob {
			r.wrote(w.Real, nil) // running it later runs what the patch made of it
		}
		if target, ok := pn.links[rel]; ok && target != "" {
			t := target
			if !strings.HasPrefix(t, "/") {
				t = path.Dir(p) + "/" + target
			}
			// a link the patch makes is a way to what it points to
			r.addPath(field{text: t, pattern: t}, st, "read", idx, name)
		}
	}
	// a link is looked up under each name it may be written as
	for l, target := range pn.links {
		for n := 1; n <= strings.Count(l, "/"); n++ {
			if s, ok := stripName(l, n); ok {
				pn.links[s] = target
			}
		}
		pn.links[path.Base(l)] = target
	}
	for _, f := range pn.files {
		switch {
		case strip == -2:
			// -p given in a way not read here: any strip
			for n := 0; n <= strings.Count(f, "/"); n++ {
				if s, ok := stripName(f, n); ok {
					write(s)
				}
			}
		case strip < 0:
			write(f)
			if b := path.Base(f); b != f {
				write(b)
			}
		default:
			if s, ok := stripName(f, strip); ok {
				write(s)
			}
		}
	}
	return true
}

// gitApplyOnlyReports says whether git apply's arguments make it report
// on the patch rather than apply it (--stat, --numstat, --summary,
// --check without --apply). Applied to the index only (--cached), its
// files are written by the next checkout of the tree: judged as written.
func gitApplyOnlyReports(args []field) bool {
	report, apply := false, false
	for _, a := range args {
		switch a.text {
		case "--stat", "--numstat", "--summary", "--check":
			report = true
		case "--apply", "--index":
			apply = true
		}
	}
	return report && !apply
}
