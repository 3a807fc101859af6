package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The writer's fast path. seal used to marshal a record with encoding/json,
// decode it into generic maps and canonicalize those twice (without and
// with its hash). appendCanonRecord writes the record's canonical form
// directly, and canonRaw canonicalizes the one free-form field, args,
// straight from its JSON text. Both produce exactly the bytes of the old
// path (sealSlow) and give up on anything they are not sure of — a string
// that is not UTF-8, an args value that is not strict JSON or that the old
// path would refuse — so seal falls back to sealSlow for it, errors and
// all. TestSealMatchesSlow and FuzzSeal hold the two to the same bytes.

// sealAppend seals r (as seal does) and appends its line, newline included,
// to dst.
func (r *Record) sealAppend(dst []byte) ([]byte, error) {
	r.Hash = ""
	if err := r.checkInts(); err != nil {
		return dst, err
	}
	base := len(dst)
	b := append(dst, hashPrefix...)
	rec := len(b)
	b, at, before, ok := appendCanonRecord(b, r)
	if !ok {
		line, err := r.sealSlow()
		if err != nil {
			return dst, err
		}
		return append(dst, line...), nil
	}
	sum := sha256.Sum256(b[base:])
	// The member to insert: ,"hash":"sha256:…" after the members before it,
	// or "hash":"sha256:…", first.
	var m [len(`,"hash":"sha256:"`) + 2*sha256.Size]byte
	mb := m[:0]
	if before {
		mb = append(mb, ',')
	}
	mb = append(mb, `"hash":"sha256:`...)
	mb = hex.AppendEncode(mb, sum[:])
	mb = append(mb, '"')
	r.Hash = string(mb[len(mb)-1-len("sha256:")-2*sha256.Size : len(mb)-1])
	if !before {
		mb = append(mb, ',')
	}
	// Move the record over the prefix, making room for the member, and add
	// the newline: base + head + member + tail + "\n".
	n := len(b) - rec
	shift := len(mb) - len(hashPrefix) // > 0
	b = slices.Grow(b, shift+1)[:len(b)+shift+1]
	copy(b[rec+at+shift:], b[rec+at:rec+n])
	copy(b[base:], b[rec:rec+at])
	copy(b[base+at:], mb)
	b[base+n+len(mb)] = '\n'
	return b[:base+n+len(mb)+1], nil
}

// recEncoder writes an object's members in the order they are called.
type recEncoder struct {
	b  []byte
	n  int  // members written
	ok bool // false: something needs the slow path
}

func (e *recEncoder) key(k string) {
	if e.n > 0 {
		e.b = append(e.b, ',')
	}
	e.n++
	e.b = append(e.b, '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, '"', ':')
}

func (e *recEncoder) str(k, v string) {
	e.key(k)
	e.string(v)
}

func (e *recEncoder) string(v string) {
	if !utf8.ValidString(v) {
		e.ok = false // encoding/json would replace the bad bytes
		return
	}
	e.b = appendCanonStr(e.b, v)
}

func (e *recEncoder) strOpt(k, v string) {
	if v != "" {
		e.str(k, v)
	}
}

func (e *recEncoder) int(k string, v int64) {
	e.key(k)
	e.b = appendCanonInt(e.b, v)
}

func (e *recEncoder) intOpt(k string, v int64) {
	if v != 0 {
		e.int(k, v)
	}
}

func (e *recEncoder) strings(v []string) {
	if v == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i, s := range v {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.string(s)
	}
	e.b = append(e.b, ']')
}

// appendCanonRecord appends r's canonical JSON without its hash (r.Hash
// must be empty): the members encoding/json writes for r, sorted, in the
// form Canonical gives them. at is where the hash member goes, after the
// members that sort before it (before says whether there are any). ok is
// false when r needs the slow path.
func appendCanonRecord(dst []byte, r *Record) (b []byte, at int, before, ok bool) {
	start := len(dst)
	e := recEncoder{b: append(dst, '{'), ok: true}
	// Keys in byte order (all are ASCII, so that is RFC 8785's order).
	e.strOpt("approval", r.Approval)
	if len(r.Args) > 0 {
		e.key("args")
		var good bool
		e.b, good = canonRaw(e.b, r.Args, 1)
		e.ok = e.ok && good
	}
	if len(r.Commands) > 0 {
		e.key("commands")
		e.b = append(e.b, '[')
		for i, c := range r.Commands {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.strings(c)
		}
		e.b = append(e.b, ']')
	}
	e.intOpt("count", r.Count)
	e.strOpt("decision", r.Decision)
	if r.DurationMS != nil {
		e.int("duration_ms", *r.DurationMS)
	}
	if r.ExitCode != nil {
		e.int("exit_code", int64(*r.ExitCode))
	}
	at, before = len(e.b)-start, e.n > 0 // "hash"
	e.strOpt("head", r.Head)
	e.strOpt("id", r.ID)
	e.strOpt("key_id", r.KeyID)
	e.str("kind", r.Kind)
	if r.OutputBytes != nil {
		e.int("output_bytes", *r.OutputBytes)
	}
	e.strOpt("output_sha256", r.OutputSHA256)
	if len(r.Paths) > 0 {
		e.key("paths")
		e.strings(r.Paths)
	}
	e.strOpt("policy", r.Policy)
	e.strOpt("policy_revision", r.PolicyRevision)
	e.str("prev", r.Prev)
	e.strOpt("prev_file", r.PrevFile)
	if r.Ran != nil {
		e.key("ran")
		e.b = strconv.AppendBool(e.b, *r.Ran)
	}
	if len(r.Reasons) > 0 {
		e.key("reasons")
		e.b = append(e.b, '[')
		for i, rs := range r.Reasons {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.b = append(e.b, `{"message":`...)
			e.string(rs.Message)
			e.b = append(e.b, `,"rule":`...)
			e.string(rs.Rule)
			e.b = append(e.b, '}')
		}
		e.b = append(e.b, ']')
	}
	e.intOpt("removed_bytes", r.RemovedBytes)
	e.strOpt("removed_sha256", r.RemovedSHA256)
	e.strOpt("sandbox", r.Sandbox)
	e.int("seq", r.Seq)
	e.strOpt("sig", r.Sig)
	e.strOpt("source", r.Source)
	e.str("time", r.Time)
	e.strOpt("tool", r.Tool)
	if r.Truncated {
		e.key("truncated")
		e.b = append(e.b, "true"...)
	}
	e.int("v", int64(r.V))
	if w := r.Writer; w != nil {
		e.key("writer")
		e.b = append(e.b, `{"host":`...)
		e.string(w.Host)
		e.b = append(e.b, `,"pid":`...)
		e.b = appendCanonInt(e.b, int64(w.PID))
		e.b = append(e.b, `,"program":`...)
		e.string(w.Program)
		e.b = append(e.b, `,"uid":`...)
		e.b = appendCanonInt(e.b, int64(w.UID))
		e.b = append(e.b, `,"user":`...)
		e.string(w.User)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, '}')
	return e.b, at, before, e.ok
}

// appendCanonInt writes n as canonNumber writes its decimal literal. n is
// within ±maxExactInt (seal refuses a record with an integer beyond, see
// checkInts), where that literal is its digits.
func appendCanonInt(b []byte, n int64) []byte {
	return strconv.AppendInt(b, n, 10)
}

// appendCanonStr writes the valid UTF-8 string s as canonString does.
func appendCanonStr[S ~string | ~[]byte](b []byte, s S) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = appendEscape(append(b, s[start:i]...), c)
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendEscape writes the escape canonString writes for c: a control
// character, the quote or the backslash.
func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\t':
		return append(b, '\\', 't')
	case '\n':
		return append(b, '\\', 'n')
	case '\f':
		return append(b, '\\', 'f')
	case '\r':
		return append(b, '\\', 'r')
	}
	return append(b, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
}

// canonRaw appends the canonical form of the JSON text in, a value at
// nesting depth depth, as decodeValue and canon would make it. It gives up
// (ok false) on anything but strict JSON of valid UTF-8 whose strings hold
// no unpaired surrogate escapes, and on what canon refuses (too deep, a
// number out of range): the slow path decides those.
func canonRaw(dst, in []byte, depth int) (b []byte, ok bool) {
	c := rawCanon{in: in, out: dst}
	c.space()
	if !c.value(depth) {
		return c.out, false
	}
	c.space()
	return c.out, c.i == len(c.in)
}

type rawCanon struct {
	in  []byte
	i   int
	out []byte
}

// rawMember is an object member written to out[start:end], under its
// decoded key.
type rawMember struct {
	key        []byte
	start, end int
}

func (c *rawCanon) space() {
	for c.i < len(c.in) {
		switch c.in[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

func (c *rawCanon) value(depth int) bool {
	if depth > maxCanonDepth || c.i >= len(c.in) {
		return false
	}
	switch ch := c.in[c.i]; ch {
	case '{':
		return c.object(depth)
	case '[':
		c.i++
		c.out = append(c.out, '[')
		c.space()
		if c.i < len(c.in) && c.in[c.i] == ']' {
			c.i++
			c.out = append(c.out, ']')
			return true
		}
		for {
			c.space()
			if !c.value(depth + 1) {
				return false
			}
			c.space()
			if c.i >= len(c.in) {
				return false
			}
			switch c.in[c.i] {
			case ',':
				c.i++
				c.out = append(c.out, ',')
			case ']':
				c.i++
				c.out = append(c.out, ']')
				return true
			default:
				return false
			}
		}
	case '"':
		out, ok := c.str(c.out, true)
		if ok {
			c.out = out
		}
		return ok
	case 't':
		return c.literal("true")
	case 'f':
		return c.literal("false")
	case 'n':
		return c.literal("null")
	}
	return c.number()
}

func (c *rawCanon) literal(lit string) bool {
	if len(c.in)-c.i < len(lit) || string(c.in[c.i:c.i+len(lit)]) != lit {
		return false
	}
	c.i += len(lit)
	c.out = append(c.out, lit...)
	return true
}

func (c *rawCanon) object(depth int) bool {
	c.i++
	c.out = append(c.out, '{')
	base := len(c.out)
	c.space()
	if c.i < len(c.in) && c.in[c.i] == '}' {
		c.i++
		c.out = append(c.out, '}')
		return true
	}
	var small [8]rawMember
	members := small[:0]
	sorted := true
	for {
		c.space()
		if c.i >= len(c.in) || c.in[c.i] != '"' {
			return false
		}
		key, ok := c.str(nil, false)
		if !ok {
			return false
		}
		c.space()
		if c.i >= len(c.in) || c.in[c.i] != ':' {
			return false
		}
		c.i++
		if len(members) > 0 {
			c.out = append(c.out, ',')
		}
		start := len(c.out)
		c.out = appendCanonStr(c.out, key)
		c.out = append(c.out, ':')
		c.space()
		if !c.value(depth + 1) {
			return false
		}
		if len(members) > 0 && utf16Cmp(members[len(members)-1].key, key) >= 0 {
			sorted = false
		}
		members = append(members, rawMember{key, start, len(c.out)})
		c.space()
		if c.i >= len(c.in) {
			return false
		}
		if c.in[c.i] == '}' {
			c.i++
			break
		}
		if c.in[c.i] != ',' {
			return false
		}
		c.i++
	}
	if !sorted {
		// Sort the members written; of equal keys the last one stays, as
		// it does when encoding/json decodes into a map.
		written := append([]byte(nil), c.out[base:]...)
		slices.SortStableFunc(members, func(a, b rawMember) int { return utf16Cmp(a.key, b.key) })
		c.out = c.out[:base]
		for i, m := range members {
			if i+1 < len(members) && utf16Cmp(m.key, members[i+1].key) == 0 {
				continue
			}
			if len(c.out) > base {
				c.out = append(c.out, ',')
			}
			c.out = append(c.out, written[m.start-base:m.end-base]...)
		}
	}
	c.out = append(c.out, '}')
	return true
}

// str reads the string at c.in[c.i] (a quote). With canon false it
// returns the decoded bytes: a slice of the input when there are no
// escapes, else appended to dst. With canon true it appends the string's
// canonical form, quotes included, to dst.
func (c *rawCanon) str(dst []byte, canon bool) ([]byte, bool) {
	in := c.in
	i := c.i + 1
	start := i
	for i < len(in) && strPlain[in[i]] {
		i++
	}
	if i < len(in) && in[i] == '"' && !canon {
		c.i = i + 1
		return in[start:i], true
	}
	out := dst
	if canon {
		out = append(out, '"')
	}
	out = append(out, in[start:i]...)
	for i < len(in) {
		ch := in[i]
		switch {
		case ch == '"':
			c.i = i + 1
			if canon {
				out = append(out, '"')
			}
			return out, true
		case ch < 0x20:
			return nil, false
		case ch < utf8.RuneSelf && ch != '\\':
			out = append(out, ch)
			i++
		case ch >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && n <= 1 {
				return nil, false
			}
			out = append(out, in[i:i+n]...)
			i += n
		default: // a backslash
			if i+1 >= len(in) {
				return nil, false
			}
			var r rune
			switch e := in[i+1]; e {
			case '"', '\\', '/':
				r = rune(e)
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			case 'u':
				var ok bool
				if r, ok = hex4(in, i+2); !ok {
					return nil, false
				}
				if utf16.IsSurrogate(r) {
					// Only a high surrogate followed by a low one.
					r2, ok := hex4(in, i+8)
					if !ok || r >= 0xDC00 || in[i+6] != '\\' || in[i+7] != 'u' {
						return nil, false
					}
					if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
						return nil, false
					}
					i += 6
				}
				i += 4
			default:
				return nil, false
			}
			i += 2
			switch {
			case !canon || r >= 0x20 && r != '"' && r != '\\':
				out = utf8.AppendRune(out, r)
			default:
				out = appendEscape(out, byte(r))
			}
		}
	}
	return nil, false
}

// hex4 reads four hex digits at in[i:].
func hex4(in []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(in) {
		return 0, false
	}
	var r rune
	for _, c := range in[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a JSON number and writes it in canonical form.
func (c *rawCanon) number() bool {
	end, integer := jsonNumber(c.in, c.i)
	if end < 0 {
		return false
	}
	lit := c.in[c.i:end]
	c.i = end
	digits := len(lit)
	if lit[0] == '-' {
		digits--
	}
	switch {
	case integer && digits <= 15:
		if string(lit) == "-0" {
			lit = lit[1:]
		}
		c.out = append(c.out, lit...)
	default:
		s, err := canonNumber(string(lit))
		if err != nil {
			return false
		}
		c.out = append(c.out, s...)
	}
	return true
}

// jsonNumber returns the end of the JSON number at b[i:], or -1, and
// whether it is written as an integer.
func jsonNumber(b []byte, i int) (end int, integer bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return -1, false
	}
	switch c := b[i]; {
	case c == '0':
		i++
	case '1' <= c && c <= '9':
		i = digitsEnd(b, i)
	default:
		return -1, false
	}
	integer = true
	if i < len(b) && b[i] == '.' {
		j := digitsEnd(b, i+1)
		if j == i+1 {
			return -1, false
		}
		i, integer = j, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digitsEnd(b, i)
		if j == i {
			return -1, false
		}
		i, integer = j, false
	}
	return i, integer
}

func digitsEnd(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
