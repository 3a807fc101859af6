package value

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
)

// AppendText appends v in Rego's text form, as OPA prints it (what
// sprintf shows of a value that is not a string or number): strings
// quoted, arrays [a, b], objects {"k": v} and sets {a, b} in order, the
// empty set set().
func AppendText(buf []byte, v Value) []byte {
	switch v := v.(type) {
	case nil:
		return append(buf, "undefined"...)
	case Null:
		return append(buf, "null"...)
	case Bool:
		return strconv.AppendBool(buf, bool(v))
	case Number:
		return append(buf, v...)
	case String:
		return strconv.AppendQuote(buf, string(v))
	case *Array:
		return append(appendTexts(append(buf, '['), v.elems), ']')
	case *Object:
		buf = append(buf, '{')
		for i := range v.keys {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = AppendText(buf, v.keys[i])
			buf = append(buf, ": "...)
			buf = AppendText(buf, v.vals[i])
		}
		return append(buf, '}')
	case *Set:
		if len(v.elems) == 0 {
			return append(buf, "set()"...)
		}
		return append(appendTexts(append(buf, '{'), v.elems), '}')
	}
	return buf
}

// appendTexts appends the values' texts separated by ", ".
func appendTexts(buf []byte, vs []Value) []byte {
	for i, e := range vs {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = AppendText(buf, e)
	}
	return buf
}

// Text is v in Rego's text form (AppendText).
func Text(v Value) string { return string(AppendText(nil, v)) }

// FromGo converts a value as encoding/json decodes it (nil, bool,
// float64, json.Number, string, []any, map[string]any, and int or int64)
// to a Value; anything else is an error.
func FromGo(x any) (Value, error) {
	switch x := x.(type) {
	case nil:
		return NullValue, nil
	case bool:
		return Boolean(x), nil
	case json.Number:
		if _, err := strconv.ParseFloat(string(x), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("number %q: %w", string(x), err)
		}
		return Number(x), nil
	case float64:
		return Number(strconv.FormatFloat(x, 'g', -1, 64)), nil
	case int:
		return Int(x), nil
	case int64:
		return Number(strconv.FormatInt(x, 10)), nil
	case string:
		return String(x), nil
	case []any:
		out := make([]Value, len(x))
		for i, e := range x {
			v, err := FromGo(e)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return NewArray(out...), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := NewObject(len(keys))
		for _, k := range keys {
			v, err := FromGo(x[k])
			if err != nil {
				return nil, err
			}
			o.keys, o.vals = append(o.keys, String(k)), append(o.vals, v)
		}
		return o, nil
	}
	return nil, fmt.Errorf("cannot make a Rego value of %T", x)
}

// ToGo converts v to the values encoding/json decodes into (numbers as
// json.Number); sets become arrays in order, objects with keys that are
// not strings get their keys' JSON text as keys (as OPA's ast.JSON).
func ToGo(v Value) (any, error) {
	switch v := v.(type) {
	case Null:
		return nil, nil
	case Bool:
		return bool(v), nil
	case Number:
		return json.Number(v), nil
	case String:
		return string(v), nil
	case *Array:
		return listToGo(v.elems)
	case *Set:
		return listToGo(v.elems)
	case *Object:
		out := make(map[string]any, len(v.keys))
		for i, k := range v.keys {
			var ks string
			if s, ok := k.(String); ok {
				ks = string(s)
			} else {
				kx, err := ToGo(k)
				if err != nil {
					return nil, err
				}
				b, err := json.Marshal(kx)
				if err != nil {
					return nil, err
				}
				ks = string(b)
			}
			x, err := ToGo(v.vals[i])
			if err != nil {
				return nil, err
			}
			out[ks] = x
		}
		return out, nil
	}
	return nil, fmt.Errorf("cannot convert %T to JSON", v)
}

func listToGo(elems []Value) (any, error) {
	out := make([]any, len(elems))
	for i, e := range elems {
		x, err := ToGo(e)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

// AppendKey appends an encoding of v that is equal for equal values and
// different for different ones (numbers as written: 1 and 1.0 differ,
// which is safe for a cache key), for keying caches.
func AppendKey(buf []byte, v Value) []byte {
	switch v := v.(type) {
	case nil:
		return append(buf, 'u')
	case Null:
		return append(buf, 'n')
	case Bool:
		if v {
			return append(buf, 't')
		}
		return append(buf, 'f')
	case Number:
		buf = append(buf, '#')
		buf = strconv.AppendInt(buf, int64(len(v)), 10)
		buf = append(buf, ':')
		return append(buf, v...)
	case String:
		buf = append(buf, '"')
		buf = strconv.AppendInt(buf, int64(len(v)), 10)
		buf = append(buf, ':')
		return append(buf, v...)
	case *Array:
		buf = append(buf, '[')
		for _, e := range v.elems {
			buf = AppendKey(buf, e)
		}
		return append(buf, ']')
	case *Object:
		buf = append(buf, '{')
		for i := range v.keys {
			buf = AppendKey(buf, v.keys[i])
			buf = AppendKey(buf, v.vals[i])
		}
		return append(buf, '}')
	case *Set:
		buf = append(buf, '<')
		for _, e := range v.elems {
			buf = AppendKey(buf, e)
		}
		return append(buf, '>')
	}
	return buf
}
