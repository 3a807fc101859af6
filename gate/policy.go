package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mattn/go-shellwords"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/toolgate/toolgate/internal/irvm"
	"github.com/toolgate/toolgate/internal/value"
	"github.com/toolgate/toolgate/policies"
)

// Builtin names the embedded default policy in a list of policy directories.
const Builtin = "builtin"

// DecisionQuery is the one query toolgate asks of a policy.
const DecisionQuery = "data.toolgate.decision"

// Policy is a loaded set of Rego modules and data.
type Policy struct {
	Modules map[string]string // name → source
	Tests   map[string]string // *_test.rego modules, for `policy test`
	Data    map[string]any
	Digest  string // sha256 over modules and data, for the audit log
	// Revision is the bundle's manifest revision when the policy came from
	// a bundle (LoadBundle); empty otherwise.
	Revision string

	parsed  map[string]*ast.Module // Modules, parsed once
	sources map[string]source      // Modules and Tests → where LoadPolicy read them
}

// source is where LoadPolicy read a module: the index of its directory in
// the list it was given, and its path inside that directory.
type source struct {
	dir  int
	name string
}

// LoadPolicy reads the policy directories (Builtin for the embedded default)
// and data files. No directories means the embedded default alone. Modules
// are parsed here (a syntax error stops the load) unless they are the
// embedded policy, whose plan was made at build time; tests are kept as
// text and parsed only when they run, so a gate starts without them.
func LoadPolicy(dirs, dataFiles []string) (*Policy, error) {
	if len(dirs) == 0 {
		dirs = []string{Builtin}
	}
	p := &Policy{Modules: map[string]string{}, Tests: map[string]string{}, Data: map[string]any{}, parsed: map[string]*ast.Module{}, sources: map[string]source{}}
	for di, d := range dirs {
		var fsys fs.FS
		var res *loader.Result
		var err error
		prefix := d
		if d == Builtin {
			fsys = policies.FS
			res, err = loader.NewFileLoader().WithFS(policies.FS).Filtered([]string{"."}, regoFilter)
		} else {
			if st, serr := os.Stat(d); serr != nil {
				return nil, fmt.Errorf("policy directory %s: %w", d, serr)
			} else if !st.IsDir() {
				return nil, fmt.Errorf("policy directory %s: not a directory", d)
			}
			fsys = os.DirFS(d)
			res, err = loader.NewFileLoader().Filtered([]string{d}, func(abspath string, info fs.FileInfo, depth int) bool {
				return hiddenFilter(abspath, info, depth) || regoFilter(abspath, info, depth)
			})
		}
		if err != nil {
			return nil, fmt.Errorf("loading policy %s: %w", d, err)
		}
		names, err := regoFiles(fsys, d != Builtin)
		if err != nil {
			return nil, fmt.Errorf("loading policy %s: %w", d, err)
		}
		for _, name := range names {
			src, err := fs.ReadFile(fsys, name)
			if err != nil {
				return nil, fmt.Errorf("loading policy %s: %w", d, err)
			}
			key := prefix + ":" + name
			if d != Builtin {
				// named as OPA's loader names files (no leading slash)
				key = prefix + ":" + strings.TrimPrefix(filepath.ToSlash(filepath.Join(d, name)), "/")
			}
			p.sources[key] = source{dir: di, name: name}
			if strings.HasSuffix(name, "_test.rego") {
				p.Tests[key] = string(src)
			} else {
				p.Modules[key] = string(src)
			}
		}
		if err := mergeData(p.Data, res.Documents, d); err != nil {
			return nil, err
		}
	}
	for _, f := range dataFiles {
		res, err := loader.NewFileLoader().All([]string{f})
		if err != nil {
			return nil, fmt.Errorf("loading data %s: %w", f, err)
		}
		if err := mergeData(p.Data, res.Documents, f); err != nil {
			return nil, err
		}
	}
	if len(p.Modules) == 0 {
		return nil, fmt.Errorf("no Rego modules found in %s", strings.Join(dirs, ", "))
	}
	// The embedded policy's modules were parsed, compiled and planned
	// when toolgate was built; they are parsed here only if OPA needs
	// them (regoOptions).
	if !hasEmbeddedPlan(p.Modules) {
		if err := p.parse(); err != nil {
			return nil, err
		}
	}
	p.Digest = p.digest()
	return p, nil
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

// regoFiles lists the .rego files of fsys as OPA's loader finds them:
// hidden entries below the root skipped (onDisk), symlinked directories
// followed. (The loader, which reads the data files first, refuses a link
// cycle; the depth bound is only a backstop.)
func regoFiles(fsys fs.FS, onDisk bool) ([]string, error) {
	var out []string
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		if depth > 64 {
			return fmt.Errorf("%s: directories nested deeper than 64 levels", dir)
		}
		ents, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return err
		}
		for _, e := range ents {
			name := path.Join(dir, e.Name())
			if onDisk && strings.HasPrefix(e.Name(), ".") {
				continue
			}
			isDir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				fi, err := fs.Stat(fsys, name) // follows the link
				if err != nil {
					return err
				}
				isDir = fi.IsDir()
			}
			switch {
			case isDir:
				if err := walk(name, depth+1); err != nil {
					return err
				}
			case strings.HasSuffix(name, ".rego"):
				out = append(out, name)
			}
		}
		return nil
	}
	if err := walk(".", 0); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// regoFilter keeps Rego files away from OPA's loader, which would parse
// them (tests included); LoadPolicy reads them itself.
func regoFilter(_ string, info fs.FileInfo, _ int) bool {
	return !info.IsDir() && strings.HasSuffix(info.Name(), ".rego")
}

func hiddenFilter(abspath string, info fs.FileInfo, depth int) bool {
	return depth > 0 && strings.HasPrefix(info.Name(), ".")
}

// mergeData merges src into dst; objects merge key by key, later files win
// for other values, except inside data.toolgate.config where a later list
// replaces an earlier one (that is how a team overrides a default list).
func mergeData(dst, src map[string]any, from string) error {
	for k, v := range src {
		if old, ok := dst[k].(map[string]any); ok {
			if nv, ok := v.(map[string]any); ok {
				if err := mergeData(old, nv, from); err != nil {
					return err
				}
				continue
			}
		}
		dst[k] = v
	}
	return nil
}

func (p *Policy) digest() string {
	h := sha256.New()
	names := make([]string, 0, len(p.Modules))
	for n := range p.Modules {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(h, "module %d %s\n%s\n", len(p.Modules[n]), n, p.Modules[n])
	}
	b, _ := json.Marshal(p.Data) // map keys are sorted by encoding/json
	fmt.Fprintf(h, "data %d\n%s", len(b), b)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Config returns data.toolgate.config (or an empty object).
func (p *Policy) Config() map[string]any {
	tg, _ := p.Data["toolgate"].(map[string]any)
	cfg, _ := tg["config"].(map[string]any)
	if cfg == nil {
		return map[string]any{}
	}
	return cfg
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

// index builds data.toolgate.index from the config so that rules look
// entries up instead of scanning lists: allowed_commands becomes an object
// keyed by the normalized prefix ("git status").
func index(cfg map[string]any) (map[string]any, error) {
	allowed := map[string]any{}
	if list, ok := cfg["allowed_commands"].([]any); ok {
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("data.toolgate.config.allowed_commands: entries must be strings, got %T", e)
			}
			words, err := shellwords.Parse(s)
			if err != nil || len(words) == 0 {
				return nil, fmt.Errorf("data.toolgate.config.allowed_commands: cannot split %q: %v", s, err)
			}
			words[0] = filepath.Base(words[0])
			allowed[strings.Join(words, " ")] = true
		}
	}
	idx := map[string]any{"allowed_commands": allowed}
	// Named lists and command groups become objects keyed by name (plus the
	// entries that are glob patterns): one look-up per question.
	lists := map[string][]any{}
	if cg, ok := cfg["command_groups"].(map[string]any); ok {
		for g, v := range cg {
			l, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("data.toolgate.config.command_groups.%s: want a list of names, got %T", g, v)
			}
			lists[g] = l
		}
	} else if v, ok := cfg["command_groups"]; ok && v != nil {
		return nil, fmt.Errorf("data.toolgate.config.command_groups: want an object of lists, got %T", v)
	}
	for _, name := range []string{"shells", "interpreters", "downloaders", "decoders", "rc_files"} {
		l, _ := cfg[name].([]any)
		lists[name] = l
	}
	if pm, ok := cfg["package_managers"].(map[string]any); ok {
		var names []any
		for k := range pm {
			names = append(names, k)
		}
		lists["package_managers"] = names
	}
	groups, patterns := map[string]any{}, map[string]any{}
	for name, list := range lists {
		set := map[string]any{}
		pats := []any{}
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("data.toolgate.config: %s entries must be strings, got %T", name, e)
			}
			if strings.ContainsAny(s, "*?[") {
				pats = append(pats, s)
			} else {
				set[s] = true
			}
		}
		groups[name] = set
		if len(pats) > 0 {
			patterns[name] = pats
		}
	}
	idx["groups"], idx["group_patterns"] = groups, patterns
	return idx, nil
}

// regoOptions are the query, data and modules for OPA, and the data
// document as a value (for irvm).
func (p *Policy) regoOptions() ([]func(*rego.Rego), value.Value, error) {
	data := deepCopy(p.Data)
	tg, _ := data["toolgate"].(map[string]any)
	if tg == nil {
		tg = map[string]any{}
		data["toolgate"] = tg
	}
	idx, err := index(p.Config())
	if err != nil {
		return nil, nil, err
	}
	tg["index"] = idx
	dv, err := value.FromGo(data)
	if err != nil {
		return nil, nil, fmt.Errorf("policy data: %w", err)
	}
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
	return opts, dv, nil
}

// prepare compiles the policy once into a prepared query (OPA's topdown).
func (p *Policy) prepare(ctx context.Context) (rego.PreparedEvalQuery, error) {
	opts, _, err := p.regoOptions()
	if err != nil {
		return rego.PreparedEvalQuery{}, err
	}
	pq, err := rego.New(opts...).PrepareForEval(ctx)
	if err != nil {
		return rego.PreparedEvalQuery{}, fmt.Errorf("compiling policy: %w", err)
	}
	return pq, nil
}

// evaluator holds a compiled policy: OPA's plan of it run by irvm when
// the plan allows, and topdown (prepared on first need, or at once when
// there is no plan) for traced evaluations and as the fallback.
type evaluator struct {
	vm   *irvm.Program
	data value.Value
	opts []func(*rego.Rego)

	once sync.Once
	pq   rego.PreparedEvalQuery
	err  error
}

// compile prepares the policy's evaluator. With useVM the policy's plan
// made at build time is loaded, or else (unless plannedOnly) the policy
// is compiled and planned for irvm; a plan irvm cannot run, plannedOnly
// without a plan, or useVM false leave topdown.
func (p *Policy) compile(ctx context.Context, useVM, plannedOnly bool) (*evaluator, error) {
	opts, dv, err := p.regoOptions()
	if err != nil {
		return nil, err
	}
	ev := &evaluator{data: dv, opts: opts}
	if useVM {
		// planned when toolgate was built
		if vm, err := embeddedPlan(p.Modules); vm != nil || err != nil {
			if err != nil {
				return nil, fmt.Errorf("the embedded plan of the default policy: %w", err)
			}
			ev.vm = vm
			return ev, nil
		}
	}
	if useVM && !plannedOnly {
		vm, err := irvm.Prepare(ctx, opts...)
		if err == nil {
			ev.vm = vm
			return ev, nil
		}
		var unsupported *irvm.UnsupportedError
		if !errors.As(err, &unsupported) {
			return nil, fmt.Errorf("compiling policy: %w", err)
		}
		// A plan irvm does not run: topdown does.
	}
	if _, err := ev.topdown(ctx); err != nil {
		return nil, err
	}
	return ev, nil
}

// topdown returns the query prepared for OPA's own evaluator.
func (ev *evaluator) topdown(ctx context.Context) (rego.PreparedEvalQuery, error) {
	ev.once.Do(func() {
		ev.pq, ev.err = rego.New(ev.opts...).PrepareForEval(ctx)
		if ev.err != nil {
			ev.err = fmt.Errorf("compiling policy: %w", ev.err)
		}
	})
	return ev.pq, ev.err
}

func deepCopy(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	if out == nil {
		out = map[string]any{}
	}
	return out
}
