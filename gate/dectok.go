package gate

import (
	"encoding/json"
	"io"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// decTok is one JSON token as lineDecoder.parse reads it.
type decTok struct {
	// kind is the delimiter itself ('{', '}', '[', ']'), or 's' for a
	// string, 'n' for a number, 'b' for a boolean, 'z' for null.
	kind byte
	// str is the string's value, the number's text, "true" for true.
	str string
}

// decSource yields the tokens of one JSON text with the offset just past
// each one, as encoding/json's Decoder.Token and InputOffset do.
type decSource interface {
	next() (decTok, int, error)
}

// jsonSource reads tokens with encoding/json's Decoder: the way for text
// that is not valid JSON, whose errors it words.
type jsonSource struct{ dec *json.Decoder }

func (s *jsonSource) next() (decTok, int, error) {
	tok, err := s.dec.Token()
	off := int(s.dec.InputOffset())
	if err != nil {
		return decTok{}, off, err
	}
	switch t := tok.(type) {
	case json.Delim:
		return decTok{kind: byte(t)}, off, nil
	case string:
		return decTok{kind: 's', str: t}, off, nil
	case json.Number:
		return decTok{kind: 'n', str: string(t)}, off, nil
	case bool:
		if t {
			return decTok{kind: 'b', str: "true"}, off, nil
		}
		return decTok{kind: 'b'}, off, nil
	}
	return decTok{kind: 'z'}, off, nil
}

// validSource reads the tokens of text that json.Valid accepted, yielding
// what jsonSource would: the same tokens (strings decoded as encoding/json
// decodes them) at the same offsets. Decoder.Token decodes every scalar
// as a top-level value of its own and allocates an error each time it
// finds the separator after it; reading valid text needs none of that.
type validSource struct {
	b []byte
	i int
}

func (s *validSource) next() (decTok, int, error) {
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch c {
		case ' ', '\t', '\n', '\r', ',', ':':
			s.i++
		case '{', '}', '[', ']':
			s.i++
			return decTok{kind: c}, s.i, nil
		case '"':
			str, end := unquoteValid(s.b, s.i)
			s.i = end
			return decTok{kind: 's', str: str}, end, nil
		case 't':
			s.i += len("true")
			return decTok{kind: 'b', str: "true"}, s.i, nil
		case 'f':
			s.i += len("false")
			return decTok{kind: 'b'}, s.i, nil
		case 'n':
			s.i += len("null")
			return decTok{kind: 'z'}, s.i, nil
		default: // a number
			j := s.i + 1
			for j < len(s.b) && isNumberByte(s.b[j]) {
				j++
			}
			str := string(s.b[s.i:j])
			s.i = j
			return decTok{kind: 'n', str: str}, j, nil
		}
	}
	return decTok{}, s.i, io.EOF
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// unquoteValid decodes the valid JSON string starting at b[i] (its opening
// quote) as encoding/json does: escapes decoded, a surrogate escape that is
// not half of a pair and each byte that is not UTF-8 replaced by U+FFFD.
// It returns the value and the offset just past the closing quote.
func unquoteValid(b []byte, i int) (string, int) {
	j := i + 1
	escaped, high := false, false
	for ; b[j] != '"'; j++ {
		switch c := b[j]; {
		case c == '\\':
			escaped = true
			j++ // the escaped byte cannot end the string
		case c >= utf8.RuneSelf:
			high = true
		}
	}
	s := b[i+1 : j]
	if !escaped && (!high || utf8.Valid(s)) {
		return string(s), j + 1
	}
	out := make([]byte, 0, len(s)+8)
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			switch e := s[r+1]; e {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				// as encoding/json: a surrogate is decoded with the escape
				// after it when the two make a pair, else it is U+FFFD
				rr, _ := decHex4(s, r+2) // valid JSON holds four hex digits
				r += 6
				if utf16.IsSurrogate(rr) {
					lo := rune(-1)
					if r+1 < len(s) && s[r] == '\\' && s[r+1] == 'u' {
						lo, _ = decHex4(s, r+2)
					}
					if dec := utf16.DecodeRune(rr, lo); dec != unicode.ReplacementChar {
						out = utf8.AppendRune(out, dec)
						r += 6
						continue
					}
					rr = unicode.ReplacementChar
				}
				out = utf8.AppendRune(out, rr)
				continue
			default: // '"', '\\', '/'
				out = append(out, e)
			}
			r += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			out = utf8.AppendRune(out, rr)
			r += size
		}
	}
	return string(out), j + 1
}
