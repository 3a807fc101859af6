package gate_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/gate"
)

// TestEvaluatorsAgree evaluates the input of every corpus spelling and of
// the benchmark mix, sandboxed and not, with OPA's topdown and with irvm
// running OPA's plan, and wants the same decision, reasons (in order) and
// sandbox settings. (Each input is analysed once: /proc changes.)
// The default policy is what most rules of the planner meet in practice.
func TestEvaluatorsAgree(t *testing.T) {
	cases, ws, home := corpusAndFixture(t)
	ctx := context.Background()
	g, err := gate.New(ctx, gate.Options{Workspace: ws, Home: home, Environ: corpusEnviron, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	var calls []gate.Call
	for _, c := range cases {
		for i, line := range c.Lines(ws, home) {
			for _, d := range g.Calls([]byte(line), i+1) {
				if d.Err == nil {
					calls = append(calls, d.Call)
				}
			}
		}
	}
	calls = append(calls, benchMix...)
	compared := 0
	for _, c := range calls {
		for _, unsandboxed := range []bool{false, true} {
			c.Unsandboxed = unsandboxed
			got, want, ok := g.DecideBoth(ctx, c)
			if !ok {
				continue
			}
			compared++
			if want.Decision != got.Decision || !reflect.DeepEqual(want.Reasons, got.Reasons) || !reflect.DeepEqual(want.Sandbox, got.Sandbox) {
				t.Errorf("%s %s (unsandboxed %v):\ntopdown %s %v %v\nirvm    %s %v %v", c.Tool, c.Args, unsandboxed,
					want.Decision, want.Reasons, want.Sandbox, got.Decision, got.Reasons, got.Sandbox)
			}
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d calls compared; the corpus did not load", compared)
	}
	t.Logf("%d decisions agree", compared)
}
