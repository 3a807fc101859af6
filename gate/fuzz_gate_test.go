package gate_test

import (
	"context"
	"testing"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/internal/corpus"
)

// FuzzGateExec feeds arbitrary commands through the whole gate with the
// default policy. Properties: it never panics (a recovered panic is a deny
// with gate.internal_error, which fails the fuzzer too), every result is a
// known verdict, and nothing the analyser could not analyse is allowed.
func FuzzGateExec(f *testing.F) {
	if cases, err := corpus.Load(corpusDir); err == nil {
		for _, c := range cases {
			for _, s := range c.Commands {
				f.Add(s)
			}
		}
	}
	for _, s := range []string{"ls", "rm -rf /", "$X", "bash -c \"$Y\"", ":(){ :|:& };:", "cat <<EOF\nx\nEOF"} {
		f.Add(s)
	}
	g, _, _ := corpusGate(f)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, cmd string) {
		r := g.Decide(ctx, execCall(cmd))
		switch r.Decision {
		case "allow", "ask", "deny":
		default:
			t.Fatalf("%q: verdict %q", cmd, r.Decision)
		}
		for _, reason := range r.Reasons {
			if reason.Rule == gate.CodePanic || reason.Rule == "parse.internal" {
				t.Fatalf("%q: %s: %s", cmd, reason.Rule, reason.Message)
			}
		}
		if r.Decision == "deny" || r.Input == nil {
			return
		}
		if r.Input.ParseError != nil {
			t.Fatalf("%q: allowed with parse error %+v", cmd, r.Input.ParseError)
		}
		for _, d := range r.Input.Dynamic {
			switch d.Kind {
			case "command_name", "nested_script", "eval", "procsubst_script", "stdin_script":
				t.Fatalf("%q: %s allowed with unanalysable part %s %q", cmd, r.Decision, d.Kind, d.Text)
			}
		}
		for _, p := range r.Input.Paths {
			if p.Zone == "unknown" || p.Sensitive {
				t.Fatalf("%q: %s with path %+v", cmd, r.Decision, p)
			}
		}
	})
}
