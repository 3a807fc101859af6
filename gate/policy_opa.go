//go:build !toolgate_small

package gate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/toolgate/toolgate/internal/irvm"
	"github.com/toolgate/toolgate/internal/value"
)

// This file is what the gate needs OPA's compiler and evaluator for:
// policies other than the embedded one (parsed, compiled and planned
// here), data files, and topdown for traces. The small build
// (-tags toolgate_small, policy_small.go) runs the embedded plan only.

// withTests: the full build loads the embedded policy's tests too (policy
// test, bundles).
const withTests = true

// parsedModules are the modules OPA parsed, by name.
type parsedModules = map[string]*ast.Module

// queryTracer receives a traced evaluation's events (explain).
type queryTracer = topdown.QueryTracer

// addDir adds the Rego modules and data files of the policy directory d,
// the dir-th in LoadPolicy's list.
func (p *Policy) addDir(dir int, d string) error {
	if st, err := os.Stat(d); err != nil {
		return fmt.Errorf("policy directory %s: %w", d, err)
	} else if !st.IsDir() {
		return fmt.Errorf("policy directory %s: not a directory", d)
	}
	res, err := loader.NewFileLoader().Filtered([]string{d}, func(abspath string, info fs.FileInfo, depth int) bool {
		return hiddenFilter(abspath, info, depth) || regoFilter(abspath, info, depth)
	})
	if err != nil {
		return fmt.Errorf("loading policy %s: %w", d, err)
	}
	fsys := os.DirFS(d)
	names, err := regoFiles(fsys, true)
	if err != nil {
		return fmt.Errorf("loading policy %s: %w", d, err)
	}
	for _, name := range names {
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return fmt.Errorf("loading policy %s: %w", d, err)
		}
		// named as OPA's loader names files (no leading slash)
		key := d + ":" + strings.TrimPrefix(filepath.ToSlash(filepath.Join(d, name)), "/")
		p.addModule(key, dir, name, string(src))
	}
	return mergeData(p.Data, res.Documents, d)
}

// addDataFile merges the JSON or YAML data file f.
func (p *Policy) addDataFile(f string) error {
	res, err := loader.NewFileLoader().All([]string{f})
	if err != nil {
		return fmt.Errorf("loading data %s: %w", f, err)
	}
	return mergeData(p.Data, res.Documents, f)
}

// parse parses the modules on every core: parsing is a quarter of the time
// a gate takes to start, and every hook call starts one.
func (p *Policy) parse() error {
	names := make([]string, 0, len(p.Modules))
	for n := range p.Modules {
		names = append(names, n)
	}
	sort.Strings(names)
	mods := make([]*ast.Module, len(names))
	errs := make([]error, len(names))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(names)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(names); i = int(next.Add(1) - 1) {
				mods[i], errs[i] = ast.ParseModuleWithOpts(names[i], p.Modules[names[i]], ast.ParserOptions{RegoVersion: ast.RegoV1})
			}
		}()
	}
	wg.Wait()
	for i, n := range names {
		if errs[i] != nil {
			return fmt.Errorf("loading policy: %w", errs[i])
		}
		p.parsed[n] = mods[i]
	}
	return nil
}

// Capabilities are OPA's built-ins minus those that reach outside the
// process (http.send, net.*, opa.runtime and friends): a policy decides from
// its input and data alone.
func Capabilities() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	banned := func(name string) bool {
		switch {
		case name == "http.send", name == "opa.runtime", name == "rego.parse_module",
			name == "trace", strings.HasPrefix(name, "net."), strings.HasPrefix(name, "providers."):
			return true
		}
		return false
	}
	kept := caps.Builtins[:0]
	for _, b := range caps.Builtins {
		if !banned(b.Name) {
			kept = append(kept, b)
		}
	}
	caps.Builtins = kept
	caps.AllowNet = []string{}
	return caps
}

// regoOptions are the query, data and modules for OPA.
func (p *Policy) regoOptions(data map[string]any) []func(*rego.Rego) {
	opts := []func(*rego.Rego){
		rego.Query(DecisionQuery),
		rego.Store(inmem.NewFromObjectWithOpts(data, inmem.OptReturnASTValuesOnRead(true))),
		rego.StoreReadAST(true),
		rego.Capabilities(Capabilities()),
		rego.StrictBuiltinErrors(true),
		rego.SetRegoVersion(ast.RegoV1),
	}
	for name, src := range p.Modules {
		if m, ok := p.parsed[name]; ok {
			opts = append(opts, rego.ParsedModule(m))
		} else {
			opts = append(opts, rego.Module(name, src))
		}
	}
	return opts
}

// prepare compiles the policy once into a prepared query (OPA's topdown).
func (p *Policy) prepare(ctx context.Context) (rego.PreparedEvalQuery, error) {
	doc, err := p.dataDoc()
	if err != nil {
		return rego.PreparedEvalQuery{}, err
	}
	pq, err := rego.New(p.regoOptions(doc)...).PrepareForEval(ctx)
	if err != nil {
		return rego.PreparedEvalQuery{}, fmt.Errorf("compiling policy: %w", err)
	}
	return pq, nil
}

// topdownState is the policy prepared for OPA's topdown, on first need.
type topdownState struct {
	pol  *Policy
	doc  map[string]any
	once sync.Once
	pq   rego.PreparedEvalQuery
	err  error
}

func newTopdownState(p *Policy, doc map[string]any) topdownState {
	return topdownState{pol: p, doc: doc}
}

// compileOPA compiles the policy with OPA: planned for irvm when plan is
// set and the plan is one irvm runs, for topdown otherwise.
func (p *Policy) compileOPA(ctx context.Context, ev *evaluator, plan bool) error {
	if plan {
		vm, err := irvm.Prepare(ctx, p.regoOptions(ev.td.doc)...)
		if err == nil {
			ev.vm = vm
			return nil
		}
		var unsupported *irvm.UnsupportedError
		if !errors.As(err, &unsupported) {
			return fmt.Errorf("compiling policy: %w", err)
		}
		// A plan irvm does not run: topdown does.
	}
	_, err := ev.topdown(ctx)
	return err
}

// topdown returns the query prepared for OPA's own evaluator.
func (ev *evaluator) topdown(ctx context.Context) (rego.PreparedEvalQuery, error) {
	td := &ev.td
	td.once.Do(func() {
		td.pq, td.err = rego.New(td.pol.regoOptions(td.doc)...).PrepareForEval(ctx)
		if td.err != nil {
			td.err = fmt.Errorf("compiling policy: %w", td.err)
		}
	})
	return td.pq, td.err
}

// evalTopdown evaluates the decision with topdown, traced when tracer is
// set; nil when the decision is undefined.
func (ev *evaluator) evalTopdown(ctx context.Context, input value.Value, tracer queryTracer) (any, bool, error) {
	pq, err := ev.topdown(ctx)
	if err != nil {
		return nil, false, err
	}
	opts := []rego.EvalOption{rego.EvalParsedInput(irvm.ASTValue(input))}
	if tracer != nil {
		opts = append(opts, rego.EvalQueryTracer(tracer))
	}
	rs, err := pq.Eval(ctx, opts...)
	if err != nil {
		return nil, false, errEval{err}
	}
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return nil, false, nil
	}
	return rs[0].Expressions[0].Value, true, nil
}
