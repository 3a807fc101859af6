//go:build !toolgate_small

package irvm

import (
	"math/big"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/toolgate/toolgate/internal/value"
)

// operands are the values every native built-in is called with, in every
// position: each type, and the strings, numbers, patterns and
// collections the built-ins treat specially.
var operands = []string{
	`null`, `true`, `0`, `1`, `2`, `-1`, `3`, `1.5`, `2.0`, `1e2`, `9223372036854775807`, `12345678901234567890`,
	`""`, `"a"`, `"ab"`, `"abc"`, `"b"`, `"é"`, `"héllo"`, `"/"`, `"."`, `"a.b"`, `"a/b/c"`, `"*.go"`, `"**/x"`, `"[a-"`,
	`"^a"`, `"(x"`, `"%s-%d"`, `"%v"`, `"%q"`, `"ABC"`, `"x.go"`, `"src/main.go"`,
	`[]`, `["a"]`, `["a", "b"]`, `["b", "a", "a"]`, `[1, "a"]`, `["/"]`, `["/", "."]`, `[2, 1, 3]`, `[["x"]]`,
	`{}`, `{"a": 1}`, `{"a": {"b": "c"}}`, `{"b": 2, "a": 1}`,
	`set()`, `{"a"}`, `{"a", "b"}`, `{1, 2}`, `{"b", 3}`,
}

// TestNativesAgree calls each native built-in with every combination of
// operands and wants OPA's answer: the same value, an error where OPA
// errs (messages may differ), undefined where OPA is undefined.
func TestNativesAgree(t *testing.T) {
	vals := make([]value.Value, len(operands))
	terms := make([]*ast.Term, len(operands))
	for i, s := range operands {
		terms[i] = ast.MustParseTerm(s)
		v, err := FromAST(terms[i].Value)
		if err != nil {
			t.Fatal(err)
		}
		vals[i] = v
	}
	bctx := topdown.BuiltinContext{Context: t.Context(), Capabilities: ast.CapabilitiesForThisVersion()}
	checked := 0
	for name, n := range natives {
		opa := topdown.GetBuiltin(name)
		if opa == nil {
			t.Errorf("OPA has no built-in %s", name)
			continue
		}
		idx := make([]int, n.arity)
		for {
			args := make([]value.Value, n.arity)
			targs := make([]*ast.Term, n.arity)
			for i, j := range idx {
				args[i], targs[i] = vals[j], terms[j]
			}
			got, gotErr := n.fn(args)
			if name == "numbers.range" && hugeRange(args) {
				// OPA counts until it is cancelled; the native refuses
				if gotErr == nil {
					t.Errorf("numbers.range%v was not refused", operandsText(targs))
				}
				goto next
			}
			{
				var want *ast.Term
				wantErr := opa(bctx, targs, func(t *ast.Term) error { want = t; return nil })
				switch {
				case (gotErr != nil) != (wantErr != nil):
					t.Errorf("%s%v: error %v, OPA %v", name, operandsText(targs), gotErr, wantErr)
				case gotErr != nil:
				case (got == nil) != (want == nil):
					t.Errorf("%s%v: %v, OPA %v", name, operandsText(targs), got, want)
				case got != nil && ASTValue(got).Compare(want.Value) != 0:
					t.Errorf("%s%v: %s, OPA %v", name, operandsText(targs), value.Text(got), want)
				}
			}
			checked++
		next:
			// next combination
			k := len(idx) - 1
			for k >= 0 {
				idx[k]++
				if idx[k] < len(vals) {
					break
				}
				idx[k] = 0
				k--
			}
			if k < 0 {
				break
			}
		}
	}
	if checked < 10000 {
		t.Errorf("only %d calls compared", checked)
	}
}

func operandsText(ts []*ast.Term) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.String()
	}
	return out
}

func hugeRange(args []value.Value) bool {
	x, xok := args[0].(value.Number)
	y, yok := args[1].(value.Number)
	if !xok || !yok {
		return false
	}
	a, aok := new(big.Float).SetString(string(x))
	b, bok := new(big.Float).SetString(string(y))
	if !aok || !bok {
		return false
	}
	d := new(big.Float).Sub(a, b)
	return d.Abs(d).Cmp(big.NewFloat(maxRange)) > 0
}
