package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/parser"
	"github.com/toolgate/toolgate/sandbox"
	"github.com/toolgate/toolgate/tools"
)

// Approve says what happens to a call the policy answers with ask.
type Approve string

const (
	// ApprovePrompt asks the person at the terminal; with no terminal the
	// call is denied.
	ApprovePrompt Approve = "prompt"
	// ApproveDeny denies every ask.
	ApproveDeny Approve = "deny"
	// ApproveAllow allows every ask (the reasons stay on the record).
	ApproveAllow Approve = "allow"
)

// ParseApprove reads an --approve value.
func ParseApprove(s string) (Approve, error) {
	switch Approve(s) {
	case ApprovePrompt, ApproveDeny, ApproveAllow:
		return Approve(s), nil
	}
	return "", fmt.Errorf("unknown approval mode %q (want prompt, deny or allow)", s)
}

// Stable rule ids of the reasons the runner adds to a decision.
const (
	RuleApprovalDenied     = "approval.denied"      // --approve deny
	RuleApprovalDeclined   = "approval.declined"    // the person answered no
	RuleApprovalNoTerminal = "approval.no_terminal" // nobody to ask
)

// Options configure a Runner.
type Options struct {
	Gate *gate.Gate
	// Sandbox runs exec calls; nil for a front end that runs none (the
	// hook decides and the agent runs): an allowed exec call is then
	// refused, never run.
	Sandbox *sandbox.Sandbox
	Files   *tools.Workspace
	Approve Approve
	// Prompter asks about ask decisions under ApprovePrompt; nil means the
	// terminal (/dev/tty), or nobody when there is none.
	Prompter Prompter
	// Audit records every decision (durably, before the call runs) and
	// every outcome; nil records nothing.
	Audit *Auditor
	// Warn receives problems that do not change a record (an outcome that
	// could not be logged); nil discards them.
	Warn func(msg string)
}

// Runner decides calls and executes the allowed ones.
type Runner struct {
	o Options
	// g is the gate in use; SetGate swaps it (a reloaded policy) while
	// calls are in flight.
	g atomic.Pointer[gate.Gate]
	// promptMu keeps prompts one at a time.
	promptMu sync.Mutex
	// beforeRun: see BeforeRun.
	beforeRun func() error
}

// Gate is the gate calls are decided with.
func (r *Runner) Gate() *gate.Gate { return r.g.Load() }

// BeforeRun has fn called each time the calls of a group were decided and
// their decisions recorded (on disk, with --fsync always) and before any
// of them runs, and before a person is asked about a call. `run` writes
// the answer it held back for the line before then: the decision's fsync
// covered that line's outcome record too. When fn fails (the answer could
// not be written), the group's calls do not run. Not safe to change while
// Line runs.
func (r *Runner) BeforeRun(fn func() error) { r.beforeRun = fn }

// flush calls the BeforeRun function, if any.
func (r *Runner) flush() error {
	if r.beforeRun == nil {
		return nil
	}
	return r.beforeRun()
}

// SetGate makes later calls use g (a reloaded policy); calls already being
// decided finish with the gate they started with.
func (r *Runner) SetGate(g *gate.Gate) { r.g.Store(g) }

// New returns a runner. Gate and Files are required.
func New(o Options) (*Runner, error) {
	if o.Gate == nil || o.Files == nil {
		return nil, errors.New("runner: gate and files are required")
	}
	if o.Approve == "" {
		o.Approve = ApprovePrompt
	}
	if _, err := ParseApprove(string(o.Approve)); err != nil {
		return nil, err
	}
	r := &Runner{o: o}
	r.g.Store(o.Gate)
	return r, nil
}

// Record is the result of one call: the decision and, when it ran, what the
// tool did. Output is exactly the text the model should see.
type Record struct {
	ID       string        `json:"id"`
	Tool     string        `json:"tool"`
	Decision string        `json:"decision"`
	Reasons  []gate.Reason `json:"reasons"`
	Output   string        `json:"output"`
	// ExitCode is the command's exit code for exec, 0 or 1 for the other
	// tools, and null when nothing ran.
	ExitCode   *int  `json:"exit_code"`
	DurationMS int64 `json:"duration_ms"`
	Truncated  bool  `json:"truncated"`
	// Sandbox names how exec ran ("bwrap" or "none"); empty for other tools.
	Sandbox string `json:"sandbox,omitempty"`
	// Approval says how an ask was settled: approved, edited, declined,
	// denied (by --approve deny), auto (by --approve allow), no_terminal.
	Approval string `json:"approval,omitempty"`
	// Args are the arguments that ran when an edit changed them.
	Args json.RawMessage `json:"args,omitempty"`
}

// Line decides and runs every call of one input line and returns their
// records in input order. Consecutive concurrency-safe calls run in
// parallel; every other call runs alone, in order. Each call is decided
// just before its group runs, so it is judged against the files as the
// calls before it left them.
func (r *Runner) Line(ctx context.Context, line []byte, lineNo int) []Record {
	ds := r.Gate().Calls(line, lineNo)
	out := make([]Record, len(ds))
	for i := 0; i < len(ds); {
		j := i + 1
		if safe(ds[i]) {
			for j < len(ds) && safe(ds[j]) {
				j++
			}
		}
		r.group(ctx, ds[i:j], out[i:j])
		i = j
	}
	return out
}

// safe says whether a decoded call may run beside others.
func safe(d gate.Decoded) bool {
	if d.Err != nil {
		return true // a decode error runs nothing
	}
	t, ok := tools.Lookup(d.Call.Tool)
	return ok && t.ConcurrencySafe && !t.Exclusive
}

// group decides the calls one after the other (prompts need a turn each),
// then runs the allowed ones, in parallel when there are several.
func (r *Runner) group(ctx context.Context, ds []gate.Decoded, out []Record) {
	type job struct {
		i    int
		call gate.Call
		res  gate.Result
	}
	var jobs []job
	for i, d := range ds {
		if d.Err != nil {
			res := d.Denied()
			r.logDecision(d.Call, &res, "", "")
			out[i] = denied(res, "")
			continue
		}
		call, res, approval := r.decide(ctx, d.Call)
		mode := ""
		if call.Tool == "exec" && r.o.Sandbox != nil {
			mode = string(r.o.Sandbox.Mode())
		}
		// The decision is on disk before anything runs; a call that
		// cannot be logged does not run.
		r.logDecision(call, &res, approval, mode)
		if res.Decision != "allow" {
			out[i] = denied(res, approval)
			continue
		}
		out[i] = Record{ID: call.ID, Tool: call.Tool, Decision: "allow", Reasons: nonNil(res.Reasons), Approval: approval}
		if !bytes.Equal(call.Args, d.Call.Args) {
			out[i].Args = call.Args
		}
		jobs = append(jobs, job{i, call, res})
	}
	if len(jobs) > 0 {
		if err := r.flush(); err != nil {
			// The answer before could not be written (the agent is
			// gone): nothing more runs.
			for _, j := range jobs {
				out[j.i].Output = "Error: Command not run: the answer to the call before it could not be written (" + err.Error() + ")"
				r.logOutcome(&out[j.i])
			}
			return
		}
	}
	if len(jobs) == 1 {
		r.execute(ctx, jobs[0].call, jobs[0].res, &out[jobs[0].i])
		r.logOutcome(&out[jobs[0].i])
		return
	}
	sem := make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r.execute(ctx, j.call, j.res, &out[j.i])
		}()
	}
	wg.Wait()
	for _, j := range jobs {
		r.logOutcome(&out[j.i])
	}
}

// Run decides one call, settles an ask, records the decision, executes the
// call when it is allowed and records its outcome: what a front end that
// receives calls one at a time (MCP, HTTP) needs.
func (r *Runner) Run(ctx context.Context, call gate.Call) Record {
	out := make([]Record, 1)
	r.group(ctx, []gate.Decoded{{Call: call}}, out)
	return out[0]
}

// Forward decides a call to a tool of an upstream server (the gate's
// DecideExternal), settles an ask, records the decision and, when the call
// is allowed, runs it with fn and records the outcome. fn returns the text
// the model sees and whether the tool reported an error; an error from fn
// (the upstream failed) is returned as is, after its outcome is recorded.
func (r *Runner) Forward(ctx context.Context, call gate.Call, fn func(ctx context.Context, call gate.Call) (output string, isError bool, err error)) (Record, error) {
	g := r.Gate()
	call, res, approval := r.decideWith(ctx, call, func(ctx context.Context, call gate.Call) gate.Result {
		res := g.DecideExternal(ctx, call)
		gate.AskOnOpaque(call, &res)
		return res
	})
	r.logDecision(call, &res, approval, "upstream")
	if res.Decision != "allow" {
		return denied(res, approval), nil
	}
	rec := Record{ID: call.ID, Tool: call.Tool, Decision: "allow", Reasons: nonNil(res.Reasons), Approval: approval, Sandbox: "upstream"}
	start := time.Now()
	out, isErr, err := fn(ctx, call)
	rec.DurationMS = time.Since(start).Milliseconds()
	rec.Output = out
	code := 0
	if isErr || err != nil {
		code = 1
	}
	if err != nil {
		rec.Output = "Error: the upstream server failed: " + err.Error()
	}
	rec.ExitCode = &code
	r.logOutcome(&rec)
	return rec, err
}

// Decide decides one call and records the decision without running it, as
// check and the Claude Code hook do (the caller runs the tool). An ask is
// returned as an ask; the caller's own approval flow settles it.
func (r *Runner) Decide(ctx context.Context, call gate.Call) gate.Result {
	res := r.Gate().Decide(ctx, call)
	r.logDecision(call, &res, "", "")
	return res
}

// DecideExternal decides a call to a tool toolgate does not run (an upstream
// MCP server's, or an MCP tool a Claude Code hook asks about) and records
// the decision; an ask stays an ask.
func (r *Runner) DecideExternal(ctx context.Context, call gate.Call) gate.Result {
	res := r.Gate().DecideExternal(ctx, call)
	r.logDecision(call, &res, "", "")
	return res
}

// Record writes the decision record of a call decided outside the runner
// (a line that could not be decoded, an upstream tool a hook asks about)
// with the gate in use; when it cannot, the decision becomes a deny.
func (r *Runner) Record(call gate.Call, res *gate.Result) {
	r.logDecision(call, res, "", "")
}

// logDecision writes the decision record; when it cannot, the decision
// becomes a deny saying why.
func (r *Runner) logDecision(call gate.Call, res *gate.Result, approval, mode string) {
	r.o.Audit.Record(r.Gate().PolicyDigest(), call, res, approval, mode)
}

func (r *Runner) logOutcome(rec *Record) {
	if err := r.o.Audit.OutcomeWith(r.Gate().PolicyDigest(), rec); err != nil && r.o.Warn != nil {
		r.o.Warn(fmt.Sprintf("the outcome of call %s could not be written to the audit log: %v", rec.ID, err))
	}
}

func nonNil(rs []gate.Reason) []gate.Reason {
	if rs == nil {
		return []gate.Reason{}
	}
	return rs
}

// denied is the record of a call that does not run.
func denied(res gate.Result, approval string) Record {
	var msgs []string
	for _, r := range res.Reasons {
		msgs = append(msgs, r.Message)
	}
	return Record{
		ID: res.ID, Tool: res.Tool, Decision: "deny", Reasons: nonNil(res.Reasons),
		Output: tools.Blocked(res.Tool, msgs), Approval: approval,
	}
}

// decide asks the gate and settles an ask. It returns the call that may run
// (its arguments edited, perhaps) and the final decision.
func (r *Runner) decide(ctx context.Context, call gate.Call) (gate.Call, gate.Result, string) {
	return r.decideWith(ctx, call, r.Gate().Decide)
}

// decideWith is decide with the gate's method for the kind of call: Decide
// for toolgate's tools, DecideExternal for an upstream server's.
func (r *Runner) decideWith(ctx context.Context, call gate.Call, decideFn func(context.Context, gate.Call) gate.Result) (gate.Call, gate.Result, string) {
	res := decideFn(ctx, call)
	if res.Decision != "ask" {
		return call, res, ""
	}
	switch r.o.Approve {
	case ApproveAllow:
		res.Decision = "allow"
		return call, res, "auto"
	case ApproveDeny:
		return call, refuse(res, RuleApprovalDenied, "the policy asks for approval and asks are denied (--approve deny); do it another way or ask the user to allow it"), "denied"
	}
	r.promptMu.Lock()
	defer r.promptMu.Unlock()
	p := prompterFrom(ctx)
	if p == nil {
		p = r.o.Prompter
	}
	if p == nil {
		p = terminal()
	}
	if p != nil {
		// A held answer goes out before a person is asked (a failure
		// stops the calls at BeforeRun).
		_ = r.flush()
	}
	edited := false
	for range 20 {
		if p == nil {
			return call, refuse(res, RuleApprovalNoTerminal, "the policy asks for approval and there is no terminal to ask on, so the call is denied; run toolgate with --approve allow to allow asks"), "no_terminal"
		}
		ans, err := p.Ask(call, res.Reasons)
		if err != nil {
			return call, refuse(res, RuleApprovalNoTerminal, "the policy asks for approval and the terminal could not be asked ("+err.Error()+"), so the call is denied"), "no_terminal"
		}
		switch ans {
		case AnswerYes:
			res.Decision = "allow"
			if edited {
				return call, res, "edited"
			}
			return call, res, "approved"
		case AnswerEdit:
			args, err := p.Edit(call.Args)
			if err != nil {
				p.Note("edit failed: " + err.Error())
				continue
			}
			if err := CheckArgs(call, args); err != nil {
				p.Note("the edited arguments were refused: " + err.Error())
				continue
			}
			call.Args = args
			edited = true
			res = decideFn(ctx, call)
			if res.Decision != "ask" {
				p.Note("after the edit the policy says " + res.Decision)
				return call, res, "edited"
			}
		default:
			return call, refuse(res, RuleApprovalDeclined, "the user declined this call; do not retry it as it is, ask the user what to do instead"), "declined"
		}
	}
	return call, refuse(res, RuleApprovalDeclined, "no answer after repeated edits; the call is denied"), "declined"
}

// CheckArgs puts arguments that did not come through an input line (an
// edit, an MCP request) through the same decoder as input lines (NUL
// bytes, duplicate keys, size and depth limits), so they cannot smuggle in
// what a line could not.
func CheckArgs(call gate.Call, args json.RawMessage) error {
	line, err := json.Marshal(map[string]any{"id": call.ID, "name": call.Tool, "arguments": args})
	if err != nil {
		return err
	}
	ds := gate.DecodeLine(line, gate.DefaultLimits())
	if len(ds) != 1 {
		return errors.New("the edit did not give one call")
	}
	if ds[0].Err != nil {
		return ds[0].Err
	}
	return nil
}

func refuse(res gate.Result, rule, msg string) gate.Result {
	res.Decision = "deny"
	res.Reasons = append(append([]gate.Reason{}, res.Reasons...), gate.Reason{Rule: rule, Message: msg})
	return res
}

// execute runs one allowed call and fills its record. A panic in a tool is
// an error record, never a crash of the stream.
func (r *Runner) execute(ctx context.Context, call gate.Call, res gate.Result, rec *Record) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			rec.Output = fmt.Sprintf("Error: internal error while running %s (%v)", call.Tool, p)
			one := 1
			rec.ExitCode = &one
			if os.Getenv("TOOLGATE_DEBUG") != "" {
				fmt.Fprintf(os.Stderr, "toolgate: panic: %v\n%s", p, debug.Stack())
			}
		}
		rec.DurationMS = time.Since(start).Milliseconds()
	}()
	var a struct {
		Command    string `json:"command"`
		WorkingDir string `json:"working_dir"`
		Path       string `json:"path"`
		Offset     int    `json:"offset"`
		Limit      int    `json:"limit"`
		Content    string `json:"content"`
		OldText    string `json:"old_text"`
		NewText    string `json:"new_text"`
		Pattern    string `json:"pattern"`
		Glob       string `json:"glob"`
		MaxResults int    `json:"max_results"`
	}
	if err := json.Unmarshal(call.Args, &a); err != nil {
		rec.Output = "Error: arguments could not be read: " + err.Error()
		return
	}
	if call.Tool == "exec" {
		r.exec(ctx, a.Command, res, rec)
		return
	}
	var t tools.Result
	fs := r.o.Files
	switch call.Tool {
	case "read_file":
		t = fs.ReadFile(a.Path, a.Offset, a.Limit)
	case "write_file":
		t = fs.WriteFile(a.Path, a.Content)
	case "edit_file":
		t = fs.EditFile(a.Path, a.OldText, a.NewText)
	case "list_dir":
		t = fs.ListDir(a.Path)
	case "search":
		t = fs.Search(a.Pattern, a.Path, a.Glob, a.MaxResults)
	case "glob":
		t = fs.Glob(a.Pattern)
	default:
		rec.Output = "Error: no implementation for tool " + call.Tool
		return
	}
	code := 0
	if t.IsError {
		code = 1
	}
	rec.Output, rec.ExitCode, rec.Truncated = t.Output, &code, t.Truncated
}

// exec runs a command in the sandbox, in the directory the gate judged.
func (r *Runner) exec(ctx context.Context, command string, res gate.Result, rec *Record) {
	sb := r.o.Sandbox
	if sb == nil {
		rec.Output = "Error: Command not run: this front end runs no commands"
		return
	}
	rec.Sandbox = string(sb.Mode())
	out, err := sb.Run(ctx, r.request(command, res, rec.Approval))
	if err != nil {
		var u *sandbox.Unavailable
		if errors.As(err, &u) {
			rec.Output = "Error: Command not run: the sandbox is unavailable (" + u.Reason + "). Hint: " + u.Hint
			return
		}
		rec.Output = "Error: Command not run: " + err.Error()
		return
	}
	rec.Output, rec.Truncated = tools.FormatExec(out, sb.Timeout())
	if out.Stdout.Gap > 0 || out.Stderr.Gap > 0 || out.OutputLimited {
		rec.Truncated = true
	}
	code := out.ExitCode
	rec.ExitCode = &code
}

// request is the sandbox request of an allowed exec call: in the directory
// the gate judged, with the network when the decision grants it.
func (r *Runner) request(command string, res gate.Result, approval string) sandbox.Request {
	dir := r.o.Sandbox.Workspace()
	if res.Input != nil && res.Input.Cwd != "" {
		dir = res.Input.Cwd
	}
	network, _ := res.Sandbox["network"].(bool)
	if onApproval, _ := res.Sandbox["network_on_approval"].(bool); onApproval {
		// The ask was about network access; a person (or --approve allow)
		// said yes to it.
		switch approval {
		case "approved", "edited", "auto":
			network = true
		}
	}
	return sandbox.Request{Command: command, Dir: dir, Network: network}
}

// SandboxMasks returns the absolute secret paths of a policy's
// data.toolgate.config (sensitive_paths), or the default list: the sandbox
// hides them where they lie inside a directory it shows.
func SandboxMasks(cfg map[string]any) []string {
	list := parser.DefaultConfig().SensitivePaths
	if v, ok := cfg["sensitive_paths"].([]any); ok {
		list = nil
		for _, x := range v {
			if s, ok := x.(string); ok {
				list = append(list, s)
			}
		}
	}
	return list
}

// Ahead is the box made ahead for the exec call of a line not run yet
// (Prestart); the zero Ahead is none.
type Ahead struct{ ticket uint64 }

// Prestart has the sandbox make the box of a line's call ahead of its
// turn, when the line is one exec call, without working_dir, that the policy
// allows as things stand now. It runs nothing and records nothing: the
// call is decided again in its turn, against the files as the calls before
// it left them, and runs in that box only if the sandbox would make the
// same box then (sandbox.Prestart). Forget drops the box once the line
// has run.
//
// call is the line's one exec call (SingleExec). A panic here makes no
// box: making one ahead is only ever a saving.
func (r *Runner) Prestart(ctx context.Context, call gate.Call) (ahead Ahead) {
	defer func() {
		if recover() != nil {
			ahead = Ahead{}
		}
	}()
	sb := r.o.Sandbox
	if sb == nil || sb.Mode() != sandbox.ModeBwrap || call.Tool != "exec" {
		return Ahead{}
	}
	var a struct {
		Command    string  `json:"command"`
		WorkingDir *string `json:"working_dir"`
	}
	if json.Unmarshal(call.Args, &a) != nil || a.Command == "" || (a.WorkingDir != nil && *a.WorkingDir != "") {
		return Ahead{}
	}
	res := r.Gate().Decide(ctx, call)
	approval := ""
	switch {
	case res.Decision == "allow":
	case res.Decision == "ask" && r.o.Approve == ApproveAllow:
		approval = "auto"
	default:
		return Ahead{}
	}
	return Ahead{sb.Prestart(r.request(a.Command, res, approval))}
}

// Forget drops the box made ahead for a line that has run, if its call did
// not use it.
func (r *Runner) Forget(a Ahead) {
	if a.ticket != 0 && r.o.Sandbox != nil {
		r.o.Sandbox.Forget(a.ticket)
	}
}

// CanPrestart says whether Prestart can make boxes now.
func (r *Runner) CanPrestart() bool {
	return r.o.Sandbox != nil && r.o.Sandbox.CanPrestart()
}

// DiscardPrestarted drops every box made ahead.
func (r *Runner) DiscardPrestarted() {
	if r.o.Sandbox != nil {
		r.o.Sandbox.DiscardPrestarted()
	}
}

// SingleExec returns the call of a line that holds exactly one exec call
// and nothing else.
func (r *Runner) SingleExec(line []byte, lineNo int) (gate.Call, bool) {
	ds := r.Gate().Calls(line, lineNo)
	if len(ds) != 1 || ds[0].Err != nil || ds[0].Call.Tool != "exec" {
		return gate.Call{}, false
	}
	return ds[0].Call, true
}
