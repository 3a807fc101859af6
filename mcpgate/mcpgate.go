package mcpgate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/runner"
	"github.com/toolgate/toolgate/tools"
)

const instructions = "toolgate runs these tools for you in the workspace, inside a sandbox, after checking each call " +
	"against a security policy. A refused call returns an error result that says why: change the approach instead " +
	"of retrying the same call."

// NewServer returns an MCP server exposing toolgate's own tools. Every
// tools/call goes through r: decided, audited, run (exec in the sandbox).
// A refusal is a tool result with isError and the reasons as text, so the
// model can adapt; only malformed requests are protocol errors.
func NewServer(r *runner.Runner, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "toolgate", Version: version}, &mcp.ServerOptions{Instructions: instructions})
	var seq atomic.Uint64
	for _, t := range tools.All() {
		destructive := !t.ReadOnly
		openWorld := t.Name == "exec"
		s.AddTool(&mcp.Tool{
			Name:        t.Name,
			Description: t.Description,
			InputSchema: json.RawMessage(t.Schema),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: t.ReadOnly, DestructiveHint: &destructive, OpenWorldHint: &openWorld},
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			call := gate.Call{ID: fmt.Sprintf("mcp-%d", seq.Add(1)), Tool: t.Name, Args: args(req.Params.Arguments), Format: gate.FormatMCP}
			if err := runner.CheckArgs(call, call.Args); err != nil {
				return refused(call.ID, t.Name, err), nil
			}
			return result(r.Run(withElicitation(ctx, req.Session), call)), nil
		})
	}
	return s
}

// args is a call's arguments, {} when absent.
func args(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return json.RawMessage("{}")
	}
	return raw
}

// result turns a runner record into what the model sees.
func result(rec runner.Record) *mcp.CallToolResult {
	isErr := rec.Decision != "allow" || (rec.ExitCode != nil && *rec.ExitCode != 0) || rec.ExitCode == nil
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: rec.Output}},
		IsError: isErr,
		Meta:    meta(rec),
	}
}

func meta(rec runner.Record) mcp.Meta {
	m := mcp.Meta{"toolgate/decision": rec.Decision, "toolgate/reasons": rec.Reasons}
	if rec.ExitCode != nil {
		m["toolgate/exit_code"] = *rec.ExitCode
	}
	if rec.Approval != "" {
		m["toolgate/approval"] = rec.Approval
	}
	return m
}

// refused is the result of a call whose arguments the line decoder rejects
// (a NUL byte, duplicate keys, too deep): denied before any decision.
func refused(id, tool string, err error) *mcp.CallToolResult {
	code := "decode.invalid_arguments"
	var de *gate.DecodeError
	if errors.As(err, &de) {
		code = de.Code
	}
	rec := runner.Record{ID: id, Tool: tool, Decision: "deny", Reasons: []gate.Reason{{Rule: code, Message: err.Error()}},
		Output: tools.Blocked(tool, []string{err.Error()})}
	return result(rec)
}

// Proxy stands in front of another MCP server: it lists the upstream's
// tools (hiding those the policy forbids whatever their arguments) and
// decides every tools/call with the same policy before forwarding it.
type Proxy struct {
	r        *runner.Runner
	server   *mcp.Server
	session  *mcp.ClientSession
	mu       sync.Mutex
	listed   map[string]bool
	progress sync.Map // progress token (as JSON) → *mcp.ServerSession
	warn     io.Writer
	seq      atomic.Uint64
}

// NewProxy starts the upstream server (cmd, talking MCP over its stdin and
// stdout), connects to it and returns a server whose tools mirror it.
func NewProxy(ctx context.Context, r *runner.Runner, cmd *exec.Cmd, version string, warn io.Writer) (*Proxy, error) {
	p := &Proxy{r: r, listed: map[string]bool{}, warn: warn}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolgate", Version: version}, &mcp.ClientOptions{
		ToolListChangedHandler: func(ctx context.Context, _ *mcp.ToolListChangedRequest) {
			if err := p.syncTools(ctx); err != nil {
				fmt.Fprintf(p.warn, "toolgate: upstream tool list: %v\n", err)
			}
		},
		LoggingMessageHandler: func(ctx context.Context, req *mcp.LoggingMessageRequest) {
			for ss := range p.server.Sessions() {
				_ = ss.Log(ctx, req.Params)
			}
		},
		ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
			key, _ := json.Marshal(req.Params.ProgressToken)
			if v, ok := p.progress.Load(string(key)); ok {
				_ = v.(*mcp.ServerSession).NotifyProgress(ctx, req.Params)
			}
		},
	})
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("upstream MCP server %s: %w", strings.Join(cmd.Args, " "), err)
	}
	p.session = session
	name := "toolgate"
	if ir := session.InitializeResult(); ir != nil && ir.ServerInfo != nil {
		name = "toolgate (in front of " + ir.ServerInfo.Name + ")"
	}
	inst := instructions
	if ir := session.InitializeResult(); ir != nil && ir.Instructions != "" {
		inst = ir.Instructions + "\n\n" + instructions
	}
	p.server = mcp.NewServer(&mcp.Implementation{Name: name, Version: version}, &mcp.ServerOptions{Instructions: inst})
	if err := p.syncTools(ctx); err != nil {
		session.Close()
		return nil, err
	}
	return p, nil
}

// Server is the MCP server to run over the client's transport.
func (p *Proxy) Server() *mcp.Server { return p.server }

// Close ends the upstream session and stops the upstream process.
func (p *Proxy) Close() error { return p.session.Close() }

// syncTools lists the upstream's tools again and mirrors them: new ones
// are added, gone or now forbidden ones removed.
func (p *Proxy) syncTools(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := map[string]bool{}
	for t, err := range p.session.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing the upstream's tools: %w", err)
		}
		if forbidden, _ := p.r.Gate().ExternalForbidden(ctx, t.Name); forbidden {
			continue
		}
		if t.InputSchema == nil {
			t.InputSchema = map[string]any{"type": "object"}
		}
		seen[t.Name] = true
		if !p.listed[t.Name] {
			p.server.AddTool(t, p.handler(t.Name))
			p.listed[t.Name] = true
		}
	}
	var gone []string
	for n := range p.listed {
		if !seen[n] {
			gone = append(gone, n)
			delete(p.listed, n)
		}
	}
	if len(gone) > 0 {
		p.server.RemoveTools(gone...)
	}
	return nil
}

// handler decides a call to an upstream tool and forwards it when allowed;
// the upstream's result (every content type, structured content, isError)
// is passed through unchanged, and its protocol errors as errors.
func (p *Proxy) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		call := gate.Call{ID: fmt.Sprintf("mcp-%d", p.seq.Add(1)), Tool: name, Args: args(req.Params.Arguments), Format: gate.FormatMCP}
		if err := runner.CheckArgs(call, call.Args); err != nil {
			return refused(call.ID, name, err), nil
		}
		if tok := req.Params.GetProgressToken(); tok != nil {
			key, _ := json.Marshal(tok)
			p.progress.Store(string(key), req.Session)
			defer p.progress.Delete(string(key))
		}
		var upstream *mcp.CallToolResult
		rec, err := p.r.Forward(withElicitation(ctx, req.Session), call, func(ctx context.Context, call gate.Call) (string, bool, error) {
			res, err := p.session.CallTool(ctx, &mcp.CallToolParams{Meta: req.Params.Meta, Name: name, Arguments: call.Args})
			if err != nil {
				return "", true, err
			}
			upstream = res
			return contentText(res), res.IsError, nil
		})
		if err != nil {
			var je *jsonrpc.Error
			if errors.As(err, &je) {
				return nil, je
			}
			return nil, err
		}
		if rec.Decision != "allow" || upstream == nil {
			return result(rec), nil
		}
		return upstream, nil
	}
}

// contentText is the text of a result, for the audit log's output digest.
func contentText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		switch x := c.(type) {
		case *mcp.TextContent:
			b.WriteString(x.Text)
		default:
			if j, err := json.Marshal(c); err == nil {
				b.Write(j)
			}
		}
	}
	if res.StructuredContent != nil {
		if j, err := json.Marshal(res.StructuredContent); err == nil {
			b.Write(j)
		}
	}
	return b.String()
}
