package irvm

import (
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// builtin is a resolved built-in function: native first (when it handles
// the operands), OPA's otherwise.
type builtin struct {
	native nativeFunc
	opa    topdown.BuiltinFunc
}

// nativeFunc computes a built-in for the operands it knows. ok false
// hands the call to OPA's implementation, which then gives the same
// result or the same error topdown would.
type nativeFunc func(args []*ast.Term) (out *ast.Term, ok bool, err error)

// natives are the hot built-ins of ordinary policies, on their common
// operand types only.
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
}

func strings2(f func(string, string) bool) nativeFunc {
	return func(args []*ast.Term) (*ast.Term, bool, error) {
		a, aok := args[0].Value.(ast.String)
		b, bok := args[1].Value.(ast.String)
		if !aok || !bok {
			return nil, false, nil
		}
		return ast.InternedTerm(f(string(a), string(b))), true, nil
	}
}

func compare(f func(int) bool) nativeFunc {
	return func(args []*ast.Term) (*ast.Term, bool, error) {
		return ast.InternedTerm(f(ast.Compare(args[0].Value, args[1].Value))), true, nil
	}
}

func member(args []*ast.Term) (*ast.Term, bool, error) {
	x := args[0]
	switch c := args[1].Value.(type) {
	case ast.Set:
		return ast.InternedTerm(c.Contains(x)), true, nil
	case *ast.Array:
		for i := 0; i < c.Len(); i++ {
			if c.Elem(i).Equal(x) {
				return ast.InternedTerm(true), true, nil
			}
		}
		return ast.InternedTerm(false), true, nil
	case ast.Object:
		found := c.Until(func(_, v *ast.Term) bool { return v.Equal(x) })
		return ast.InternedTerm(found), true, nil
	}
	return nil, false, nil
}

func count(args []*ast.Term) (*ast.Term, bool, error) {
	n, ok := length(args[0].Value)
	if !ok {
		return nil, false, nil
	}
	return ast.InternedTerm(n), true, nil
}
