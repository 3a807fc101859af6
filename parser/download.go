package parser

import (
	"net/url"
	"path"
	"strings"
)

// Files a downloader names itself. curl -O URL writes the last part of the
// URL's path in the working directory (or --output-dir); wget URL writes
// that name too, or name.1, name.2 … when it exists, or names it learns
// while downloading (-r, --content-disposition, -i). Each predicted file is
// a write path the policy judges (cd ~ && curl -O https://x/.bashrc), and
// what is downloaded is content nobody saw: running it later in the same
// script (curl -O …/x.sh && sh x.sh) is running a script that cannot be
// checked. Where the name cannot be predicted the directory's new files
// count as unseen (opaqueIn).

// opaqueFiles: files whose names start with prefix in dir hold content
// nobody saw (wget's name.1; an empty prefix is any file of dir).
type opaqueFiles struct{ dir, prefix string }

// optWalk walks a downloader's arguments getopt-style with sp: long gets
// --key[=value] (key resolved by resolve; the value from the next word when
// sp says the option takes one, else nil), short gets each letter of a
// cluster (with its value for a letter that takes one), operand gets the
// rest, and unknown is called for an option word that is not literal (it
// could be any option).
func optWalk(sp spec, args []field, resolve func(string) string, long func(key string, val *field), short func(c byte, val *field), operand func(f field), unknown func()) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case args[i].dynamic && strings.HasPrefix(t, "-"):
			unknown()
		case t == "--":
			for _, f := range args[i+1:] {
				operand(f)
			}
			return
		case strings.HasPrefix(t, "--"):
			key, val, eq := strings.Cut(t, "=")
			key = resolve(key)
			var v *field
			if eq {
				v = &field{text: val, pattern: val, dynamic: args[i].dynamic}
			} else if _, takes := sp.long[key]; takes && i+1 < len(args) {
				i++
				v = &args[i]
			}
			long(key, v)
		case len(t) > 1 && t[0] == '-':
			for k := 1; k < len(t); k++ {
				c := t[k]
				if j := strings.IndexByte(sp.opts, c); j >= 0 && j+1 < len(sp.opts) && sp.opts[j+1] == ':' {
					v := &field{text: t[k+1:], pattern: t[k+1:], dynamic: args[i].dynamic}
					if k == len(t)-1 && i+1 < len(args) {
						i++
						v = &args[i]
					}
					short(c, v)
					break
				}
				short(c, nil)
			}
		default:
			operand(args[i])
		}
	}
}

// curlNames handles curl -O/--remote-name(-all) and -J/--remote-header-name.
func (r *run) curlNames(idx int, args []field, local *state) {
	remote, unknown, globOff, upload := false, false, false, false
	base := field{text: ".", pattern: "."}
	var urls []field
	optWalk(specs["curl"], args, func(k string) string { return k },
		func(key string, val *field) {
			switch {
			case longPrefixOf(key, "--globoff", 4):
				globOff = true
			case longPrefixOf(key, "--upload-file", 4):
				upload = true
			// curl takes unambiguous prefixes of its long options
			case longPrefixOf(key, "--remote-name", 10), longPrefixOf(key, "--remote-name-all", 10):
				remote = true
			case longPrefixOf(key, "--remote-header-name", 10):
				unknown = true
			case key == "--output-dir" && val != nil && (val.text != "" || val.dynamic):
				base = *val
			case key == "--url" && val != nil:
				urls = append(urls, *val)
			}
		},
		func(c byte, _ *field) {
			remote = remote || c == 'O'
			unknown = unknown || c == 'J'
			globOff = globOff || c == 'g'
			upload = upload || c == 'T'
		},
		func(f field) { urls = append(urls, f) },
		func() { unknown = true }) // a word nobody can read might be -O or -J
	// a file: URL is read, or written by an upload (-T)
	for _, u := range urls {
		if p, ok := fileURLPath(u, !globOff); ok {
			access := "read"
			if upload {
				access = "write"
			}
			r.addPath(p, local, access, idx, "curl")
		}
	}
	if !remote {
		return
	}
	if unknown {
		r.opaqueIn(idx, "curl", base, local)
		return
	}
	for _, u := range urls {
		name, ok := urlFileName(u, true)
		if !ok {
			r.opaqueIn(idx, "curl", base, local)
			continue
		}
		p := r.addPath(joinField(base, name), local, "write", idx, "curl")
		r.wrote(p.Real, nil)
	}
}

// wgetNames handles wget without -O: the name from the URL, numbered when
// taken, or names only the download tells (-r, -m, -i, --content-disposition,
// -x, -e).
func (r *run) wgetNames(idx int, name string, args []field, local *state) {
	sp := specs["wget"]
	named, unknown := false, false
	base := field{text: ".", pattern: "."}
	var urls []field
	optWalk(sp, args, func(k string) string {
		if a := sp.abbrev(k); a != "" {
			return a
		}
		return k
	},
		func(key string, val *field) {
			switch key {
			case "--output-document":
				named = true // the spec's write
			case "--recursive", "--mirror", "--content-disposition", "--input-file", "--force-directories", "--execute", "--page-requisites", "--trust-server-names":
				unknown = true
			case "--directory-prefix":
				if val != nil && (val.text != "" || val.dynamic) {
					base = *val
				}
			}
		},
		func(c byte, val *field) {
			switch c {
			case 'O':
				named = true
			case 'r', 'm', 'i', 'x', 'e', 'p':
				unknown = true
			case 'P':
				if val.text != "" || val.dynamic {
					base = *val
				}
			}
		},
		func(f field) { urls = append(urls, f) },
		func() { unknown = true })
	switch {
	case named:
		return
	case unknown:
		// what -r/-x writes lies below the directory too
		p := r.addPath(base, local, "write", idx, name)
		if base.dynamic || p.Real == "" {
			r.opaqueAll = true
		} else {
			r.opaqueDirs = append(r.opaqueDirs, p.Real)
		}
		return
	}
	for _, u := range urls {
		n, ok := urlFileName(u, false)
		if !ok {
			r.opaqueIn(idx, name, base, local)
			continue
		}
		p := r.addPath(joinField(base, n), local, "write", idx, name)
		r.wrote(p.Real, nil)
		r.opaque = append(r.opaque, opaqueFiles{dir: path.Dir(p.Real), prefix: path.Base(p.Real)})
	}
}

// opaqueIn records that the command writes files of unknown names in dir,
// with content nobody saw.
func (r *run) opaqueIn(idx int, name string, dir field, local *state) {
	p := r.addPath(dir, local, "write", idx, name)
	if dir.dynamic || p.Real == "" {
		r.opaqueAll = true
		return
	}
	r.opaque = append(r.opaque, opaqueFiles{dir: p.Real})
}

// opaqueFile says whether real is a file the script downloaded under a name
// it did not know.
func (r *run) opaqueFile(real string) bool {
	if r.opaqueAll {
		return true
	}
	for _, o := range r.opaque {
		if path.Dir(real) == o.dir && strings.HasPrefix(path.Base(real), o.prefix) {
			return true
		}
	}
	return false
}

// urlFileName is the file name a downloader gives a URL: the last part of
// its path (curl drops the query, wget keeps it; wget names a directory
// index.html). ok is false when the URL is not literal or curl would find
// no name.
func urlFileName(u field, curl bool) (string, bool) {
	if u.dynamic {
		return "", false
	}
	s := u.text
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	s, _, _ = strings.Cut(s, "#")
	if curl {
		s, _, _ = strings.Cut(s, "?")
	}
	i := strings.IndexByte(s, '/')
	if i < 0 {
		if curl {
			return "", false
		}
		return "index.html", true
	}
	p := s[i:]
	q := ""
	if !curl {
		p, q, _ = strings.Cut(p, "?")
		if q != "" {
			q = "?" + q
		}
	}
	name := path.Base(p)
	if strings.HasSuffix(p, "/") || name == "/" || name == "." || name == ".." {
		if curl {
			return "", false
		}
		name = "index.html"
	}
	return name + q, true
}

func joinField(dir field, name string) field {
	return field{text: strings.TrimSuffix(dir.text, "/") + "/" + name, pattern: strings.TrimSuffix(dir.pattern, "/") + "/" + name, dynamic: dir.dynamic}
}

// longPrefixOf says whether key abbreviates the long option full (at least
// min characters, as curl accepts unambiguous prefixes).
func longPrefixOf(key, full string, min int) bool {
	return len(key) >= min && strings.HasPrefix(full, key)
}

// wroteAny says whether the script wrote or downloaded any file so far.
func (r *run) wroteAny() bool {
	return len(r.written) > 0 || len(r.opaqueDirs) > 0 || len(r.opaque) > 0 || r.opaqueAll
}

// fileURLPath is the file a file: URL names (curl reads it): file:///P,
// file://localhost/P, file:/P, the scheme in any case, percent-escapes
// decoded. With curl's URL globbing on, {a,b} and [a-z] parts match like
// a "*" (curl expands them itself). A host other than localhost fails in
// curl, but is judged as the same path: nothing is excused by it.
func fileURLPath(u field, curlGlob bool) (field, bool) {
	s := u.text
	if len(s) < 5 || !strings.EqualFold(s[:5], "file:") {
		return field{}, false
	}
	s = s[5:]
	if rest, ok := strings.CutPrefix(s, "//"); ok {
		// an authority: up to the next slash
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return field{}, false
		}
		s = rest[i:]
	}
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	if dec, err := url.PathUnescape(s); err == nil {
		s = dec
	}
	if s == "" {
		return field{}, false
	}
	f := field{text: s, pattern: s, dynamic: u.dynamic}
	if curlGlob && strings.ContainsAny(s, "{}[]") {
		var b strings.Builder
		depth := 0
		for _, c := range s {
			switch {
			case c == '{' || c == '[':
				if depth == 0 {
					b.WriteByte('*')
				}
				depth++
			case (c == '}' || c == ']') && depth > 0:
				depth--
			case depth == 0:
				b.WriteRune(c)
			}
		}
		f.pattern, f.glob = b.String(), true
	}
	return f, true
}
