package tools

import (
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// appendJSON appends the JSON encoding of a schema part, byte for byte what
// encoding/json writes with HTML escaping off (keys sorted, the same string
// escapes), for the few kinds of value the definitions use. It exists
// because the schemas are built in every process at start, where the
// reflection encoding/json does on a first use cost most of a millisecond;
// TestSchemaEncodingMatchesEncodingJSON holds the two equal. Any other kind
// panics: the definitions are fixed, and the tests build them.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return appendJSONString(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case []string:
		return appendJSONArray(b, v, appendJSONString)
	case []any:
		return appendJSONArray(b, v, appendJSON)
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSON(b, v[k])
		}
		return append(b, '}')
	}
	panic(fmt.Sprintf("tools: cannot encode schema part of type %T", v))
}

// appendJSONArray appends the elements of xs, each written by each, as a
// JSON array.
func appendJSONArray[T any](b []byte, xs []T, each func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = each(b, x)
	}
	return append(b, ']')
}

// appendJSONString quotes s as encoding/json does without HTML escaping:
// short escapes for \b \f \n \r \t " and \, \u00XX for other control
// bytes, \ufffd for invalid UTF-8, and \u2028 and \u2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c >= 0x20:
				b = append(b, c)
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
