package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/tools"
)

// The tools' argument schemas use a small part of JSON Schema (draft
// 2020-12): objects with typed properties, required names, no additional
// properties, and length and range bounds. The validator below implements
// exactly that part. A schema that uses any other keyword is refused when
// the gate starts, so nothing a schema says is ever silently ignored.
// (A general validator cost 10 ms of start-up in package initialisation
// alone; a test checks this one against it on every case it knows.)

// validator holds every tool's compiled schema.
type validator struct {
	schemas map[string]*schema
}

// schema is one compiled (sub)schema.
type schema struct {
	types      []string // allowed JSON types; nil means any
	props      map[string]*schema
	required   []string
	closed     bool // additionalProperties: false
	minLen     int  // -1 when absent
	maxLen     int  // -1 when absent
	min, max   *big.Rat
	enum       []any
	itemSchema *schema
}

// annotation keywords carry no constraint.
var annotations = map[string]bool{"description": true, "default": true, "title": true, "$schema": true, "examples": true, "$comment": true}

var jsonTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true, "null": true, "object": true, "array": true}

func newValidator(ts []tools.Tool) (*validator, error) {
	v := &validator{schemas: map[string]*schema{}}
	for _, t := range ts {
		var doc any
		if err := json.Unmarshal(t.Schema, &doc); err != nil {
			return nil, fmt.Errorf("tool %s: schema is not JSON: %w", t.Name, err)
		}
		s, err := compileSchema(doc, "#")
		if err != nil {
			return nil, fmt.Errorf("tool %s: schema does not compile: %w", t.Name, err)
		}
		v.schemas[t.Name] = s
	}
	return v, nil
}

func compileSchema(doc any, at string) (*schema, error) {
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema must be an object", at)
	}
	s := &schema{minLen: -1, maxLen: -1}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := m[k]
		var err error
		switch k {
		case "type":
			err = s.setTypes(val)
		case "properties":
			ps, ok := val.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s/properties: want an object", at)
			}
			s.props = map[string]*schema{}
			for name, p := range ps {
				if s.props[name], err = compileSchema(p, at+"/properties/"+name); err != nil {
					return nil, err
				}
			}
		case "required":
			list, ok := val.([]any)
			if !ok {
				return nil, fmt.Errorf("%s/required: want a list of names", at)
			}
			for _, e := range list {
				name, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("%s/required: want a list of names", at)
				}
				s.required = append(s.required, name)
			}
		case "additionalProperties":
			b, ok := val.(bool)
			if !ok {
				return nil, fmt.Errorf("%s/additionalProperties: only true or false is supported", at)
			}
			s.closed = !b
		case "minLength", "maxLength":
			f, ok := val.(float64)
			if !ok || f < 0 || f != float64(int(f)) {
				return nil, fmt.Errorf("%s/%s: want a non-negative integer", at, k)
			}
			if k == "minLength" {
				s.minLen = int(f)
			} else {
				s.maxLen = int(f)
			}
		case "minimum", "maximum":
			f, ok := val.(float64)
			if !ok {
				return nil, fmt.Errorf("%s/%s: want a number", at, k)
			}
			r := new(big.Rat).SetFloat64(f)
			if k == "minimum" {
				s.min = r
			} else {
				s.max = r
			}
		case "enum":
			list, ok := val.([]any)
			if !ok || len(list) == 0 {
				return nil, fmt.Errorf("%s/enum: want a non-empty list", at)
			}
			s.enum = list
		case "items":
			if s.itemSchema, err = compileSchema(val, at+"/items"); err != nil {
				return nil, err
			}
		default:
			if !annotations[k] {
				return nil, fmt.Errorf("%s: keyword %q is not supported by toolgate's validator", at, k)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	for _, name := range s.required {
		if s.closed && s.props[name] == nil {
			return nil, fmt.Errorf("%s: required property %q is not among the properties", at, name)
		}
	}
	return s, nil
}

func (s *schema) setTypes(val any) error {
	switch t := val.(type) {
	case string:
		s.types = []string{t}
	case []any:
		for _, e := range t {
			name, ok := e.(string)
			if !ok {
				return fmt.Errorf("type: want a name or a list of names")
			}
			s.types = append(s.types, name)
		}
	default:
		return fmt.Errorf("type: want a name or a list of names")
	}
	for _, name := range s.types {
		if !jsonTypes[name] {
			return fmt.Errorf("type: unknown type %q", name)
		}
	}
	return nil
}

// validate checks args against the tool's schema and returns every
// violation as "location: message", sorted, and the decoded arguments
// (numbers as json.Number) for the input document.
func (v *validator) validate(tool string, args []byte) ([]string, any, bool) {
	s, ok := v.schemas[tool]
	if !ok {
		return nil, nil, false
	}
	doc, err := decodeOne(args)
	if err != nil {
		return []string{"/: arguments are not valid JSON: " + err.Error()}, nil, true
	}
	var out []string
	s.check(doc, "", &out)
	sort.Strings(out)
	return out, doc, true
}

// typeOf names the JSON type of a decoded value (numbers as json.Number).
func typeOf(x any) string {
	switch t := x.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if r, ok := ratOf(t); ok && r.IsInt() {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", x)
}

func (s *schema) check(x any, at string, out *[]string) {
	loc := at
	if loc == "" {
		loc = "/"
	}
	bad := func(format string, a ...any) { *out = append(*out, loc+": "+fmt.Sprintf(format, a...)) }
	got := typeOf(x)
	if s.types != nil {
		ok := false
		for _, t := range s.types {
			if t == got || t == "number" && got == "integer" {
				ok = true
			}
		}
		if !ok {
			bad("got %s, want %s", got, strings.Join(s.types, " or "))
			return
		}
	}
	if s.enum != nil {
		found := false
		for _, e := range s.enum {
			if sameJSON(e, x) {
				found = true
			}
		}
		if !found {
			bad("value is not one of the allowed values")
		}
	}
	switch t := x.(type) {
	case string:
		n := utf8.RuneCountInString(t)
		if s.minLen >= 0 && n < s.minLen {
			bad("length must be >= %d, but got %d", s.minLen, n)
		}
		if s.maxLen >= 0 && n > s.maxLen {
			bad("length must be <= %d, but got %d", s.maxLen, n)
		}
	case json.Number:
		r, ok := ratOf(t)
		if !ok {
			bad("number %.40s is out of range", t)
			return
		}
		if s.min != nil && r.Cmp(s.min) < 0 {
			bad("must be >= %s but found %s", s.min.RatString(), t)
		}
		if s.max != nil && r.Cmp(s.max) > 0 {
			bad("must be <= %s but found %s", s.max.RatString(), t)
		}
	case map[string]any:
		for _, name := range s.required {
			if _, ok := t[name]; !ok {
				bad("missing property %s", strconv.Quote(name))
			}
		}
		for name, val := range t {
			if p := s.props[name]; p != nil {
				p.check(val, at+"/"+pointerEscape(name), out)
			} else if s.closed {
				bad("additional property %s is not allowed", strconv.Quote(name))
			}
		}
	case []any:
		if s.itemSchema != nil {
			for i, e := range t {
				s.itemSchema.check(e, at+"/"+strconv.Itoa(i), out)
			}
		}
	}
}

// maxExponent bounds the exponent of a number read exactly: 1e999999999
// would otherwise make a number of a billion digits.
const maxExponent = 1000

// ratOf reads a JSON number exactly; false when its exponent is beyond
// ±maxExponent or it cannot be read.
func ratOf(n json.Number) (*big.Rat, bool) {
	s := string(n)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > maxExponent || e < -maxExponent {
			return nil, false
		}
	}
	return new(big.Rat).SetString(s)
}

// pointerEscape escapes a property name for a JSON Pointer (RFC 6901).
func pointerEscape(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// sameJSON compares a schema constant (decoded with float64 numbers) with
// an instance value (decoded with json.Number).
func sameJSON(a, b any) bool {
	if n, ok := b.(json.Number); ok {
		f, ok := a.(float64)
		if !ok {
			return false
		}
		r, ok := ratOf(n)
		return ok && r.Cmp(new(big.Rat).SetFloat64(f)) == 0
	}
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ab, bb)
}
