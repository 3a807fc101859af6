//go:build !toolgate_small

package value_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/toolgate/toolgate/internal/irvm"
	"github.com/toolgate/toolgate/internal/value"
)

// samples are Rego values of every type, with the cases Rego's order
// and OPA's printing have to get right: numbers written several ways,
// big and negative, strings outside ASCII, nested and empty composites,
// objects and sets built out of order, keys that are not strings.
var samples = []string{
	`null`, `true`, `false`,
	`0`, `1`, `-1`, `2`, `10`, `1.5`, `1.50`, `1e3`, `1000`, `-0.5`, `3.0`, `0.1`, `1E-1`,
	`9223372036854775807`, `9223372036854775808`, `-9223372036854775809`, `123456789012345678901234567890`,
	`""`, `"a"`, `"b"`, `"ab"`, `"A"`, `"é"`, `"/etc/passwd"`, `"a\nb"`, `"\u0000"`,
	`[]`, `["a"]`, `[1, "a"]`, `["a", 1]`, `[["a"]]`, `[null, true]`, `[1, 1]`,
	`{}`, `{"a": 1}`, `{"b": 1, "a": 2}`, `{"a": 2, "b": 1}`, `{"a": {"b": [1]}}`, `{1: "x", "1": "y"}`, `{"a": 1, "b": 1, "c": 1}`,
	`set()`, `{"a"}`, `{"b", "a"}`, `{1, "a", null}`, `{{"x"}, set()}`, `{[1], [0, 2]}`,
}

func parse(t testing.TB, s string) (ast.Value, value.Value) {
	t.Helper()
	a := ast.MustParseTerm(s).Value
	v, err := irvm.FromAST(a)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return a, v
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// TestCompareAgreesWithOPA: every pair of samples orders as OPA orders it
// and is equal when OPA says so; the text form is OPA's; conversions
// round-trip.
func TestCompareAgreesWithOPA(t *testing.T) {
	for _, x := range samples {
		ax, vx := parse(t, x)
		if got, want := value.Text(vx), ax.String(); got != want {
			t.Errorf("text of %s: %s, OPA %s", x, got, want)
		}
		if back := irvm.ASTValue(vx); back.Compare(ax) != 0 {
			t.Errorf("%s converts back to %v", x, back)
		}
		for _, y := range samples {
			ay, vy := parse(t, y)
			if got, want := sign(value.Compare(vx, vy)), sign(ast.Compare(ax, ay)); got != want {
				t.Errorf("Compare(%s, %s) = %d, OPA %d", x, y, got, want)
			}
			if got, want := value.Equal(vx, vy), ax.Compare(ay) == 0; got != want {
				t.Errorf("Equal(%s, %s) = %v, OPA %v", x, y, got, want)
			}
		}
	}
}

// TestObjectsAndSets: entries and elements stay in Rego's order whatever
// the order they are added in; look-ups, replacement and merge behave as
// OPA's.
func TestObjectsAndSets(t *testing.T) {
	keys := []value.Value{value.String("m"), value.Int(3), value.String("a"), value.NullValue, value.String("z"), value.Int(1), value.String("a")}
	o := value.NewObject(0)
	s := value.NewSet(0)
	ao := ast.NewObject()
	as := ast.NewSet()
	for i, k := range keys {
		o.Insert(k, value.Int(i))
		s.Add(k)
		ao.Insert(ast.NewTerm(irvm.ASTValue(k)), ast.InternedTerm(i))
		as.Add(ast.NewTerm(irvm.ASTValue(k)))
	}
	if got, want := value.Text(o), ao.String(); got != want {
		t.Errorf("object %s, OPA %s", got, want)
	}
	if got, want := value.Text(s), as.String(); got != want {
		t.Errorf("set %s, OPA %s", got, want)
	}
	if v := o.Get(value.String("a")); !value.Equal(v, value.Int(6)) {
		t.Errorf("the replaced key holds %v", v)
	}
	if o.GetString("nope") != nil || o.Get(value.Int(2)) != nil || s.Contains(value.String("nope")) {
		t.Error("a key that is not there was found")
	}
	if !s.Contains(value.NullValue) || !s.Contains(value.Int(3)) || s.Len() != 6 {
		t.Errorf("set %s", value.Text(s))
	}
	for _, pair := range [][2]string{
		{`{"a": 1}`, `{"b": 2}`},
		{`{"a": {"x": 1}}`, `{"a": {"y": 2}, "c": 3}`},
		{`{"a": 1}`, `{"a": 1}`},
		{`{"a": {"x": 1}}`, `{"a": {"x": 2}}`},
		{`{"a": 1}`, `{"a": 2}`},
	} {
		ax, vx := parse(t, pair[0])
		ay, vy := parse(t, pair[1])
		am, aok := ax.(ast.Object).Merge(ay.(ast.Object))
		vm, vok := vx.(*value.Object).Merge(vy.(*value.Object))
		if aok != vok || (aok && value.Text(vm) != am.String()) {
			t.Errorf("merge %s %s: %v %v, OPA %v %v", pair[0], pair[1], vm, vok, am, aok)
		}
	}
}

func TestGoConversions(t *testing.T) {
	var doc any
	src := `{"b": [1, 2.5, "x", null, true], "a": {"k": {}}, "n": 12345678901234567890}`
	dec := json.NewDecoder(strings.NewReader(src))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	v, err := value.FromGo(doc)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := value.Text(v), ast.MustParseTerm(src).Value.String(); got != want {
		t.Errorf("FromGo: %s, want %s", got, want)
	}
	back, err := value.ToGo(v)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, doc) {
		t.Errorf("ToGo: %#v, want %#v", back, doc)
	}
	if _, err := value.FromGo(json.Number("1x")); err == nil {
		t.Error("a malformed number was accepted")
	}
	if v, err := value.FromGo(json.Number("1e400")); err != nil || v != value.Number("1e400") {
		t.Errorf("a number past float64 (which OPA keeps): %v, %v", v, err)
	}
	if _, err := value.FromGo(struct{}{}); err == nil {
		t.Error("a struct was accepted")
	}
	// sets become arrays, non-string keys their JSON text (as OPA's ast.JSON)
	_, sv := parse(t, `{"s": {"b", "a"}, 1: true}`)
	got, err := value.ToGo(sv)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"s": []any{"a", "b"}, "1": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ToGo %#v, want %#v", got, want)
	}
}

// TestKeys: equal values have equal keys, different values different
// ones (the decision cache relies on both).
func TestKeys(t *testing.T) {
	seen := map[string]string{}
	for _, x := range samples {
		_, v := parse(t, x)
		k := string(value.AppendKey(nil, v))
		if prev, ok := seen[k]; ok {
			if _, pv := parse(t, prev); !value.Equal(pv, v) {
				t.Errorf("%s and %s share a key", prev, x)
			}
		}
		seen[k] = x
	}
	_, a := parse(t, `{"b": 1, "a": [2]}`)
	_, b := parse(t, `{"a": [2], "b": 1}`)
	if string(value.AppendKey(nil, a)) != string(value.AppendKey(nil, b)) {
		t.Error("equal objects have different keys")
	}
	// a string that looks like an encoding is not confused with one
	_, c := parse(t, `["a", "b"]`)
	_, d := parse(t, `["a\"1:b"]`)
	if string(value.AppendKey(nil, c)) == string(value.AppendKey(nil, d)) {
		t.Error("different arrays share a key")
	}
}
