//go:build !toolgate_small

package gate

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// Test runs the policy's Rego unit tests (every test_* rule in the loaded
// *_test.rego modules) with OPA's tester, against the policy's data and the
// same restricted built-ins the gate uses.
func (p *Policy) Test(ctx context.Context, filter string) ([]TestResult, error) {
	if len(p.Tests) == 0 {
		return nil, fmt.Errorf("no Rego tests (*_test.rego) in the loaded policy")
	}
	mods := map[string]*ast.Module{}
	for _, set := range []map[string]string{p.Modules, p.Tests} {
		for name, src := range set {
			m, err := ast.ParseModuleWithOpts(name, src, ast.ParserOptions{RegoVersion: ast.RegoV1})
			if err != nil {
				return nil, fmt.Errorf("parsing %s: %w", name, err)
			}
			mods[name] = m
		}
	}
	// the store converts the document, never writes to p.Data
	data, err := p.dataDoc()
	if err != nil {
		return nil, err
	}
	comp := ast.NewCompiler().WithCapabilities(Capabilities()).WithEnablePrintStatements(true)
	r := tester.NewRunner().SetCompiler(comp).SetStore(inmem.NewFromObjectWithOpts(data, inmem.OptReturnASTValuesOnRead(true))).SetModules(mods).
		RaiseBuiltinErrors(true).SetDefaultRegoVersion(ast.RegoV1).Filter(filter)
	ch, err := r.RunTests(ctx, nil)
	if err != nil {
		return nil, err
	}
	var out []TestResult
	for res := range ch {
		tr := TestResult{Name: strings.TrimPrefix(res.Package, "data.") + "." + res.Name, Pass: !res.Fail && res.Error == nil && !res.Skip}
		if res.Location != nil {
			tr.File = fmt.Sprintf("%s:%d", res.Location.File, res.Location.Row)
		}
		switch {
		case res.Error != nil:
			tr.Detail = res.Error.Error()
		case res.Fail && res.FailedAt != nil:
			tr.Detail = "failed at " + res.FailedAt.String()
		case res.Fail:
			tr.Detail = "failed"
		}
		out = append(out, tr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Explain decides a call while tracing the policy, and writes the rules that
// fired (file:line and rule) to w.
func (g *Gate) Explain(ctx context.Context, c Call, w io.Writer) Result {
	buf := topdown.NewBufferTracer()
	res := g.decide(ctx, c, buf)
	seen := map[string]bool{}
	for _, e := range *buf {
		if e.Op != topdown.ExitOp && e.Op != topdown.NoteOp {
			continue
		}
		rule, ok := e.Node.(*ast.Rule)
		if e.Op == topdown.NoteOp {
			fmt.Fprintf(w, "  note: %v\n", e.Message)
			continue
		}
		if !ok || rule.Location == nil {
			continue
		}
		head := rule.Head.Name.String()
		if len(rule.Head.Reference) > 0 {
			head = rule.Head.Reference.String()
		}
		if head != "deny" && head != "ask" {
			continue
		}
		loc := fmt.Sprintf("%s:%d", rule.Location.File, rule.Location.Row)
		if seen[loc] {
			continue
		}
		seen[loc] = true
		text := string(rule.Location.Text)
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[:i]
		}
		fmt.Fprintf(w, "  fired: %s  %s\n", loc, text)
	}
	return res
}
