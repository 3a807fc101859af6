package irvm

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gobwas/glob"

	"github.com/toolgate/toolgate/internal/value"
)

// nativeFunc is a built-in implemented here, on toolgate's values. It
// gives what OPA's implementation gives: the same value, an error where
// OPA has one (with strict built-in errors, an error stops the
// evaluation), nil where OPA is undefined.
type nativeFunc func(args []value.Value) (value.Value, error)

// natives are the built-ins of toolgate's default policy (every one its
// plan calls), and a few more of the commonest. TestNativesAgree compares
// each with OPA's on a spread of operands.
var natives = map[string]struct {
	arity int
	fn    nativeFunc
}{
	"startswith":        {2, strings2(strings.HasPrefix)},
	"endswith":          {2, strings2(strings.HasSuffix)},
	"contains":          {2, strings2(strings.Contains)},
	"internal.member_2": {2, member},
	"count":             {1, count},
	"gt":                {2, compare(func(c int) bool { return c > 0 })},
	"gte":               {2, compare(func(c int) bool { return c >= 0 })},
	"lt":                {2, compare(func(c int) bool { return c < 0 })},
	"lte":               {2, compare(func(c int) bool { return c <= 0 })},
	"equal":             {2, compare(func(c int) bool { return c == 0 })},
	"neq":               {2, compare(func(c int) bool { return c != 0 })},
	"array.concat":      {2, arrayConcat},
	"array.slice":       {3, arraySlice},
	"concat":            {2, concat},
	"lower":             {1, stringMap(strings.ToLower)},
	"upper":             {1, stringMap(strings.ToUpper)},
	"split":             {2, split},
	"sprintf":           {2, sprintf},
	"substring":         {3, substring},
	"trim_prefix":       {2, trim(strings.TrimPrefix)},
	"trim_suffix":       {2, trim(strings.TrimSuffix)},
	"glob.match":        {3, globMatch},
	"regex.match":       {2, regexMatch},
	"sort":              {1, sortValues},
	"object.get":        {3, objectGet},
	"or":                {2, union},
	"plus":              {2, arith(false)},
	"minus":             {2, minus},
	"numbers.range":     {2, numbersRange},
	"is_string":         {1, isKind[value.String]},
	"is_number":         {1, isKind[value.Number]},
	"is_array":          {1, isKind[*value.Array]},
	"is_object":         {1, isKind[*value.Object]},
	"is_set":            {1, isKind[*value.Set]},
	"is_boolean":        {1, isKind[value.Bool]},
	"is_null":           {1, isKind[value.Null]},
}

// operandError is OPA's wording for an operand of the wrong type.
func operandError(pos int, got value.Value, want ...string) error {
	return fmt.Errorf("operand %d must be %s but got %s", pos, strings.Join(want, " or "), typeName(got))
}

func typeName(v value.Value) string {
	switch v.(type) {
	case value.Null:
		return "null"
	case value.Bool:
		return "boolean"
	case value.Number:
		return "number"
	case value.String:
		return "string"
	case *value.Array:
		return "array"
	case *value.Object:
		return "object"
	case *value.Set:
		return "set"
	}
	return "undefined"
}

func str(args []value.Value, i int) (string, error) {
	s, ok := args[i].(value.String)
	if !ok {
		return "", operandError(i+1, args[i], "string")
	}
	return string(s), nil
}

func integer(args []value.Value, i int) (int, error) {
	n, ok := args[i].(value.Number)
	if !ok {
		return 0, operandError(i+1, args[i], "number")
	}
	v, ok := n.Int()
	if !ok {
		return 0, fmt.Errorf("operand %d must be integer number but got floating-point number", i+1)
	}
	return v, nil
}

func strings2(f func(string, string) bool) nativeFunc {
	return func(args []value.Value) (value.Value, error) {
		a, err := str(args, 0)
		if err != nil {
			return nil, err
		}
		b, err := str(args, 1)
		if err != nil {
			return nil, err
		}
		return value.Boolean(f(a, b)), nil
	}
}

func stringMap(f func(string) string) nativeFunc {
	return func(args []value.Value) (value.Value, error) {
		s, err := str(args, 0)
		if err != nil {
			return nil, err
		}
		if out := f(s); out != s {
			return value.String(out), nil
		}
		return args[0], nil
	}
}

func trim(f func(string, string) string) nativeFunc {
	return func(args []value.Value) (value.Value, error) {
		s, err := str(args, 0)
		if err != nil {
			return nil, err
		}
		p, err := str(args, 1)
		if err != nil {
			return nil, err
		}
		if out := f(s, p); out != s {
			return value.String(out), nil
		}
		return args[0], nil
	}
}

func compare(f func(int) bool) nativeFunc {
	return func(args []value.Value) (value.Value, error) {
		return value.Boolean(f(value.Compare(args[0], args[1]))), nil
	}
}

func isKind[T value.Value](args []value.Value) (value.Value, error) {
	_, ok := args[0].(T)
	return value.Boolean(ok), nil
}

func member(args []value.Value) (value.Value, error) {
	x := args[0]
	switch c := args[1].(type) {
	case *value.Set:
		return value.Boolean(c.Contains(x)), nil
	case *value.Array:
		for _, e := range c.Elems() {
			if value.Equal(e, x) {
				return value.True, nil
			}
		}
	case *value.Object:
		for i := range c.Len() {
			if _, v := c.Entry(i); value.Equal(v, x) {
				return value.True, nil
			}
		}
	}
	return value.False, nil
}

func count(args []value.Value) (value.Value, error) {
	n, ok := length(args[0])
	if !ok {
		return nil, operandError(1, args[0], "array", "object", "set", "string")
	}
	return value.Int(n), nil
}

func arrayConcat(args []value.Value) (value.Value, error) {
	a, ok := args[0].(*value.Array)
	if !ok {
		return nil, operandError(1, args[0], "array")
	}
	b, ok := args[1].(*value.Array)
	if !ok {
		return nil, operandError(2, args[1], "array")
	}
	switch {
	case a.Len() == 0:
		return b, nil
	case b.Len() == 0:
		return a, nil
	}
	out := make([]value.Value, 0, a.Len()+b.Len())
	out = append(append(out, a.Elems()...), b.Elems()...)
	return value.NewArray(out...), nil
}

func arraySlice(args []value.Value) (value.Value, error) {
	a, ok := args[0].(*value.Array)
	if !ok {
		return nil, operandError(1, args[0], "array")
	}
	start, err := integer(args, 1)
	if err != nil {
		return nil, err
	}
	stop, err := integer(args, 2)
	if err != nil {
		return nil, err
	}
	l := a.Len()
	stop = max(0, min(stop, l))
	start = max(0, min(start, stop))
	if start == 0 && stop >= l {
		return a, nil
	}
	return value.NewArray(a.Elems()[start:stop:stop]...), nil
}

func concat(args []value.Value) (value.Value, error) {
	sep, err := str(args, 0)
	if err != nil {
		return nil, err
	}
	var elems []value.Value
	switch c := args[1].(type) {
	case *value.Array:
		elems = c.Elems()
	case *value.Set:
		elems = c.Elems()
	default:
		return nil, operandError(2, args[1], "set", "array")
	}
	if len(elems) == 1 {
		if _, ok := elems[0].(value.String); ok {
			return elems[0], nil
		}
	}
	var b strings.Builder
	for i, e := range elems {
		s, ok := e.(value.String)
		if !ok {
			return nil, fmt.Errorf("operand 2 must be array of strings but got %s containing %s", typeName(args[1]), typeName(e))
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(string(s))
	}
	return value.String(b.String()), nil
}

func split(args []value.Value) (value.Value, error) {
	s, err := str(args, 0)
	if err != nil {
		return nil, err
	}
	d, err := str(args, 1)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(s, d) {
		return value.NewArray(args[0]), nil
	}
	parts := strings.Split(s, d)
	out := make([]value.Value, len(parts))
	for i, p := range parts {
		out[i] = value.String(p)
	}
	return value.NewArray(out...), nil
}

// sprintf formats as OPA's: strings and numbers as Go values (integers as
// integers, other numbers as float64), anything else in Rego's text form.
func sprintf(args []value.Value) (value.Value, error) {
	format, err := str(args, 0)
	if err != nil {
		return nil, err
	}
	a, ok := args[1].(*value.Array)
	if !ok {
		return nil, operandError(2, args[1], "array")
	}
	vals := make([]any, a.Len())
	for i, e := range a.Elems() {
		switch v := e.(type) {
		case value.String:
			vals[i] = string(v)
		case value.Number:
			vals[i] = numberArg(string(v))
		default:
			vals[i] = value.Text(v)
		}
	}
	return value.String(fmt.Sprintf(format, vals...)), nil
}

func numberArg(ns string) any {
	if isFloatText(ns) {
		if f, err := strconv.ParseFloat(ns, 64); err == nil {
			return f
		}
		return ns
	}
	if x, err := strconv.ParseInt(ns, 10, 64); err == nil {
		return x
	}
	if b, ok := new(big.Int).SetString(ns, 10); ok {
		return b
	}
	return ns
}

// isFloatText is OPA's test for a number written as a float: a '.' or an
// exponent.
func isFloatText(s string) bool { return strings.ContainsAny(s, ".eE") }

func substring(args []value.Value) (value.Value, error) {
	s, err := str(args, 0)
	if err != nil {
		return nil, err
	}
	start, err := integer(args, 1)
	if err != nil {
		return nil, err
	}
	n, err := integer(args, 2)
	if err != nil {
		return nil, err
	}
	if start < 0 {
		return nil, errors.New("negative offset")
	}
	if s == "" {
		return value.Empty, nil
	}
	runes := []rune(s)
	if isASCII(s) {
		runes = nil
	}
	l := len(s)
	if runes != nil {
		l = len(runes)
	}
	if start >= l {
		return value.Empty, nil
	}
	if start == 0 && n >= l {
		return args[0], nil
	}
	end := l
	if n >= 0 {
		end = start + min(n, l-start)
	}
	if runes != nil {
		return value.String(string(runes[start:end])), nil
	}
	return value.String(s[start:end]), nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Compiled patterns are kept, as OPA keeps them, bounded.
var (
	patternMu sync.RWMutex
	globs     = map[string]*glob.Pattern{}
	regexps   = map[string]*regexp.Regexp{}
)

const maxPatterns = 1000

func globMatch(args []value.Value) (value.Value, error) {
	pattern, err := str(args, 0)
	if err != nil {
		return nil, err
	}
	var delims []rune
	switch d := args[1].(type) {
	case value.Null:
		delims = []rune{}
	case *value.Array:
		for _, e := range d.Elems() {
			s, ok := e.(value.String)
			if !ok || utf8.RuneCountInString(string(s)) != 1 {
				return nil, fmt.Errorf("operand 2 must be array of single-character strings")
			}
			r, _ := utf8.DecodeRuneInString(string(s))
			delims = append(delims, r)
		}
		if len(delims) == 0 {
			delims = []rune{'.'}
		}
	default:
		return nil, operandError(2, args[1], "array", "null")
	}
	match, err := str(args, 2)
	if err != nil {
		return nil, err
	}
	id := pattern + "-" + string(delims)
	patternMu.RLock()
	p := globs[id]
	patternMu.RUnlock()
	if p == nil {
		if p, err = glob.Compile(pattern, delims...); err != nil {
			return nil, err
		}
		patternMu.Lock()
		if len(globs) >= maxPatterns {
			clear(globs)
		}
		globs[id] = p
		patternMu.Unlock()
	}
	return value.Boolean(p.Match(match)), nil
}

func regexMatch(args []value.Value) (value.Value, error) {
	pattern, err := str(args, 0)
	if err != nil {
		return nil, err
	}
	s, err := str(args, 1)
	if err != nil {
		return nil, err
	}
	patternMu.RLock()
	re := regexps[pattern]
	patternMu.RUnlock()
	if re == nil {
		if re, err = regexp.Compile(pattern); err != nil {
			return nil, err
		}
		patternMu.Lock()
		if len(regexps) >= maxPatterns {
			clear(regexps)
		}
		regexps[pattern] = re
		patternMu.Unlock()
	}
	return value.Boolean(re.MatchString(s)), nil
}

func sortValues(args []value.Value) (value.Value, error) {
	switch c := args[0].(type) {
	case *value.Array:
		out := slices.Clone(c.Elems())
		slices.SortStableFunc(out, value.Compare)
		return value.NewArray(out...), nil
	case *value.Set:
		return value.NewArray(slices.Clone(c.Elems())...), nil
	}
	return nil, operandError(1, args[0], "set", "array")
}

func objectGet(args []value.Value) (value.Value, error) {
	obj, ok := args[0].(*value.Object)
	if !ok {
		return nil, operandError(1, args[0], "object")
	}
	path, ok := args[1].(*value.Array)
	if !ok {
		if v := obj.Get(args[1]); v != nil {
			return v, nil
		}
		return args[2], nil
	}
	cur := args[0]
	for _, k := range path.Elems() {
		if cur = get(cur, k); cur == nil {
			return args[2], nil
		}
	}
	return cur, nil
}

func union(args []value.Value) (value.Value, error) {
	a, ok := args[0].(*value.Set)
	if !ok {
		return nil, operandError(1, args[0], "set")
	}
	b, ok := args[1].(*value.Set)
	if !ok {
		return nil, operandError(2, args[1], "set")
	}
	out := value.NewSet(a.Len() + b.Len())
	for _, e := range a.Elems() {
		out.Add(e)
	}
	for _, e := range b.Elems() {
		out.Add(e)
	}
	return out, nil
}

func minus(args []value.Value) (value.Value, error) {
	_, n1 := args[0].(value.Number)
	_, n2 := args[1].(value.Number)
	if n1 && n2 {
		return arith(true)(args)
	}
	s1, ok1 := args[0].(*value.Set)
	s2, ok2 := args[1].(*value.Set)
	if ok1 && ok2 {
		out := value.NewSet(s1.Len())
		for _, e := range s1.Elems() {
			if !s2.Contains(e) {
				out.Add(e)
			}
		}
		return out, nil
	}
	switch {
	case !n1 && !ok1:
		return nil, operandError(1, args[0], "number", "set")
	case n1:
		return nil, operandError(2, args[1], "number")
	}
	return nil, operandError(2, args[1], "set")
}

// arith adds (or subtracts) two numbers as OPA does: integers exactly,
// anything else as big floats written back in the shortest form.
func arith(sub bool) nativeFunc {
	return func(args []value.Value) (value.Value, error) {
		x, ok := args[0].(value.Number)
		if !ok {
			return nil, operandError(1, args[0], "number")
		}
		y, ok := args[1].(value.Number)
		if !ok {
			return nil, operandError(2, args[1], "number")
		}
		xi, xerr := strconv.ParseInt(string(x), 10, 64)
		yi, yerr := strconv.ParseInt(string(y), 10, 64)
		if xerr == nil && yerr == nil {
			if sub {
				yi = -yi
			}
			if r := xi + yi; yi != math.MinInt64 && (r > xi) == (yi > 0) {
				return value.Number(strconv.FormatInt(r, 10)), nil
			}
		}
		if !isFloatText(string(x)) && !isFloatText(string(y)) {
			a, aok := new(big.Int).SetString(string(x), 10)
			b, bok := new(big.Int).SetString(string(y), 10)
			if aok && bok {
				if sub {
					return value.Number(a.Sub(a, b).String()), nil
				}
				return value.Number(a.Add(a, b).String()), nil
			}
		}
		a, aok := new(big.Float).SetString(string(x))
		b, bok := new(big.Float).SetString(string(y))
		if !aok || !bok {
			return nil, errors.New("illegal number")
		}
		if sub {
			a.Sub(a, b)
		} else {
			a.Add(a, b)
		}
		format := byte('g')
		if a.IsInt() {
			format = 'f'
		}
		return value.Number(a.Text(format, -1)), nil
	}
}

// maxRange bounds numbers.range: OPA would generate until the evaluation
// is cancelled; a range this long is refused at once.
const maxRange = 1 << 22

func numbersRange(args []value.Value) (value.Value, error) {
	x, err := bigInteger(args, 0)
	if err != nil {
		return nil, err
	}
	y, err := bigInteger(args, 1)
	if err != nil {
		return nil, err
	}
	n := new(big.Int).Sub(y, x)
	step := big.NewInt(1)
	if n.Sign() < 0 {
		n.Neg(n)
		step.SetInt64(-1)
	}
	if !n.IsInt64() || n.Int64() > maxRange {
		return nil, errors.New("numbers.range: the range is too long")
	}
	out := make([]value.Value, n.Int64()+1)
	i := new(big.Int).Set(x)
	for k := range out {
		if i.IsInt64() && i.Int64() >= 0 && i.Int64() < 1024 {
			out[k] = value.Int(int(i.Int64()))
		} else {
			out[k] = value.Number(i.String())
		}
		i.Add(i, step)
	}
	return value.NewArray(out...), nil
}

// bigInteger reads an integer operand as OPA's numbers.range does: any
// number whose value is an integer (1e2 included), exactly.
func bigInteger(args []value.Value, i int) (*big.Int, error) {
	n, ok := args[i].(value.Number)
	if !ok {
		return nil, operandError(i+1, args[i], "integer")
	}
	if b, ok := new(big.Int).SetString(string(n), 10); ok {
		return b, nil
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() {
		return nil, fmt.Errorf("operand %d must be integer number but got floating-point number", i+1)
	}
	return new(big.Int).Set(r.Num()), nil
}
