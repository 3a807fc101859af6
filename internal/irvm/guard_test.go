//go:build !toolgate_small

package irvm_test

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/toolgate/toolgate/internal/irvm"
)

// guarded is a policy whose rule bodies open with membership tests on an
// index in the input, as toolgate's do, and rules that do not, between
// and after them.
const guarded = `package g

import rego.v1

deny contains "rm" if {
	"rm" in input.present.names
	some c in input.commands
	c.name == "rm"
}

deny contains "curl" if {
	"curl" in input.present.names
}

deny contains sprintf("group %s", [g]) if {
	"net" in input.present.groups
	some g in input.present.groups
}

deny contains "any" if {
	count(input.commands) > 2
}

deny contains "neither" if {
	not "rm" in input.present.names
	"ls" in input.present.names
}

deny contains "write" if {
	"write" in input.present.access
	some p in input.paths
	p.access == "write"
}

deny contains "writes" if {
	input.present.writes
	some p in input.paths
	p.access == "write"
}

deny contains "unsandboxed" if {
	input.sandboxed == false
	count(input.commands) > 0
}

deny contains "not exec" if {
	input.tool != "exec"
}

ask contains "curl" if {
	"curl" in input.present.names
	input.present.names["curl"]
}
`

// TestGuardsAgreeWithTopdown: rules passed over because their guard fails
// give what topdown gives, for guards that pass, fail, and meet a path
// that is undefined or not a set.
func TestGuardsAgreeWithTopdown(t *testing.T) {
	ctx := context.Background()
	inputs := []string{
		`{"present": {"names": ["rm"], "groups": [], "access": []}, "commands": [{"name": "rm"}]}`,
		// sets, as toolgate's index holds (Rego's set syntax)
		`{"present": {"names": {"rm", "ls"}, "groups": {"net"}, "access": {"write"}, "writes": true}, "commands": [{"name": "rm"}], "paths": [{"access": "write"}]}`,
		`{"present": {"names": {"curl"}, "groups": set(), "access": set()}, "commands": [{"name": "curl"}]}`,
		`{"present": {"writes": true}, "paths": [{"access": "write"}], "sandboxed": false, "tool": "exec", "commands": [1]}`,
		`{"present": {"writes": false}, "paths": [{"access": "write"}], "sandboxed": true, "tool": "read_file", "commands": [1]}`,
		`{"present": {"writes": 1}, "paths": [{"access": "write"}], "sandboxed": "false", "tool": 7, "commands": [1]}`,
		`{"present": {"writes": null}, "paths": [{"access": "write"}], "sandboxed": null, "commands": []}`,
		`{"present": {"names": ["ls"], "groups": ["net", "x"], "access": ["write"]}, "commands": [{"name": "ls"}], "paths": [{"access": "write"}]}`,
		`{"present": {"names": ["curl", "rm"], "groups": ["net"]}, "commands": [{"name": "curl"}, {"name": "rm"}, {"name": "x"}]}`,
		`{"present": {"names": {"a": "curl"}, "groups": "net"}, "commands": []}`,
		`{"present": {"names": {"curl": true}}}`,
		`{"present": {"names": "curl"}}`,
		`{"present": {}}`,
		`{"present": null, "commands": [1, 2, 3]}`,
		`{}`,
		`[1]`,
	}
	for query, guards := range map[string]int{"data.g.deny": 6, "data.g.ask": 1, "data.g": 7} {
		opts := []func(*rego.Rego){rego.Query(query), rego.Module("g.rego", guarded), rego.StrictBuiltinErrors(true)}
		pq, err := rego.New(opts...).PrepareForEval(ctx)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := irvm.Prepare(ctx, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if n := prog.GuardCount(); n != guards {
			t.Fatalf("%s: %d guards recognised in the plan, want %d", query, n, guards)
		}
		for _, in := range inputs {
			input := ast.MustParseTerm(in).Value
			want, wantErr := topdownValue(ctx, pq, input)
			got, gotErr := vmValue(ctx, prog, input, ast.NewObject())
			if (wantErr != nil) != (gotErr != nil) {
				t.Errorf("%s with %s: topdown error %v, irvm error %v", query, in, wantErr, gotErr)
				continue
			}
			if (want == nil) != (got == nil) || (want != nil && ast.Compare(want, got) != 0) {
				t.Errorf("%s with %s:\ntopdown %v\nirvm    %v", query, in, want, got)
			}
		}
	}
}
