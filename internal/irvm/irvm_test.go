//go:build !toolgate_small

package irvm_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/util"

	"github.com/toolgate/toolgate/internal/irvm"
	"github.com/toolgate/toolgate/internal/value"
)

// module exercises what the planner emits for ordinary policies: partial
// sets and objects, complete rules with else and default, functions with
// several bodies, comprehensions, every, not, some ... in, built-ins
// (native and OPA's), and references into data.
const module = `package p

import rego.v1

default allow := false

allow if {
	input.user == "alice"
	not denied
}

denied if input.path in data.blocked

deny contains msg if {
	some c in input.cmds
	startswith(c.name, "rm")
	msg := sprintf("%s removes %v", [c.name, c.args])
}

deny contains msg if {
	some i, c in input.cmds
	count(c.args) > 2
	msg := sprintf("command %d has %d arguments", [i, count(c.args)])
}

deny contains "empty" if count(input.cmds) == 0

level := "high" if {
	input.n > 10
} else := "mid" if {
	input.n > 5
} else := "low"

kind(x) := "str" if is_string(x)
kind(x) := "num" if is_number(x)
kind(x) := "other" if {
	not is_string(x)
	not is_number(x)
}

kinds := [kind(x) | some x in input.values]

by_name[name] := n if {
	some c in input.cmds
	name := c.name
	n := count([a | some a in c.args; contains(a, "-")])
}

default all_short := false

all_short if {
	every c in input.cmds {
		count(c.name) < 4
	}
}

names := {c.name | some c in input.cmds}

joined := concat(",", names)

first_arg := input.cmds[0].args[0]

default glob_hit := false

glob_hit if glob.match("*.go", ["/"], input.path)

default re_hit := false

re_hit if regex.match("^/etc/", input.path)

default lowered := ""

lowered := lower(input.user) if is_string(input.user)

default sliced := []

sliced := array.slice(split(input.path, "/"), 1, 3) if is_string(input.path)

union := names | {"x"}

obj := object.get(input, ["deep", "er"], "missing")

default nums := []

nums := numbers.range(1, input.n) if is_number(input.n)

default sum_two := 0

sum_two := input.n + 2 if is_number(input.n)

nested := {"a": {"b": [1, {"c": input.user}]}}

conflict := input.user if input.n > 100
conflict := input.path if input.n > 100

result := {
	"allow": allow,
	"deny": deny,
	"level": level,
	"kinds": kinds,
	"by_name": by_name,
	"all_short": all_short,
	"joined": joined,
	"names": names,
	"glob": glob_hit,
	"re": re_hit,
	"lowered": lowered,
	"sliced": sliced,
	"union": union,
	"obj": obj,
	"first_arg": object.get(input, ["cmds", 0, "args", 0], null),
	"nums": nums,
	"sum": sum_two,
	"nested": nested,
}
`

var inputs = []string{
	`{"user": "alice", "path": "/etc/passwd", "n": 3, "cmds": [{"name": "rm", "args": ["-rf", "/"]}, {"name": "ls", "args": ["-l", "a", "b"]}], "values": ["a", 1, null, [1]], "deep": {"er": 7}}`,
	`{"user": "bob", "path": "src/main.go", "n": 7, "cmds": [], "values": []}`,
	`{"user": "ALICE", "path": "/blocked", "n": 11, "cmds": [{"name": "rmdir", "args": []}]}`,
	`{"user": "alice", "path": "x.go", "n": 0}`,
	`{}`,
	`{"user": 5, "path": ["not", "a", "string"], "n": "x", "cmds": "nope", "values": {"k": "v"}}`,
	`{"n": 101, "user": "a", "path": "b"}`,
	`[1, 2, 3]`,
}

func TestAgreesWithTopdown(t *testing.T) {
	ctx := context.Background()
	data := map[string]any{"blocked": []any{"/blocked", "/secret"}}
	opts := func(query string) []func(*rego.Rego) {
		return []func(*rego.Rego){
			rego.Query(query),
			rego.Module("p.rego", module),
			rego.Store(inmem.NewFromObject(data)),
			rego.StrictBuiltinErrors(true),
		}
	}
	dataValue := ast.MustInterfaceToValue(data)
	defined := 0
	for _, query := range []string{"data.p.result", "data.p.conflict", "data.p.first_arg", "data.p.deny", "data.p"} {
		pq, err := rego.New(opts(query)...).PrepareForEval(ctx)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := irvm.Prepare(ctx, opts(query)...)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs {
			input := ast.MustParseTerm(in).Value
			want, wantErr := topdownValue(ctx, pq, input)
			got, gotErr := vmValue(ctx, prog, input, dataValue)
			if testing.Verbose() && gotErr != nil {
				t.Logf("%s %s -> error %v", query, in, gotErr)
			}
			if (wantErr != nil) != (gotErr != nil) {
				t.Errorf("%s with %s: topdown error %v, irvm error %v", query, in, wantErr, gotErr)
				continue
			}
			if wantErr != nil {
				continue
			}
			if testing.Verbose() {
				t.Logf("%s %s -> %v / %v", query, in, got, gotErr)
			}
			if query == "data.p.result" && got != nil {
				defined++
			}
			if (want == nil) != (got == nil) || (want != nil && ast.Compare(want, got) != 0) {
				t.Errorf("%s with %s:\ntopdown %v\nirvm    %v", query, in, want, got)
			}
		}
	}
	// The comparison means something only if the result is defined for
	// most inputs (both sides undefined would agree vacuously).
	if defined < 5 {
		t.Errorf("data.p.result was defined for %d inputs only", defined)
	}
}

// TestBuiltinContext runs built-ins that need the evaluation's random
// source or clock, as topdown provides them.
func TestBuiltinContext(t *testing.T) {
	ctx := context.Background()
	prog, err := irvm.Prepare(ctx, rego.Query("data.r.out"), rego.Module("r.rego", `package r
import rego.v1
out := {"n": rand.intn("k", 1), "u": count(uuid.rfc4122("k")), "t": time.now_ns() > 0}
`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := vmValue(ctx, prog, ast.NewObject(), ast.NewObject())
	if err != nil {
		t.Fatal(err)
	}
	if want := ast.MustParseTerm(`{"n": 0, "u": 36, "t": true}`).Value; got == nil || ast.Compare(got, want) != 0 {
		t.Errorf("got %v, want %v", got, want)
	}
}

func topdownValue(ctx context.Context, pq rego.PreparedEvalQuery, input ast.Value) (ast.Value, error) {
	rs, err := pq.Eval(ctx, rego.EvalParsedInput(input))
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	return ast.InterfaceToValue(rs[0].Expressions[0].Value)
}

func vmValue(ctx context.Context, prog *irvm.Program, input, data ast.Value) (ast.Value, error) {
	in, err := irvm.FromAST(input)
	if err != nil {
		return nil, err
	}
	d, err := irvm.FromAST(data)
	if err != nil {
		return nil, err
	}
	set, err := prog.Eval(ctx, irvm.QueryPlan, in, d, irvm.Options{})
	if err != nil || set.Len() == 0 {
		return nil, err
	}
	if set.Len() != 1 {
		return nil, fmt.Errorf("%d results", set.Len())
	}
	obj, ok := set.Elems()[0].(*value.Object)
	if !ok || obj.Len() != 1 {
		return nil, fmt.Errorf("result %s is not one binding", value.Text(set))
	}
	_, v := obj.Entry(0)
	// Round-trip through JSON, as the topdown side does.
	j, err := ast.JSON(irvm.ASTValue(v))
	if err != nil {
		return nil, err
	}
	return ast.InterfaceToValue(util.MustUnmarshalJSON(util.MustMarshalJSON(j)))
}

func TestRefusesWith(t *testing.T) {
	ctx := context.Background()
	_, err := irvm.Prepare(ctx,
		rego.Query("data.q.r"),
		rego.Module("q.rego", "package q\nimport rego.v1\nr if { input.x with input as {\"x\": 1} }\n"))
	if err == nil || !strings.Contains(err.Error(), "WithStmt") {
		t.Fatalf("a plan with `with` was accepted (err %v)", err)
	}
}
