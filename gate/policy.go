package gate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/mattn/go-shellwords"

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

	parsed  parsedModules     // Modules, parsed once (by OPA)
	sources map[string]source // Modules and Tests → where LoadPolicy read them

	plannedOnce sync.Once
	hasPlan     bool // the embedded plan was made from Modules
	// literalData: Data is the embedded data document alone, made from
	// the generated literals (builtindata.go), and nothing was merged
	// into it since.
	literalData bool
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
	p := &Policy{Modules: map[string]string{}, Tests: map[string]string{}, Data: map[string]any{}, parsed: parsedModules{}, sources: map[string]source{}}
	for di, d := range dirs {
		var err error
		if d == Builtin {
			err = p.addBuiltin(di)
		} else {
			err = p.addDir(di, d)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, f := range dataFiles {
		if err := p.addDataFile(f); err != nil {
			return nil, err
		}
	}
	// The generated index and digest describe the embedded data alone:
	// another directory's data or a data file changes what they must be.
	p.literalData = p.literalData && len(dirs) == 1 && len(dataFiles) == 0
	if len(p.Modules) == 0 {
		return nil, fmt.Errorf("no Rego modules found in %s", strings.Join(dirs, ", "))
	}
	// The embedded policy's modules were parsed, compiled and planned
	// when toolgate was built; they are parsed here only if OPA needs
	// them (regoOptions).
	if !p.planned() {
		if err := p.parse(); err != nil {
			return nil, err
		}
	}
	p.Digest = p.digest()
	return p, nil
}

// addBuiltin adds the embedded default policy, the dir-th in LoadPolicy's
// list: its modules and tests, and data.json (read as OPA's loader reads
// a data.json at the root: the whole data document; numbers kept as
// written). TestBuiltinDataAsOPALoads holds the two readings equal.
func (p *Policy) addBuiltin(dir int) error {
	names, err := regoFiles(policies.FS, false)
	if err != nil {
		return fmt.Errorf("loading policy %s: %w", Builtin, err)
	}
	for _, name := range names {
		if !withTests && strings.HasSuffix(name, "_test.rego") {
			continue // the small build runs no policy tests
		}
		src, err := builtinFile(name)
		if err != nil {
			return err
		}
		p.addModule(Builtin+":"+name, dir, name, src)
	}
	raw, err := builtinFile("data.json")
	if err != nil {
		return err
	}
	doc, ok := builtinLiteral(raw)
	if ok {
		p.literalData = true
	} else if doc, err = decodeBuiltinData(raw); err != nil {
		return fmt.Errorf("loading policy %s: data.json: %w", Builtin, err)
	}
	return mergeData(p.Data, doc, Builtin)
}

// decodeBuiltinData reads the embedded data.json as OPA's loader does:
// the whole data document, numbers kept as written.
func decodeBuiltinData(raw string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// builtinFile is a file of the embedded policy: the embedded string itself
// where policies lists it, else a copy.
func builtinFile(name string) (string, error) {
	if src, ok := policies.Source(name); ok {
		return src, nil
	}
	b, err := fs.ReadFile(policies.FS, name)
	if err != nil {
		return "", fmt.Errorf("loading policy %s: %w", Builtin, err)
	}
	// b is a copy of the embedded file, never written: no second copy
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}

// addModule files a module (or a test module) read from the dir-th
// directory under key.
func (p *Policy) addModule(key string, dir int, name string, src string) {
	p.sources[key] = source{dir: dir, name: name}
	if strings.HasSuffix(name, "_test.rego") {
		p.Tests[key] = src
	} else {
		p.Modules[key] = src
	}
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
	if p.builtinOnly() {
		return builtinDigest
	}
	return p.computeDigest()
}

// computeDigest hashes the modules and the data.
func (p *Policy) computeDigest() string {
	h := sha256.New()
	writeModules(h, p.Modules)
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
		for _, k := range slices.Sorted(maps.Keys(pm)) {
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

// dataDoc is the data document a policy is evaluated with: its data and
// data.toolgate.index, built from the config. The two objects on the way
// to the index are copied, so p.Data is left as it was; everything else
// is shared (nothing writes to a data document).
func (p *Policy) dataDoc() (map[string]any, error) {
	data := make(map[string]any, len(p.Data)+1)
	for k, v := range p.Data {
		data[k] = v
	}
	old, _ := data["toolgate"].(map[string]any)
	tg := make(map[string]any, len(old)+1)
	for k, v := range old {
		tg[k] = v
	}
	data["toolgate"] = tg
	if p.builtinOnly() {
		tg["index"] = builtinIndex()
		return data, nil
	}
	idx, err := index(p.Config())
	if err != nil {
		return nil, err
	}
	tg["index"] = idx
	return data, nil
}

// builtinOnly says whether the policy is the embedded default as it was
// when go generate wrote its plan and data: its modules are those planned
// and its data the generated document, untouched.
func (p *Policy) builtinOnly() bool {
	return p.literalData && p.planned()
}

// evaluator holds a compiled policy: OPA's plan of it run by irvm when
// there is one, and topdown (prepared on first need, or at once when
// there is no plan) for traced evaluations and as the fallback.
type evaluator struct {
	vm   *irvm.Program
	data value.Value
	td   topdownState
}

// compile prepares the policy's evaluator. With useVM the policy's plan
// made at build time is loaded, or else (unless plannedOnly) the policy
// is compiled and planned for irvm; a plan irvm cannot run, plannedOnly
// without a plan, or useVM false leave topdown.
func (p *Policy) compile(ctx context.Context, useVM, plannedOnly bool) (*evaluator, error) {
	doc, err := p.dataDoc()
	if err != nil {
		return nil, err
	}
	dv, err := value.FromGo(doc)
	if err != nil {
		return nil, fmt.Errorf("policy data: %w", err)
	}
	ev := &evaluator{data: dv, td: newTopdownState(p, doc)}
	if useVM {
		// planned when toolgate was built
		if vm, err := p.embeddedPlan(); vm != nil || err != nil {
			if err != nil {
				return nil, fmt.Errorf("the embedded plan of the default policy: %w", err)
			}
			ev.vm = vm
			return ev, nil
		}
	}
	if err := p.compileOPA(ctx, ev, useVM && !plannedOnly); err != nil {
		return nil, err
	}
	return ev, nil
}

// deepCopy copies a data document (objects and lists copied, anything
// else shared: strings, numbers and booleans are immutable).
func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return deepCopy(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = copyValue(e)
		}
		return out
	case nil, bool, string, json.Number, float64, int, int64:
		return v
	}
	// a type the loaders do not make: copied through JSON
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&out) != nil {
		return v
	}
	return out
}

// TestResult is the outcome of one Rego unit test.
type TestResult struct {
	Name   string // package.test_name
	File   string
	Pass   bool
	Detail string // why it failed or errored
}
