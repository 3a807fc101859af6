//go:build !toolgate_small

package irvm

import (
	"crypto/rand"
	"fmt"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"

	"github.com/toolgate/toolgate/internal/value"
)

// OPA's built-ins serve what natives.go does not implement: operands are
// converted to OPA's values and the result back.
func init() {
	fallback = func(name string) (fallbackFunc, bool) {
		f := topdown.GetBuiltin(name)
		if f == nil {
			return nil, false
		}
		now := name == "time.now_ns" || name == "io.jwt.decode_verify"
		return opaBuiltin(f), now
	}
}

var capabilities = sync.OnceValue(func() *ast.Capabilities { return ast.CapabilitiesForThisVersion() })

func opaBuiltin(f topdown.BuiltinFunc) fallbackFunc {
	return func(env *Env, args []value.Value) (value.Value, error) {
		bctx, _ := env.State.(*topdown.BuiltinContext)
		if bctx == nil {
			// one context an evaluation, as topdown has: one cache, one
			// clock reading, the random source topdown uses by default
			bctx = &topdown.BuiltinContext{
				Context:      env.Ctx,
				Cache:        builtins.Cache{},
				Capabilities: capabilities(),
				Seed:         rand.Reader,
			}
			if env.NeedsNow() {
				bctx.Time = ast.InternedTerm(time.Now().UnixNano())
			}
			env.State = bctx
		}
		terms := make([]*ast.Term, len(args))
		for i, a := range args {
			terms[i] = ast.NewTerm(ASTValue(a))
		}
		var out *ast.Term
		if err := f(*bctx, terms, func(t *ast.Term) error {
			out = t
			return nil
		}); err != nil {
			return nil, err
		}
		if out == nil {
			return nil, nil
		}
		return FromAST(out.Value)
	}
}

// ASTValue is v as OPA's value.
func ASTValue(v value.Value) ast.Value {
	switch v := v.(type) {
	case value.Null:
		return ast.Null{}
	case value.Bool:
		return ast.Boolean(v)
	case value.Number:
		return ast.Number(v)
	case value.String:
		return ast.String(v)
	case *value.Array:
		terms := make([]*ast.Term, v.Len())
		for i, e := range v.Elems() {
			terms[i] = ast.NewTerm(ASTValue(e))
		}
		return ast.NewArray(terms...)
	case *value.Object:
		pairs := make([][2]*ast.Term, v.Len())
		for i := range v.Len() {
			k, x := v.Entry(i)
			pairs[i] = [2]*ast.Term{ast.NewTerm(ASTValue(k)), ast.NewTerm(ASTValue(x))}
		}
		return ast.NewObject(pairs...)
	case *value.Set:
		terms := make([]*ast.Term, v.Len())
		for i, e := range v.Elems() {
			terms[i] = ast.NewTerm(ASTValue(e))
		}
		return ast.NewSet(terms...)
	}
	return nil
}

// FromAST is OPA's value as toolgate's; only values (no references,
// variables or comprehensions) convert.
func FromAST(v ast.Value) (value.Value, error) {
	switch v := v.(type) {
	case ast.Null:
		return value.NullValue, nil
	case ast.Boolean:
		return value.Boolean(bool(v)), nil
	case ast.Number:
		return value.Number(v), nil
	case ast.String:
		return value.String(v), nil
	case *ast.Array:
		out := make([]value.Value, v.Len())
		for i := range v.Len() {
			e, err := FromAST(v.Elem(i).Value)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return value.NewArray(out...), nil
	case ast.Object:
		out := value.NewObject(v.Len())
		var err error
		v.Until(func(k, x *ast.Term) bool {
			var kv, xv value.Value
			if kv, err = FromAST(k.Value); err != nil {
				return true
			}
			if xv, err = FromAST(x.Value); err != nil {
				return true
			}
			out.Insert(kv, xv)
			return false
		})
		return out, err
	case ast.Set:
		out := value.NewSet(v.Len())
		var err error
		v.Until(func(x *ast.Term) bool {
			var xv value.Value
			if xv, err = FromAST(x.Value); err != nil {
				return true
			}
			out.Add(xv)
			return false
		})
		return out, err
	}
	return nil, fmt.Errorf("%s is not a value", ast.ValueName(v))
}
