package value

import (
	"cmp"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// Value is a Rego value: Null, Bool, Number, String, *Array, *Object or
// *Set. A nil Value is no value (undefined).
type Value interface {
	// rank is the value's place in Rego's order of types.
	rank() int
}

// Null is JSON's null.
type Null struct{}

// Bool is a boolean.
type Bool bool

// Number is a number, kept as its JSON text (as OPA keeps it).
type Number string

// String is a string.
type String string

// Array is an array.
type Array struct{ elems []Value }

// Object is an object whose entries are kept sorted by key in Rego's
// order.
type Object struct {
	keys []Value
	vals []Value
}

// Set is a set whose elements are kept sorted in Rego's order.
type Set struct{ elems []Value }

func (Null) rank() int    { return 0 }
func (Bool) rank() int    { return 1 }
func (Number) rank() int  { return 2 }
func (String) rank() int  { return 3 }
func (*Array) rank() int  { return 7 }
func (*Object) rank() int { return 8 }
func (*Set) rank() int    { return 9 }

// Shared values: converting a bool or one of these to a Value allocates
// nothing.
var (
	True      Value = Bool(true)
	False     Value = Bool(false)
	NullValue Value = Null{}
	Empty     Value = String("")
)

// smallInts are the numbers 0 … 1023 as Values, made once.
var smallInts = func() []Value {
	out := make([]Value, 1024)
	for i := range out {
		out[i] = Number(strconv.Itoa(i))
	}
	return out
}()

// Int is the number i.
func Int(i int) Value {
	if i >= 0 && i < len(smallInts) {
		return smallInts[i]
	}
	return Number(strconv.Itoa(i))
}

// Boolean is b as a Value (no allocation).
func Boolean(b bool) Value {
	if b {
		return True
	}
	return False
}

// Int returns n as an int when it is written as an integer that fits
// (fractional zeros allowed: 2.0; exponents not), as OPA reads integers.
func (n Number) Int() (int, bool) {
	i, ok := atoi64(string(n))
	return int(i), ok && int64(int(i)) == i
}

// atoi64 reads an integer as OPA does (util.Atoi64): an optional sign,
// at most 19 digits, then optionally a '.' and zeros.
func atoi64(s string) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" || len(s) > 19 {
		return 0, false
	}
	var n int64
	frac := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !frac:
			frac = true
		case c == '.':
			return 0, false
		case frac && c != '0':
			return 0, false
		case frac:
		case c < '0' || c > '9':
			return 0, false
		default:
			n = n*10 + int64(c-'0')
		}
	}
	if !neg {
		if n < 0 {
			return 0, false
		}
		return n, true
	}
	if n = -n; n > 0 {
		return 0, false
	}
	return n, true
}

// NewArray is an array of elems (which it keeps).
func NewArray(elems ...Value) *Array { return &Array{elems: elems} }

// NewArrayCap is an empty array with room for n elements.
func NewArrayCap(n int) *Array { return &Array{elems: make([]Value, 0, n)} }

// Len is the number of elements.
func (a *Array) Len() int { return len(a.elems) }

// Elem is element i.
func (a *Array) Elem(i int) Value { return a.elems[i] }

// Elems are the elements (not to be changed).
func (a *Array) Elems() []Value { return a.elems }

// Append adds v at the end.
func (a *Array) Append(v Value) { a.elems = append(a.elems, v) }

// NewObject is an empty object with room for n entries.
func NewObject(n int) *Object {
	return &Object{keys: make([]Value, 0, n), vals: make([]Value, 0, n)}
}

// Len is the number of entries.
func (o *Object) Len() int { return len(o.keys) }

// find returns the index of key k, or where it would go.
func (o *Object) find(k Value) (int, bool) {
	if s, ok := k.(String); ok {
		return findString(o.keys, s)
	}
	return slices.BinarySearchFunc(o.keys, k, Compare)
}

// findString is the binary search for a string among sorted values.
func findString(sorted []Value, s String) (int, bool) {
	lo, hi := 0, len(sorted)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		var c int
		if x, ok := sorted[m].(String); ok {
			c = strings.Compare(string(x), string(s))
		} else {
			c = cmp.Compare(sorted[m].rank(), 3)
		}
		switch {
		case c == 0:
			return m, true
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return lo, false
}

// Get returns the value of key k, or nil.
func (o *Object) Get(k Value) Value {
	if i, ok := o.find(k); ok {
		return o.vals[i]
	}
	return nil
}

// GetString returns the value of the string key k, or nil.
func (o *Object) GetString(k string) Value {
	if i, ok := findString(o.keys, String(k)); ok {
		return o.vals[i]
	}
	return nil
}

// Insert sets key k to v (replacing an earlier value).
func (o *Object) Insert(k, v Value) {
	if n := len(o.keys); n == 0 || Compare(o.keys[n-1], k) < 0 {
		o.keys, o.vals = append(o.keys, k), append(o.vals, v)
		return
	}
	i, found := o.find(k)
	if found {
		o.vals[i] = v
		return
	}
	o.keys, o.vals = slices.Insert(o.keys, i, k), slices.Insert(o.vals, i, v)
}

// Entry returns entry i in key order.
func (o *Object) Entry(i int) (k, v Value) { return o.keys[i], o.vals[i] }

// Keys are the keys in order (not to be changed).
func (o *Object) Keys() []Value { return o.keys }

// Merge returns the union of o and p, merging the values of keys both
// have when both are objects; false if a key both have holds anything else
// (as OPA's Object.Merge).
func (o *Object) Merge(p *Object) (*Object, bool) {
	out := NewObject(len(o.keys) + len(p.keys))
	i, j := 0, 0
	for i < len(o.keys) || j < len(p.keys) {
		var c int
		switch {
		case i == len(o.keys):
			c = 1
		case j == len(p.keys):
			c = -1
		default:
			c = Compare(o.keys[i], p.keys[j])
		}
		switch {
		case c < 0:
			out.keys, out.vals = append(out.keys, o.keys[i]), append(out.vals, o.vals[i])
			i++
		case c > 0:
			out.keys, out.vals = append(out.keys, p.keys[j]), append(out.vals, p.vals[j])
			j++
		default:
			a, aok := o.vals[i].(*Object)
			b, bok := p.vals[j].(*Object)
			if !aok || !bok {
				return nil, false
			}
			m, ok := a.Merge(b)
			if !ok {
				return nil, false
			}
			out.keys, out.vals = append(out.keys, o.keys[i]), append(out.vals, m)
			i++
			j++
		}
	}
	return out, true
}

// NewSet is an empty set with room for n elements.
func NewSet(n int) *Set { return &Set{elems: make([]Value, 0, n)} }

// SetOf is the set of elems.
func SetOf(elems ...Value) *Set {
	s := NewSet(len(elems))
	for _, e := range elems {
		s.Add(e)
	}
	return s
}

// Len is the number of elements.
func (s *Set) Len() int { return len(s.elems) }

// Elems are the elements in order (not to be changed).
func (s *Set) Elems() []Value { return s.elems }

func (s *Set) find(v Value) (int, bool) {
	if str, ok := v.(String); ok {
		return findString(s.elems, str)
	}
	return slices.BinarySearchFunc(s.elems, v, Compare)
}

// Contains says whether v is an element.
func (s *Set) Contains(v Value) bool {
	_, ok := s.find(v)
	return ok
}

// Add adds v.
func (s *Set) Add(v Value) {
	if n := len(s.elems); n == 0 || Compare(s.elems[n-1], v) < 0 {
		s.elems = append(s.elems, v)
		return
	}
	if i, found := s.find(v); !found {
		s.elems = slices.Insert(s.elems, i, v)
	}
}

// Compare orders two values as Rego does (OPA's ast.Compare): by type
// (null, booleans, numbers, strings, arrays, objects, sets), then by
// value; arrays, objects (key, then value, entry by entry) and sets
// element by element, then by length. nil sorts first.
func Compare(a, b Value) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	ra, rb := a.rank(), b.rank()
	if ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch a := a.(type) {
	case Null:
		return 0
	case Bool:
		switch b := b.(Bool); {
		case a == b:
			return 0
		case !bool(a):
			return -1
		}
		return 1
	case Number:
		return CompareNumbers(a, b.(Number))
	case String:
		return strings.Compare(string(a), string(b.(String)))
	case *Array:
		return slices.CompareFunc(a.elems, b.(*Array).elems, Compare)
	case *Object:
		b := b.(*Object)
		for i := range min(len(a.keys), len(b.keys)) {
			if c := Compare(a.keys[i], b.keys[i]); c != 0 {
				return c
			}
			if c := Compare(a.vals[i], b.vals[i]); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(a.keys), len(b.keys))
	case *Set:
		return slices.CompareFunc(a.elems, b.(*Set).elems, Compare)
	}
	return 0
}

// Equal says whether a and b are the same value (Compare is 0).
func Equal(a, b Value) bool {
	if x, ok := a.(String); ok {
		y, ok := b.(String)
		return ok && x == y
	}
	return Compare(a, b) == 0
}

// CompareNumbers compares two numbers by value: integers directly,
// others exactly (as rationals); two non-integers equal as float64 are
// equal, as OPA has them.
func CompareNumbers(x, y Number) int {
	if x == y {
		return 0
	}
	if xi, ok := atoi64(string(x)); ok {
		if yi, ok := atoi64(string(y)); ok {
			return cmp.Compare(xi, yi)
		}
	}
	if isFloat(string(x)) && isFloat(string(y)) {
		xf, xe := strconv.ParseFloat(string(x), 64)
		yf, ye := strconv.ParseFloat(string(y), 64)
		if xe == nil && ye == nil && xf == yf && (strings.ContainsAny(string(x), "eE") || strings.ContainsAny(string(y), "eE")) {
			return 0
		}
	}
	a, aok := new(big.Rat).SetString(string(x))
	b, bok := new(big.Rat).SetString(string(y))
	switch {
	case aok && bok:
		return a.Cmp(b)
	case aok:
		return 1
	case bok:
		return -1
	}
	return strings.Compare(string(x), string(y))
}

// isFloat says whether a number's text has a fractional part that is not
// all zeros.
func isFloat(s string) bool {
	i := strings.IndexByte(s, '.')
	if i < 0 {
		return false
	}
	frac := s[i+1:]
	if e := strings.IndexAny(frac, "eE"); e >= 0 {
		frac = frac[:e]
	}
	return strings.Trim(frac, "0") != ""
}
