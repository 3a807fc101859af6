package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/toolgate/toolgate/internal/homedir"
	"github.com/toolgate/toolgate/internal/irvm"
	"github.com/toolgate/toolgate/internal/value"
	"github.com/toolgate/toolgate/parser"
	"github.com/toolgate/toolgate/tools"
)

// InputVersion is the version of the Rego input document. It changes only
// when a field changes meaning or disappears; new fields keep it.
const InputVersion = 1

// Options configure a Gate.
type Options struct {
	Workspace  string   // default: the current directory
	Home       string   // default: $HOME
	PolicyDirs []string // Builtin for the embedded default; empty: the default alone
	DataFiles  []string
	// Bundle loads the policy from an OPA bundle file or http(s) URL
	// instead (LoadBundle); it excludes PolicyDirs and DataFiles.
	// BundleKey is the PEM public key its signature must verify with.
	Bundle    string
	BundleKey string
	Limits    Limits
	// NoCache turns the decision cache off (for measuring the evaluation).
	NoCache bool
	// Topdown evaluates the policy with OPA's topdown evaluator instead of
	// running OPA's plan of it (package irvm).
	Topdown bool
	// OneShot is for a process that decides about one call: it runs the
	// plan made when toolgate was built (the embedded default policy, with
	// any data), and otherwise topdown, which costs no planning at start.
	// Once started, irvm decides several times faster.
	OneShot bool
	// Background compiles the policy on a goroutine: New returns once the
	// policy is loaded and parsed, calls are analysed meanwhile, and each
	// evaluation waits for the compiled policy. Ready reports a compile
	// error; until then a decision that needs the policy waits, and after
	// one it is denied.
	Background bool
	// Protected are toolgate's own files besides the policy's sources
	// (which the gate adds itself): the audit log, its key, the binary.
	// Calls that change them are marked for the policy (paths[].protected).
	Protected []parser.Protected
	// Environ is the environment the commands run in, for the variables a
	// script uses without setting them ("NAME=value" entries); nil means
	// toolgate's own environment (a hook's command inherits the agent's,
	// which toolgate shares; a box keeps fewer variables, so this errs
	// toward more).
	Environ []string
}

// protected lists the files a call must not change: the policy's own
// sources (directories, data files, a bundle file and its key) and the
// caller's list.
func (o Options) protected() []parser.Protected {
	var out []parser.Protected
	add := func(p string) {
		if p == "" || p == Builtin || strings.Contains(p, "://") {
			return
		}
		if abs, err := filepath.Abs(p); err == nil {
			out = append(out, parser.Protected{Path: abs})
		}
	}
	for _, d := range o.PolicyDirs {
		add(d)
	}
	for _, f := range o.DataFiles {
		add(f)
	}
	add(o.Bundle)
	add(o.BundleKey)
	for _, p := range o.Protected {
		if abs, err := filepath.Abs(p.Path); err == nil && p.Path != "" {
			p.Path = abs
			out = append(out, p)
		}
	}
	return out
}

// Gate decides tool calls. It is safe for concurrent use.
type Gate struct {
	cache *decisionCache
	pol   *Policy
	// ev is the compiled policy, or evErr why it is not; both are set
	// when ready is closed (at once unless Options.Background)
	ready chan struct{}
	ev    *evaluator
	evErr error
	an    *parser.Analyzer
	val   *validator
	ws    string
	home  string
	lim   Limits
	// protected are toolgate's own files (Options.protected)
	protected []parser.Protected
	// environ is Options.Environ as a map
	environ map[string]string
	// bases are parser.Options.Bases: the workspace root, and the home
	// directory when it is a real directory
	bases []string
}

// Input is the document the policy sees (see README, "The Rego input document").
type Input struct {
	Version   int             `json:"version"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Workspace string          `json:"workspace"`
	Cwd       string          `json:"cwd"`
	Home      string          `json:"home"`
	// Sandboxed says whether the call runs inside toolgate's sandbox (run,
	// mcp, serve's /v1/run — and check, which assumes it). False for a
	// hook answering for a tool the agent runs on the host.
	Sandboxed bool `json:"sandboxed"`
	*parser.Facts
	// Present indexes the facts (parser.Present); rules open with a look-up
	// in it so OPA skips those that cannot apply.
	Present *parser.Present `json:"present,omitempty"`

	argsDoc map[string]any // Args decoded once, for inputValue
}

// Result is the decision on one call.
type Result struct {
	ID       string         `json:"id"`
	Tool     string         `json:"tool"`
	Decision string         `json:"decision"`
	Reasons  []Reason       `json:"reasons"`
	Sandbox  map[string]any `json:"-"`
	Input    *Input         `json:"-"`
}

// New loads and compiles the policy and the tools' schemas. Any failure is
// an error: a gate that cannot decide does not start.
func New(ctx context.Context, o Options) (*Gate, error) {
	ws := o.Workspace
	if ws == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("workspace: %w", err)
		}
		ws = wd
	}
	abs, err := filepath.Abs(ws)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", ws, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", ws, err)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("workspace %s is not a directory", ws)
	}
	if real == "/" {
		return nil, fmt.Errorf("workspace cannot be the filesystem root")
	}
	home := homedir.Get()
	if o.Home != "" {
		home = homedir.Resolve(o.Home)
	}
	var pol *Policy
	switch {
	case o.Bundle != "" && len(o.PolicyDirs) > 0:
		return nil, fmt.Errorf("--bundle and --policy cannot be combined: a bundle carries the whole policy")
	case o.Bundle != "" && len(o.DataFiles) > 0:
		return nil, fmt.Errorf("--bundle and --data cannot be combined: a bundle carries its data (build it in with 'toolgate policy build --data')")
	case o.Bundle == "" && o.BundleKey != "":
		return nil, fmt.Errorf("--bundle-verification-key needs --bundle")
	case o.Bundle != "":
		pol, err = LoadBundle(ctx, o.Bundle, o.BundleKey)
	default:
		pol, err = LoadPolicy(o.PolicyDirs, o.DataFiles)
	}
	if err != nil {
		return nil, err
	}
	pcfg, err := parserConfig(pol.Config())
	if err != nil {
		return nil, err
	}
	pcfg.Protected = o.protected()
	for _, p := range pcfg.Protected {
		if !p.Secret {
			continue
		}
		// A key the agent's commands and file tools can reach is not
		// protected by any rule: search, grep -r, tar and git read whole
		// directories. Refuse the set-up instead.
		if r, _, _ := parser.Resolve(p.Path); r == real || strings.HasPrefix(r, real+"/") {
			return nil, fmt.Errorf("the audit signing key %s lies inside the workspace %s, where the agent's commands and file tools can read it; keep it outside the workspace (for example in ~/.config/toolgate/, with a workspace that does not hold the home directory)", p.Path, real)
		}
	}
	val, err := newValidator(tools.All())
	if err != nil {
		return nil, err
	}
	g := &Gate{ready: make(chan struct{}), pol: pol, an: parser.New(pcfg), val: val, ws: real, home: home, lim: o.Limits.orDefaults(), protected: pcfg.Protected, environ: environMap(o.Environ), bases: bases(real, home)}
	compile := func(ctx context.Context) {
		defer close(g.ready)
		g.ev, g.evErr = pol.compile(ctx, !o.Topdown, o.OneShot)
		if g.evErr != nil && o.Bundle != "" {
			g.evErr = fmt.Errorf("bundle %s (revision %q): %w", o.Bundle, pol.Revision, g.evErr)
		}
	}
	if o.Background {
		// the compile outlives New's context; Ready's context bounds the wait
		go compile(context.WithoutCancel(ctx))
	} else {
		compile(ctx)
		if g.evErr != nil {
			return nil, g.evErr
		}
	}
	if !o.NoCache && !o.OneShot {
		g.cache = newDecisionCache(1024)
	}
	return g, nil
}

// bases lists the directories whose paths the analyser may walk from them
// rather than from "/" (parser.Options.Bases): the workspace root (already
// resolved) and the home directory if it resolves to itself and is a
// directory. Neither may be "/" or lie in /proc or /dev, whose entries the
// walk takes lexically from "/".
func bases(ws, home string) []string {
	ok := func(d string) bool {
		return filepath.IsAbs(d) && d != "/" && d != "/proc" && d != "/dev" && !strings.HasPrefix(d, "/proc/") && !strings.HasPrefix(d, "/dev/")
	}
	var out []string
	if ok(ws) {
		out = append(out, ws)
	}
	if !ok(home) || home == ws {
		return out
	}
	if r, exists, _ := parser.Resolve(home); exists && r == home {
		if st, err := os.Stat(home); err == nil && st.IsDir() {
			out = append(out, home)
		}
	}
	return out
}

// Workspace is the resolved workspace root.
func (g *Gate) Workspace() string { return g.ws }

// Home is the home directory the gate judges ~ and the home's secrets by:
// absolute and symlink-free; "" when none was found.
func (g *Gate) Home() string { return g.home }

// Protected lists toolgate's own files the gate marks: the policy's
// sources and Options.Protected, absolute.
func (g *Gate) Protected() []parser.Protected { return g.protected }

// PolicyDigest identifies the policy and data in force.
func (g *Gate) PolicyDigest() string { return g.pol.Digest }

// PolicyRevision is the revision of the bundle the policy came from, or "".
func (g *Gate) PolicyRevision() string { return g.pol.Revision }

// Policy returns the loaded policy.
func (g *Gate) Policy() *Policy { return g.pol }

func deny(id, tool, code, msg string) Result {
	return Result{ID: id, Tool: tool, Decision: "deny", Reasons: []Reason{{Rule: code, Message: msg}}}
}

// Calls decodes one input line into its calls, naming those without an id
// after the line ("line-3", or "line-3.2" for the second call of a batch).
// A call that could not be decoded carries its error and no tool or
// arguments, so nothing can run it.
func (g *Gate) Calls(line []byte, lineNo int) []Decoded {
	ds := DecodeLine(line, g.lim)
	for i := range ds {
		if ds[i].Call.ID == "" {
			id := fmt.Sprintf("line-%d", lineNo)
			if len(ds) > 1 {
				id = fmt.Sprintf("line-%d.%d", lineNo, i+1)
			}
			ds[i].Call.ID = id
		}
	}
	return ds
}

// Denied is the deny that stands in for a call that could not be decoded.
func (d Decoded) Denied() Result {
	return deny(d.Call.ID, d.Call.Tool, d.Err.Code, d.Err.Message)
}

// DecideLine decodes one input line and decides every call in it. A line
// that cannot be decoded yields one deny. lineNo names calls without an id.
func (g *Gate) DecideLine(ctx context.Context, line []byte, lineNo int) []Result {
	ds := g.Calls(line, lineNo)
	out := make([]Result, 0, len(ds))
	for _, d := range ds {
		if d.Err != nil {
			out = append(out, d.Denied())
			continue
		}
		out = append(out, g.Decide(ctx, d.Call))
	}
	return out
}

// Decide judges one decoded call. It never panics and never allows on error.
func (g *Gate) Decide(ctx context.Context, c Call) (res Result) {
	return g.decide(ctx, c, nil)
}

func (g *Gate) decide(ctx context.Context, c Call, tracer queryTracer) (res Result) {
	return g.decideUsing(ctx, c, func(in *Input) Result { return g.evaluate(ctx, c, in, tracer) })
}

// decideUsing analyses the call and hands its input to eval.
func (g *Gate) decideUsing(ctx context.Context, c Call, eval func(*Input) Result) Result {
	return g.judgeUsing(g.Analyse(ctx, c), eval)
}

// Analysed is a call analysed and ready to be judged by the policy (or
// already refused: unknown tool, invalid arguments, an analysis panic).
type Analysed struct {
	call Call
	in   *Input
	res  *Result // the refusal, when there is one
}

// Analyse does the policy-independent half of a decision: argument
// checks and the analysis of the call into its input document. It does
// not wait for a policy compiling in the background (Options.Background),
// so calls can be analysed while it compiles.
func (g *Gate) Analyse(ctx context.Context, c Call) (a *Analysed) {
	refuse := func(r Result) *Analysed { return &Analysed{call: c, res: &r} }
	defer func() {
		if r := recover(); r != nil {
			a = refuse(panicked(c, r))
		}
	}()
	if _, ok := tools.Lookup(c.Tool); !ok {
		return refuse(deny(c.ID, c.Tool, CodeUnknownTool, fmt.Sprintf("unknown tool %q; available tools: %s", c.Tool, toolNames())))
	}
	errs, doc, known := g.val.validate(c.Tool, c.Args)
	if !known {
		return refuse(deny(c.ID, c.Tool, CodeUnknownTool, fmt.Sprintf("no schema for tool %q, so its arguments cannot be checked", c.Tool)))
	}
	if len(errs) > 0 {
		return refuse(deny(c.ID, c.Tool, CodeInvalidArgs, fmt.Sprintf("invalid arguments for %s: %s", c.Tool, strings.Join(errs, "; "))))
	}
	args, ok := doc.(map[string]any)
	if !ok {
		return refuse(deny(c.ID, c.Tool, CodeInvalidArgs, "arguments are not a JSON object"))
	}
	in, err := g.input(c, args)
	if err != nil {
		return refuse(deny(c.ID, c.Tool, CodeInvalidArgs, err.Error()))
	}
	pr := g.an.Index(in.Facts)
	in.Present = &pr
	return &Analysed{call: c, in: in}
}

// Judge finishes a decision Analyse began: the policy's evaluation
// (waiting for the policy if it is still compiling).
func (g *Gate) Judge(ctx context.Context, a *Analysed) Result {
	return g.judgeUsing(a, func(in *Input) Result { return g.evaluate(ctx, a.call, in, nil) })
}

func (g *Gate) judgeUsing(a *Analysed, eval func(*Input) Result) (res Result) {
	if a.res != nil {
		return *a.res
	}
	c, in := a.call, a.in
	defer func() {
		if r := recover(); r != nil {
			res = panicked(c, r)
		}
	}()
	res = eval(in)
	res.Input = in
	// Fail closed whatever the policy says: what could not be analysed is never allowed.
	if in.ParseError != nil && res.Decision != "deny" {
		res.Decision = "deny"
		res.Reasons = append([]Reason{{Rule: in.ParseError.Code, Message: in.ParseError.Message}}, res.Reasons...)
	}
	return res
}

// panicked is the denial for a panic while deciding c.
func panicked(c Call, r any) Result {
	if os.Getenv("TOOLGATE_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "toolgate: panic: %v\n%s", r, debug.Stack())
	}
	return deny(c.ID, c.Tool, CodePanic, fmt.Sprintf("internal error while deciding (%v); the call is denied — report this with the input", r))
}

func toolNames() string {
	var names []string
	for _, t := range tools.All() {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

// input builds the policy's input document for a call.
// args are c.Args decoded (numbers as json.Number), as the validator read
// them.
func (g *Gate) input(c Call, args map[string]any) (*Input, error) {
	in := &Input{Version: InputVersion, Tool: c.Tool, Args: c.Args, Workspace: g.ws, Cwd: g.ws, Home: g.home, Sandboxed: !c.Unsandboxed, argsDoc: args}
	opts := parser.Options{Workspace: g.ws, Home: g.home, Environ: g.environ, EnvKnown: true, Bases: g.bases}
	str := func(k string) string { s, _ := args[k].(string); return s }
	switch c.Tool {
	case "exec":
		opts.WorkingDir = str("working_dir")
		in.Facts = g.an.Analyze(str("command"), opts)
		if opts.WorkingDir != "" {
			for _, p := range in.Facts.Paths {
				if p.Access == "cwd" && p.Cmd == -1 {
					in.Cwd = p.Real
					break
				}
			}
		}
	case "read_file", "list_dir":
		in.Facts = g.an.Paths([]parser.PathArg{{Raw: orDot(str("path")), Access: "read"}}, opts)
	case "write_file", "edit_file":
		in.Facts = g.an.Paths([]parser.PathArg{{Raw: str("path"), Access: "write"}}, opts)
	case "search":
		// without a file filter it reads every file below path
		pa := []parser.PathArg{{Raw: orDot(str("path")), Access: "read", Tree: str("glob") == ""}}
		if gl := str("glob"); gl != "" {
			// the file filter, as the search tool applies it: a base-name
			// pattern at any depth below path, or (with a "/") a pattern
			// from the workspace root
			pat := gl
			if !strings.Contains(gl, "/") {
				pat = orDot(str("path")) + "/**/" + gl
			}
			pa = append(pa, parser.PathArg{Raw: pat, Access: "read", Glob: true})
		}
		in.Facts = g.an.Paths(pa, opts)
	case "glob":
		in.Facts = g.an.Paths([]parser.PathArg{{Raw: str("pattern"), Access: "read", Glob: true}}, opts)
	default:
		return nil, fmt.Errorf("no input mapping for tool %q", c.Tool)
	}
	return in, nil
}

// environMap turns NAME=value entries (nil: os.Environ) into a map.
func environMap(env []string) map[string]string {
	if env == nil {
		env = os.Environ()
	}
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			m[k] = v
		}
	}
	return m
}

func orDot(s string) string {
	if s == "" {
		return "."
	}
	return s
}

// evaluate runs the prepared query and checks the shape of its answer.
func (g *Gate) evaluate(ctx context.Context, c Call, in *Input, tracer queryTracer) (res Result) {
	v, err := inputValue(in)
	if err != nil {
		return deny(c.ID, c.Tool, CodePolicyError, "cannot encode the policy input: "+err.Error())
	}
	// The policy is pure and its data fixed for the gate's life, and the
	// input holds everything read from the filesystem: equal inputs get
	// equal decisions. (Traced evaluations are never cached.)
	key := ""
	if g.cache != nil && tracer == nil && g.cache.worthIt() {
		key = string(value.AppendKey(nil, v))
		if len(key) > maxCacheKey {
			key = "" // large inputs are rare and would crowd the cache
		} else if r, ok := g.cache.get(key); ok {
			r.ID, r.Tool = c.ID, c.Tool
			return r
		}
		defer func() {
			if key != "" {
				g.cache.put(key, res)
			}
		}()
	}
	ev, err := g.evaluator(ctx)
	if err != nil {
		return deny(c.ID, c.Tool, CodePolicyError, "the policy is not available, so the call is denied: "+err.Error())
	}
	if ev.vm != nil && tracer == nil {
		set, err := ev.vm.Eval(ctx, irvm.QueryPlan, v, ev.data, irvm.Options{})
		if err != nil {
			return deny(c.ID, c.Tool, CodePolicyError, "the policy failed to evaluate, so the call is denied: "+err.Error())
		}
		out, ok := planResult(set)
		if !ok {
			return deny(c.ID, c.Tool, CodePolicyShape, "the policy gave no decision (data.toolgate.decision is undefined), so the call is denied")
		}
		return shape(c, out)
	}
	out, ok, err := ev.evalTopdown(ctx, v, tracer)
	var ee errEval
	switch {
	case errors.As(err, &ee):
		return deny(c.ID, c.Tool, CodePolicyError, "the policy failed to evaluate, so the call is denied: "+ee.err.Error())
	case err != nil:
		return deny(c.ID, c.Tool, CodePolicyError, "the policy failed to compile, so the call is denied: "+err.Error())
	case !ok:
		return deny(c.ID, c.Tool, CodePolicyShape, "the policy gave no decision (data.toolgate.decision is undefined), so the call is denied")
	}
	return shape(c, out)
}

// errEval is an evaluation's error (not a compile's).
type errEval struct{ err error }

func (e errEval) Error() string { return e.err.Error() }

// Ready waits for the policy's compile (Options.Background) and returns
// its error, or ctx's if ctx ends first.
func (g *Gate) Ready(ctx context.Context) error {
	_, err := g.evaluator(ctx)
	return err
}

// evaluator waits for the compiled policy.
func (g *Gate) evaluator(ctx context.Context) (*evaluator, error) {
	select {
	case <-g.ready:
		return g.ev, g.evErr
	default:
	}
	select {
	case <-g.ready:
		return g.ev, g.evErr
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the policy to compile: %w", ctx.Err())
	}
}

// planResult takes the decision out of an irvm result set: one object
// binding the query's one variable. It is the JSON form topdown gives.
func planResult(set *value.Set) (any, bool) {
	if set == nil || set.Len() != 1 {
		return nil, false
	}
	obj, ok := set.Elems()[0].(*value.Object)
	if !ok || obj.Len() != 1 {
		return nil, false
	}
	_, v := obj.Entry(0)
	out, err := value.ToGo(v)
	return out, err == nil
}

// shape checks a policy answer: {"decision": allow|deny|ask, "reasons": [{"rule","message"}], "sandbox": {...}}.
func shape(c Call, v any) Result {
	bad := func(why string) Result {
		return deny(c.ID, c.Tool, CodePolicyShape, "the policy's decision has the wrong shape ("+why+"), so the call is denied")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return bad(fmt.Sprintf("want an object, got %T", v))
	}
	d, _ := obj["decision"].(string)
	if d != "allow" && d != "deny" && d != "ask" {
		return bad(fmt.Sprintf("decision %v is not allow, deny or ask", obj["decision"]))
	}
	res := Result{ID: c.ID, Tool: c.Tool, Decision: d, Reasons: []Reason{}}
	if rs, ok := obj["reasons"]; ok {
		list, ok := rs.([]any)
		if !ok {
			return bad("reasons is not an array")
		}
		for _, r := range list {
			m, ok := r.(map[string]any)
			if !ok {
				return bad("a reason is not an object")
			}
			rule, ok1 := m["rule"].(string)
			msg, ok2 := m["message"].(string)
			if !ok1 || !ok2 || rule == "" {
				return bad("a reason lacks a string rule or message")
			}
			res.Reasons = append(res.Reasons, Reason{Rule: rule, Message: msg})
		}
	}
	if d == "deny" && len(res.Reasons) == 0 {
		res.Reasons = append(res.Reasons, Reason{Rule: "policy.deny", Message: "denied by policy"})
	}
	if sb, ok := obj["sandbox"].(map[string]any); ok {
		res.Sandbox = sb
	}
	return res
}
