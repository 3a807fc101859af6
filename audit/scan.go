package audit

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// The verifier's fast path. A record line must be in canonical form for its
// hash to match, so instead of decoding it into generic values and encoding
// those again, scanRecord checks in one pass over the bytes that the line
// is a fixed point of that round trip (decodeValue, then canonicalWithout),
// and picks up the fields the chain needs on the way. It only ever says
// yes when the slow path (chainFields and canonicalWithout) would accept
// the line with the same fields and the same covered bytes; anything it
// cannot decide — a line that is not canonical, a field of the wrong type —
// goes to the slow path, which names the problem as it always has.
// FuzzScanRecord checks the two agree.

// strPlain marks the bytes a canonical string holds as they are: printable
// ASCII other than the quote and the backslash.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// String flags from scanCanonString.
const (
	strEscaped  = 1 << iota // holds an escape sequence
	strNonASCII             // holds a byte >= 0x80
)

// scanCanonString checks the string starting at b[i] (a quote) is in
// canonical form: valid UTF-8, escapes exactly where and as canonString
// writes them. It returns the index after the closing quote, or -1, and
// what the string holds.
func scanCanonString(b []byte, i int) (end int, flags int) {
	i++
	for {
		for i < len(b) && strPlain[b[i]] {
			i++
		}
		if i >= len(b) {
			return -1, 0
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, flags
		case c == '\\':
			flags |= strEscaped
			if i+1 >= len(b) {
				return -1, 0
			}
			switch b[i+1] {
			case '"', '\\', 'b', 't', 'n', 'f', 'r':
				i += 2
			case 'u':
				// Only control characters without a short escape.
				if i+6 > len(b) || b[i+2] != '0' || b[i+3] != '0' || (b[i+4] != '0' && b[i+4] != '1') {
					return -1, 0
				}
				lo := lowerHex(b[i+5])
				if lo < 0 {
					return -1, 0
				}
				switch v := int(b[i+4]-'0')<<4 | lo; v {
				case '\b', '\t', '\n', '\f', '\r':
					return -1, 0
				}
				i += 6
			default:
				return -1, 0
			}
		case c < 0x20:
			return -1, 0
		default:
			flags |= strNonASCII
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				return -1, 0
			}
			i += n
		}
	}
}

// lowerHex is the value of a lowercase hex digit, or -1.
func lowerHex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}

// unescapeCanon decodes the contents of a string scanCanonString accepted.
func unescapeCanon(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			dst = append(dst, '\b')
		case 't':
			dst = append(dst, '\t')
		case 'n':
			dst = append(dst, '\n')
		case 'f':
			dst = append(dst, '\f')
		case 'r':
			dst = append(dst, '\r')
		case 'u':
			dst = append(dst, byte(int(s[i+3]-'0')<<4|lowerHex(s[i+4])))
			i += 4
		default: // " and \
			dst = append(dst, s[i])
		}
	}
	return dst
}

// canonKeyLess says whether the object key a (the contents of a canonical
// string, with flags fa) sorts strictly before b, as canon sorts them.
func canonKeyLess(a []byte, fa int, b []byte, fb int) bool {
	if (fa|fb)&strEscaped != 0 {
		a, b = unescapeCanon(nil, a), unescapeCanon(nil, b)
	}
	return utf16Cmp(a, b) < 0
}

// utf16Cmp compares valid UTF-8 strings by their UTF-16 code units, as
// utf16Less does, without converting them.
func utf16Cmp(a, b []byte) int {
	for len(a) > 0 && len(b) > 0 {
		ca, cb := a[0], b[0]
		if ca < utf8.RuneSelf && cb < utf8.RuneSelf {
			if ca != cb {
				return int(ca) - int(cb)
			}
			a, b = a[1:], b[1:]
			continue
		}
		ra, na := utf8.DecodeRune(a)
		rb, nb := utf8.DecodeRune(b)
		if ra != rb {
			if utf16Weight(ra) < utf16Weight(rb) {
				return -1
			}
			return 1
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b)
}

// utf16Weight orders runes as their UTF-16 encodings do: code points from
// U+E000 to U+FFFF sort after the surrogate pairs of U+10000 and above.
func utf16Weight(r rune) rune {
	if r >= 0xE000 && r <= 0xFFFF {
		return r + 0x200000
	}
	return r
}

// scanCanonNumber checks the number starting at b[i] is a JSON number in
// the form canonNumber writes. It returns the index after it, or -1, and
// whether it is a plain integer (digits with an optional minus).
func scanCanonNumber(b []byte, i int) (end int, integer bool) {
	start := i
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return -1, false
	}
	digits := i
	switch c := b[i]; {
	case c == '0':
		i++
	case '1' <= c && c <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return -1, false
	}
	n := i - digits
	integer = true
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return -1, false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		integer = false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return -1, false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		integer = false
	}
	lit := b[start:i]
	if integer && n <= 15 {
		// Exact in a float64 and written with all its digits: canonical
		// unless it is minus zero.
		if n == 1 && b[digits] == '0' && digits > start {
			return -1, false
		}
		return i, true
	}
	if s, err := canonNumber(string(lit)); err != nil || s != string(lit) {
		return -1, false
	}
	return i, integer
}

// scanCanonValue checks the value starting at b[i], at nesting depth
// depth, is in canonical form; it returns the index after it, or -1.
func scanCanonValue(b []byte, i, depth int) int {
	if depth > maxCanonDepth || i >= len(b) {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		end, _ := scanCanonString(b, i)
		return end
	case '{':
		i++
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		var prev []byte
		prevFlags := 0
		for first := true; ; first = false {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			end, flags := scanCanonString(b, i)
			if end < 0 {
				return -1
			}
			key := b[i+1 : end-1]
			if !first && !canonKeyLess(prev, prevFlags, key, flags) {
				return -1
			}
			prev, prevFlags = key, flags
			if end >= len(b) || b[end] != ':' {
				return -1
			}
			i = scanCanonValue(b, end+1, depth+1)
			if i < 0 || i >= len(b) {
				return -1
			}
			if b[i] == '}' {
				return i + 1
			}
			if b[i] != ',' {
				return -1
			}
			i++
		}
	case '[':
		i++
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			i = scanCanonValue(b, i, depth+1)
			if i < 0 || i >= len(b) {
				return -1
			}
			if b[i] == ']' {
				return i + 1
			}
			if b[i] != ',' {
				return -1
			}
			i++
		}
	case 't':
		return literal(b, i, "true")
	case 'f':
		return literal(b, i, "false")
	case 'n':
		return literal(b, i, "null")
	}
	if c := b[i]; c == '-' || '0' <= c && c <= '9' {
		end, _ := scanCanonNumber(b, i)
		return end
	}
	return -1
}

func literal(b []byte, i int, lit string) int {
	if bytes.HasPrefix(b[i:], []byte(lit)) {
		return i + len(lit)
	}
	return -1
}

// lineScan is what scanRecord reads from a line.
type lineScan struct {
	// Rec has the fields chainFields sets, but ID: verify does not use it.
	Rec Record
	// The line without its "hash" member, as canonicalWithout cuts it, is
	// line[:CutFrom] followed by line[CutTo:].
	CutFrom, CutTo int
}

// scanRecord is the fast path for a log line (without its newline): when
// the line is a canonical JSON object whose chain fields chainFields would
// accept, it fills s and returns true. False says only that the slow path
// must decide. A prev equal to prevHint shares its string.
func scanRecord(b []byte, s *lineScan, prevHint string) bool {
	s.Rec = Record{}
	r := &s.Rec
	if len(b) < 2 || b[0] != '{' {
		return false
	}
	hashFrom, hashTo := -1, -1
	var prev []byte
	prevFlags := 0
	i := 1
	if b[i] == '}' {
		return false // no hash
	}
	for first := true; ; first = false {
		member := i
		if !first {
			member = i - 1 // its leading comma
		}
		if b[i] != '"' {
			return false
		}
		end, flags := scanCanonString(b, i)
		if end < 0 {
			return false
		}
		key := b[i+1 : end-1]
		if !first && !canonKeyLess(prev, prevFlags, key, flags) {
			return false
		}
		prev, prevFlags = key, flags
		if end >= len(b) || b[end] != ':' {
			return false
		}
		v := end + 1
		i = scanCanonValue(b, v, 1)
		if i < 0 || i >= len(b) {
			return false
		}
		val := b[v:i]
		if flags == 0 {
			var ok bool
			switch string(key) {
			case "kind":
				r.Kind, ok = kindString(val)
			case "id":
				ok = val[0] == '"'
			case "prev":
				if len(val) == len(prevHint)+2 && string(val[1:len(val)-1]) == prevHint && val[0] == '"' && bytes.IndexByte(val, '\\') < 0 {
					r.Prev, ok = prevHint, true
				} else {
					r.Prev, ok = stringValue(val)
				}
			case "hash":
				r.Hash, ok = stringValue(val)
				hashFrom, hashTo = member, i
			case "head":
				r.Head, ok = stringValue(val)
			case "key_id":
				r.KeyID, ok = stringValue(val)
			case "sig":
				r.Sig, ok = stringValue(val)
			case "prev_file":
				r.PrevFile, ok = stringValue(val)
			case "v":
				var n int64
				n, ok = intValue(val)
				r.V = int(n)
				ok = ok && exactInt(n)
			case "seq":
				r.Seq, ok = intValue(val)
				ok = ok && exactInt(r.Seq)
			case "count":
				r.Count, ok = intValue(val)
				ok = ok && exactInt(r.Count)
			case "exit_code", "duration_ms", "output_bytes", "removed_bytes":
				// Not chain fields, but the slow path refuses a record
				// with one beyond ±maxExactInt (inexactField).
				ok = exactValue(val)
			case "writer":
				ok = writerExact(val)
			default:
				ok = true
			}
			if !ok {
				return false
			}
		}
		if b[i] == '}' {
			break
		}
		if b[i] != ',' {
			return false
		}
		i++
		if i >= len(b) {
			return false
		}
	}
	if i+1 != len(b) || r.Hash == "" || r.Kind == "" || r.V == 0 {
		return false
	}
	if hashFrom == 1 && hashTo < len(b)-1 {
		hashTo++ // the first member goes with the comma after it
	}
	s.CutFrom, s.CutTo = hashFrom, hashTo
	return true
}

// stringValue decodes a canonical string value, or says it is not one.
func stringValue(val []byte) (string, bool) {
	if val[0] != '"' {
		return "", false
	}
	s := val[1 : len(val)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s), true
	}
	return string(unescapeCanon(make([]byte, 0, len(s)), s)), true
}

// kindString is stringValue without an allocation for the known kinds.
func kindString(val []byte) (string, bool) {
	if val[0] != '"' {
		return "", false
	}
	switch string(val[1 : len(val)-1]) {
	case KindDecision:
		return KindDecision, true
	case KindOutcome:
		return KindOutcome, true
	case KindCheckpoint:
		return KindCheckpoint, true
	case KindGenesis:
		return KindGenesis, true
	case KindRepair:
		return KindRepair, true
	}
	return stringValue(val)
}

// intValue reads a canonical number as json.Number.Int64 does, or says it
// is not an int64.
func intValue(val []byte) (int64, bool) {
	c := val[0]
	if c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	neg := c == '-'
	digits := val
	if neg {
		digits = val[1:]
	}
	if len(digits) > 0 && len(digits) <= 18 {
		var n int64
		for _, d := range digits {
			if d < '0' || d > '9' {
				return 0, false // a fraction or an exponent: not an integer
			}
			n = n*10 + int64(d-'0')
		}
		if neg {
			n = -n
		}
		return n, true
	}
	n, err := strconv.ParseInt(string(val), 10, 64)
	return n, err == nil
}

// exactInt says whether n is within ±maxExactInt.
func exactInt(n int64) bool {
	return -maxExactInt <= n && n <= maxExactInt
}

// exactValue says whether the canonical value val is not a number beyond
// ±maxExactInt.
func exactValue(val []byte) bool {
	if c := val[0]; c != '-' && (c < '0' || c > '9') {
		return true
	}
	return exactLiteral(val)
}

// writerExact is exactValue for the uid and pid members of val, a canonical
// writer object (anything else is not checked, as on the slow path).
func writerExact(val []byte) bool {
	if val[0] != '{' || val[1] == '}' {
		return true
	}
	for i := 1; ; {
		end, _ := scanCanonString(val, i)
		if end < 0 {
			return false // not canonical after all: the slow path decides
		}
		to := scanCanonValue(val, end+1, 2)
		if to < 0 || to >= len(val) {
			return false
		}
		switch string(val[i+1 : end-1]) {
		case "uid", "pid":
			if !exactValue(val[end+1 : to]) {
				return false
			}
		}
		if val[to] == '}' {
			return true
		}
		i = to + 1
	}
}
