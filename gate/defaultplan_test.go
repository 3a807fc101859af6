package gate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/toolgate/toolgate/internal/irvm"
	"github.com/toolgate/toolgate/policies"
)

func planOf(t *testing.T, p *Policy) []byte {
	t.Helper()
	doc, err := p.dataDoc()
	if err != nil {
		t.Fatal(err)
	}
	prog, err := irvm.Prepare(context.Background(), p.regoOptions(doc)...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := planSource(p.Modules, prog)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// planFile is where the embedded plan's source is kept.
var planFile = filepath.Join("..", "internal", "irvm", "default_plan.go")

// TestEmbeddedPlan: the plan embedded in the binary is the one OPA makes
// of the embedded policy now (TOOLGATE_WRITE_PLAN=1, or go generate
// ./gate, writes it), planning is deterministic, and the plan does not
// depend on the data (a gate with --data files uses it too).
func TestEmbeddedPlan(t *testing.T) {
	p, err := LoadPolicy(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fresh := planOf(t, p)
	if again := planOf(t, p); !bytes.Equal(fresh, again) {
		t.Fatal("planning the same policy twice gave two plans")
	}
	if os.Getenv("TOOLGATE_WRITE_PLAN") == "1" {
		if err := os.WriteFile(planFile, fresh, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", planFile, len(fresh))
		return
	}
	if kept, err := os.ReadFile(planFile); err != nil || !bytes.Equal(fresh, kept) {
		t.Fatalf("%s is not the plan of the embedded policy (%v): run go generate ./gate", planFile, err)
	}
	if !hasEmbeddedPlan(p.Modules) {
		t.Fatal("the embedded plan's key does not match the embedded policy")
	}
	vm, err := p.embeddedPlan()
	if err != nil || vm == nil {
		t.Fatalf("the embedded plan does not load: %v", err)
	}

	// other data, the same plan
	cfg := deepCopy(p.Data)
	tc := cfg["toolgate"].(map[string]any)["config"].(map[string]any)
	var cmds, paths []any
	for i := range 200 {
		cmds = append(cmds, fmt.Sprintf("tool%d run", i))
		paths = append(paths, fmt.Sprintf("~/.secret%d", i))
	}
	tc["allowed_commands"], tc["sensitive_paths"] = cmds, paths
	tc["deny_patterns"] = []any{"rm -rf *"}
	other := &Policy{Modules: p.Modules, Data: cfg, parsed: p.parsed}
	if !bytes.Equal(planOf(t, other), fresh) {
		t.Fatal("the plan depends on the data: a gate with --data must not use the embedded plan")
	}

	// another module, no embedded plan
	mods := map[string]string{"x.rego": "package toolgate\nimport rego.v1\ndecision := {\"decision\": \"deny\", \"reasons\": []}\n"}
	for k, v := range p.Modules {
		mods[k] = v
	}
	if hasEmbeddedPlan(mods) {
		t.Fatal("the embedded plan was taken for a policy with another module")
	}
}

// BenchmarkEmbeddedPlan is what a process pays to make the embedded plan
// ready: its constants, its built-in table and the checks of its
// statements (nothing is decoded).
func BenchmarkEmbeddedPlan(b *testing.B) {
	for b.Loop() {
		if _, err := irvm.Default.Program(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBuiltinDataAsOPALoads: the embedded data.json, read without OPA (as
// the small build reads it), is the data document OPA's loader makes of
// the embedded policy directory.
func TestBuiltinDataAsOPALoads(t *testing.T) {
	p, err := LoadPolicy(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := loader.NewFileLoader().WithFS(policies.FS).Filtered([]string{"."}, regoFilter)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Data, res.Documents) {
		t.Fatalf("the embedded data differ from OPA's reading:\n%v\n%v", p.Data, res.Documents)
	}
	if len(p.Config()) == 0 {
		t.Fatal("no data.toolgate.config")
	}
}

// planSource is internal/irvm/default_plan.go for a program planned from
// modules.
func planSource(modules map[string]string, prog *irvm.Program) ([]byte, error) {
	return prog.GoSource("go generate ./gate", "Default", planKey(modules)+" "+opaVersion)
}
