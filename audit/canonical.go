package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Canonical writes v (as decoded by encoding/json with UseNumber: maps,
// slices, strings, json.Number, bools, nil) in the JSON Canonicalization
// Scheme of RFC 8785: object keys sorted by their UTF-16 code units, no
// white space, strings escaped as ECMAScript's JSON.stringify does, numbers
// in ECMAScript's shortest form. Two encoders that agree on the value agree
// on every byte, which is what a hash over a record needs.
func Canonical(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := canon(&b, v, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// maxCanonDepth bounds nesting; records are shallow, a foreign line may not be.
const maxCanonDepth = 64

func canon(b *bytes.Buffer, v any, depth int) error {
	if depth > maxCanonDepth {
		return errors.New("nesting too deep")
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		return canonString(b, x)
	case json.Number:
		s, err := canonNumber(string(x))
		if err != nil {
			return err
		}
		b.WriteString(s)
	case float64:
		s, err := es6Number(x)
		if err != nil {
			return err
		}
		b.WriteString(s)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := canon(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return utf16Less(keys[i], keys[j]) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := canonString(b, k); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := canon(b, x[k], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("cannot canonicalize %T", v)
	}
	return nil
}

// utf16Less orders strings by UTF-16 code units, as RFC 8785 sorts keys.
func utf16Less(a, b string) bool {
	if isASCII(a) && isASCII(b) {
		return a < b
	}
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func canonString(b *bytes.Buffer, s string) error {
	if !utf8.ValidString(s) {
		return errors.New("string is not valid UTF-8")
	}
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20:
			fmt.Fprintf(b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return nil
}

// canonNumber rewrites a JSON number literal in ECMAScript form. Integer
// literals that a float64 holds exactly keep their digits.
func canonNumber(lit string) (string, error) {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return "", fmt.Errorf("number %q: %w", lit, err)
	}
	return es6Number(f)
}

// es6Number formats f as ECMAScript's Number.prototype.toString does.
func es6Number(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", errors.New("NaN and infinities have no JSON form")
	}
	if f == 0 {
		return "0", nil
	}
	neg := f < 0
	if neg {
		f = -f
	}
	// Shortest round-trip digits and the decimal exponent.
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expS, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expS)
	k := len(digits)
	n := exp + 1 // position of the decimal point
	var s string
	switch {
	case k <= n && n <= 21:
		s = digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		s = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		s = "0." + strings.Repeat("0", -n) + digits
	default:
		sign := "+"
		if n-1 < 0 {
			sign = "-"
		}
		d := n - 1
		if d < 0 {
			d = -d
		}
		s = digits[:1]
		if k > 1 {
			s += "." + digits[1:]
		}
		s += "e" + sign + strconv.Itoa(d)
	}
	if neg {
		s = "-" + s
	}
	return s, nil
}

// canonicalWithout encodes the object m canonically and also returns the
// encoding without its top-level member key: one pass gives both the line a
// writer wrote (with "hash") and the bytes the hash covers (without it).
func canonicalWithout(m map[string]any, key string) (full, without []byte, err error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return utf16Less(keys[i], keys[j]) })
	var b bytes.Buffer
	b.WriteByte('{')
	start, end := -1, -1
	for i, k := range keys {
		if k == key {
			start = b.Len()
		}
		if i > 0 {
			b.WriteByte(',')
		}
		if err := canonString(&b, k); err != nil {
			return nil, nil, err
		}
		b.WriteByte(':')
		if err := canon(&b, m[k], 1); err != nil {
			return nil, nil, err
		}
		if k == key {
			end = b.Len()
		}
	}
	b.WriteByte('}')
	full = b.Bytes()
	if start < 0 {
		return full, full, nil
	}
	without = make([]byte, 0, len(full))
	if start == 1 && end < len(full)-1 {
		// The first member: drop it and the comma after it.
		without = append(append(without, full[:start]...), full[end+1:]...)
	} else {
		// Its leading comma is inside [start, end).
		without = append(append(without, full[:start]...), full[end:]...)
	}
	return full, without, nil
}
