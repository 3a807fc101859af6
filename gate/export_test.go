package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/toolgate/toolgate/internal/irvm"
	"github.com/toolgate/toolgate/internal/value"
)

// CheckInputEncoding compares inputValue with the JSON encoding of in.
func CheckInputEncoding(in *Input) error {
	direct, err := inputValue(in)
	if err != nil {
		return err
	}
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	viaJSON, err := ast.ValueFromReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	// JSON has no sets: the present index's lists arrive as arrays.
	if obj, ok := viaJSON.(ast.Object); ok {
		if t := obj.Get(ast.StringTerm("present")); t != nil {
			pr, _ := t.Value.(ast.Object)
			for _, k := range []string{"names", "groups", "access", "zones", "dynamic"} {
				if pr == nil || pr.Get(ast.StringTerm(k)) == nil {
					continue
				}
				if arr, ok := pr.Get(ast.StringTerm(k)).Value.(*ast.Array); ok {
					set := ast.NewSet()
					arr.Foreach(set.Add)
					pr.Insert(ast.StringTerm(k), ast.NewTerm(set))
				}
			}
		}
	}
	if irvm.ASTValue(direct).Compare(viaJSON) != 0 {
		return fmt.Errorf("direct %s\n json %v", value.Text(direct), viaJSON)
	}
	return nil
}

// RegoPresent evaluates the policy's present_of over in without its present
// index, for comparison with the Go index.
func (g *Gate) RegoPresent(in *Input) (any, error) {
	presentOnce.Do(func() {
		data := deepCopy(g.pol.Data)
		tg, _ := data["toolgate"].(map[string]any)
		idx, err := index(g.pol.Config())
		if err != nil || tg == nil {
			presentErr = fmt.Errorf("index: %v", err)
			return
		}
		tg["index"] = idx
		opts := []func(*rego.Rego){rego.Query("data.toolgate.present_of(input)"), rego.SetRegoVersion(ast.RegoV1), rego.Store(inmem.NewFromObject(data))}
		for name, src := range g.pol.Modules {
			opts = append(opts, rego.Module(name, src))
		}
		presentQuery, presentErr = rego.New(opts...).PrepareForEval(context.Background())
	})
	if presentErr != nil {
		return nil, presentErr
	}
	cp := *in
	cp.Present = nil
	b, err := json.Marshal(&cp)
	if err != nil {
		return nil, err
	}
	v, err := ast.ValueFromReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	rs, err := presentQuery.Eval(context.Background(), rego.EvalParsedInput(v))
	if err != nil || len(rs) == 0 {
		return nil, fmt.Errorf("present_of: %v (%d results)", err, len(rs))
	}
	return rs[0].Expressions[0].Value, nil
}

var (
	presentOnce  sync.Once
	presentQuery rego.PreparedEvalQuery
	presentErr   error
)

// DecideBoth analyses the call once and evaluates its input with irvm and
// with topdown (a tracer that records nothing takes the topdown path). ok
// is false when the call was refused before the policy was asked.
func (g *Gate) DecideBoth(ctx context.Context, c Call) (vm, td Result, ok bool) {
	if g.ev.vm == nil {
		panic("DecideBoth: the gate has no irvm program")
	}
	g.decideUsing(ctx, c, func(in *Input) Result {
		td = g.evaluate(ctx, c, in, silentTracer{})
		vm = g.evaluate(ctx, c, in, nil)
		ok = true
		return vm
	})
	return vm, td, ok
}

type silentTracer struct{}

func (silentTracer) Enabled() bool               { return false }
func (silentTracer) TraceEvent(topdown.Event)    {}
func (silentTracer) Config() topdown.TraceConfig { return topdown.TraceConfig{} }
