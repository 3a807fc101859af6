package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/internal/homedir"
	"github.com/toolgate/toolgate/internal/sockhttp"
	"github.com/toolgate/toolgate/runner"
)

// DefaultSocketTimeout is how long the hook waits for a running service
// before it decides in-process.
const DefaultSocketTimeout = 2 * time.Second

// Options configure Decide.
type Options struct {
	// Workspace is the workspace root; "" means the event's cwd.
	Workspace string
	// Socket is the unix socket of a running `toolgate serve --socket`;
	// "" decides in-process at once.
	Socket string
	// SocketTimeout bounds the whole exchange with the service; default
	// DefaultSocketTimeout.
	SocketTimeout time.Duration
	// Local decides the calls of line in-process for the workspace ws
	// (absolute, symlinks resolved), when no service answered. Required.
	Local func(ctx context.Context, ws string, line []byte) ([]gate.Result, error)
	// Note receives what a user may want to know (the service did not
	// answer, and why); nil discards it.
	Note func(msg string)
}

// Decide answers one PreToolUse event read from the hook's stdin. An error
// means no answer could be made; the caller must then block the call.
func Decide(ctx context.Context, event []byte, o Options) (Answer, error) {
	ev, err := ParseEvent(event)
	if err != nil {
		return Answer{}, err
	}
	ws, err := Workspace(o.Workspace, ev)
	if err != nil {
		return Answer{}, err
	}
	m, err := Map(ev, ws)
	if err != nil {
		return Answer{}, err
	}
	if m.Answer != nil {
		return *m.Answer, nil
	}
	line, err := m.Line()
	if err != nil {
		return Answer{}, err
	}
	if o.Socket != "" && !m.External {
		timeout := o.SocketTimeout
		if timeout <= 0 {
			timeout = DefaultSocketTimeout
		}
		rs, err := AskSocket(ctx, o.Socket, ws, line, timeout)
		if err == nil {
			return combine(rs, len(m.Calls)), nil
		}
		if o.Note != nil {
			o.Note(fmt.Sprintf("the service at %s did not decide (%v); deciding here", o.Socket, err))
		}
	}
	if o.Local == nil {
		return Answer{}, errors.New("no way to decide in-process")
	}
	rs, err := o.Local(ctx, ws, line)
	if err != nil {
		return Answer{}, err
	}
	return combine(rs, len(m.Calls)), nil
}

// combine is Combine, and a deny when the decisions do not match the calls
// one for one (the decoder gives a single deny for a line it refuses whole,
// such as one over the size limit).
func combine(rs []gate.Result, calls int) Answer {
	a := Combine(rs)
	if len(rs) != calls && a.Decision != "deny" {
		return Deny(fmt.Sprintf("toolgate: %d decisions for %d calls, so the call is denied", len(rs), calls))
	}
	return a
}

// AskSocket posts line to /v1/check of the service listening on the unix
// socket, saying which workspace it is for, and returns its results. Any
// failure — no socket, no answer within timeout, another workspace (409),
// an answer without well-formed results — is an error, and the caller
// decides by other means.
func AskSocket(ctx context.Context, socket, ws string, line []byte, timeout time.Duration) ([]gate.Result, error) {
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// HTTP trims white space around header values, so such a path would
	// arrive as another directory's.
	if !sockhttp.HeaderSafe(ws) {
		return nil, errors.New("the workspace path cannot travel in an HTTP header")
	}
	headers := []sockhttp.Header{{Name: sockhttp.WorkspaceHeader, Value: ws}}
	if home := homedir.Get(); home != "" {
		if !sockhttp.HeaderSafe(home) {
			return nil, errors.New("the home path cannot travel in an HTTP header")
		}
		headers = append(headers, sockhttp.Header{Name: sockhttp.HomeHeader, Value: home}) // the service's ~ must be ours
	}
	headers = append(headers, sockhttp.Header{Name: sockhttp.UnsandboxedHeader, Value: "1"})
	status, body, err := sockhttp.Post(socket, "/v1/check", headers, line, deadline)
	if err != nil {
		return nil, err
	}
	if status != 200 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) != nil || e.Error == "" {
			e.Error = "no reason given"
		}
		return nil, fmt.Errorf("%d %s", status, e.Error)
	}
	var out struct {
		Results []gate.Result `json:"results"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("the answer is not JSON: %v", err)
	}
	if len(out.Results) == 0 {
		return nil, errors.New("the answer holds no results")
	}
	for _, r := range out.Results {
		switch r.Decision {
		case "allow", "deny", "ask":
		default:
			return nil, fmt.Errorf("a result's decision is %q", r.Decision)
		}
	}
	return out.Results, nil
}

// DecideLocal decides every call of line with r (each decision audited by
// the runner) and returns the results in order; a call that cannot be
// decoded is denied and recorded too.
func DecideLocal(ctx context.Context, r *runner.Runner, line []byte) []gate.Result {
	g := r.Gate()
	ds := g.Calls(line, 1)
	out := make([]gate.Result, 0, len(ds))
	for _, d := range ds {
		// Claude Code runs the tool itself, on the host: no sandbox
		// contains what the policy leaves to one.
		d.Call.Unsandboxed = true
		if d.Err != nil {
			res := d.Denied()
			r.Record(d.Call, &res)
			out = append(out, res)
			continue
		}
		if IsExternal(d.Call.Tool) {
			res := g.DecideExternal(ctx, d.Call)
			if res.Decision == "allow" && res.Input != nil && res.Input.Facts != nil &&
				len(res.Input.Facts.Paths) == 0 && len(res.Input.Facts.Commands) == 0 {
				// Nothing in the arguments tells toolgate what the tool
				// touches (a fetch, an issue tracker): an allow here would
				// skip Claude Code's own prompt on toolgate's say-so.
				res.Decision = "ask"
				res.Reasons = append(res.Reasons, gate.Reason{Rule: "toolgate.no_policy",
					Message: d.Call.Tool + "'s arguments name no path and no command, so toolgate cannot judge what it does; approve it yourself"})
			} else {
				// code to evaluate or an address to call beside the paths
				// judged: the paths alone do not say what it does
				gate.AskOnOpaque(d.Call, &res)
			}
			r.Record(d.Call, &res)
			out = append(out, res)
			continue
		}
		out = append(out, r.Decide(ctx, d.Call))
	}
	return out
}
