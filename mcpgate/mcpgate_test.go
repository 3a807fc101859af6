package mcpgate

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/runner"
	"github.com/toolgate/toolgate/sandbox"
	"github.com/toolgate/toolgate/tools"
)

// TestMain lets the test binary be the upstream MCP server of the proxy
// tests (MCPGATE_UPSTREAM=1): a small real server over stdio.
func TestMain(m *testing.M) {
	if os.Getenv("MCPGATE_UPSTREAM") == "1" {
		upstreamMain()
		return
	}
	os.Exit(m.Run())
}

type pathArgs struct {
	Path string `json:"path"`
}

type codeArgs struct {
	Path string `json:"path"`
	Code string `json:"code"`
}

func upstreamMain() {
	s := mcp.NewServer(&mcp.Implementation{Name: "test-upstream", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "read_text_file", Description: "read a file"}, func(ctx context.Context, req *mcp.CallToolRequest, a pathArgs) (*mcp.CallToolResult, any, error) {
		b, err := os.ReadFile(a.Path)
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "delete_everything", Description: "forbidden by the team policy"}, func(ctx context.Context, req *mcp.CallToolRequest, a struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "broken", Description: "fails with a protocol error"}, func(ctx context.Context, req *mcp.CallToolRequest, a struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, &jsonrpc.Error{Code: -32001, Message: "upstream exploded"}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "run_notebook_cell", Description: "runs code on a notebook"}, func(ctx context.Context, req *mcp.CallToolRequest, a codeArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran " + a.Code}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "image", Description: "returns an image"}, func(ctx context.Context, req *mcp.CallToolRequest, a struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"}}}, nil, nil
	})
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}

type fixture struct {
	ws, home string
	r        *runner.Runner
	sb       *sandbox.Sandbox
	log      string
}

func setup(t *testing.T, extraRego string) fixture {
	return setupWith(t, extraRego, runner.ApproveDeny)
}

func setupWith(t *testing.T, extraRego string, approve runner.Approve) fixture {
	t.Helper()
	root := t.TempDir()
	f := fixture{ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home"), log: filepath.Join(root, "audit.jsonl")}
	os.MkdirAll(f.ws, 0o755)
	os.MkdirAll(filepath.Join(f.home, ".ssh"), 0o755)
	os.WriteFile(filepath.Join(f.home, ".ssh", "id_rsa"), []byte("CANARY-KEY"), 0o600)
	os.WriteFile(filepath.Join(f.ws, "notes.txt"), []byte("hello notes\n"), 0o644)
	dirs := []string{"builtin"}
	if extraRego != "" {
		pd := filepath.Join(root, "team")
		os.MkdirAll(pd, 0o755)
		os.WriteFile(filepath.Join(pd, "team.rego"), []byte(extraRego), 0o644)
		dirs = append(dirs, pd)
	}
	g, err := gate.New(context.Background(), gate.Options{Workspace: f.ws, Home: f.home, PolicyDirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	f.sb, err = sandbox.New(sandbox.Config{Workspace: f.ws, Home: f.home, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.sb.Close() })
	files, err := tools.OpenWorkspace(g.Workspace())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { files.Close() })
	l, err := audit.Open(audit.Options{Path: f.log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	f.r, err = runner.New(runner.Options{Gate: g, Sandbox: f.sb, Files: files, Approve: approve,
		Audit: &runner.Auditor{Log: l, Source: "mcp", Mask: audit.DefaultMask}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// connect runs server and returns a real client session to it.
func connect(t *testing.T, server *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = server.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func TestServerToolsAndCalls(t *testing.T) {
	f := setup(t, "")
	cs := connect(t, NewServer(f.r, "test"))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		schema, _ := json.Marshal(tl.InputSchema)
		if !strings.Contains(string(schema), `"type":"object"`) {
			t.Errorf("%s: schema %s", tl.Name, schema)
		}
	}
	if len(names) != 7 {
		t.Errorf("tools: %v", names)
	}
	r := call(t, cs, "read_file", map[string]any{"path": "notes.txt"})
	if r.IsError || text(r) != "hello notes\n" {
		t.Errorf("read_file: %+v %q", r, text(r))
	}
	r = call(t, cs, "read_file", map[string]any{"path": filepath.Join(f.home, ".ssh", "id_rsa")})
	if !r.IsError || strings.Contains(text(r), "CANARY") || !strings.HasPrefix(text(r), "Error: read_file blocked by safety guard (") {
		t.Errorf("secret read: %+v %q", r, text(r))
	}
	r = call(t, cs, "write_file", map[string]any{"path": "x.txt"})
	if !r.IsError || !strings.Contains(text(r), "invalid arguments") {
		t.Errorf("missing content: %q", text(r))
	}
	if err := f.sb.Check(context.Background()); err == nil {
		r = call(t, cs, "exec", map[string]any{"command": "echo hi; exit 2"})
		if !r.IsError || text(r) != "hi\n\n\nExit code: 2" {
			t.Errorf("exec: %+v %q", r, text(r))
		}
		r = call(t, cs, "exec", map[string]any{"command": "rm -rf ~"})
		if !r.IsError || !strings.HasPrefix(text(r), "Error: Command blocked by safety guard (") {
			t.Errorf("rm -rf ~: %q", text(r))
		}
	}
	if res := audit.Verify([]string{f.log}, audit.VerifyOptions{}); res.Problem != nil || res.Decisions < 3 {
		t.Errorf("audit: %+v %v", res, res.Problem)
	}
}

const teamRule = `package toolgate

deny contains {"rule": "team.no_mass_delete", "message": "delete_everything is never allowed"} if input.tool == "delete_everything"
`

func TestProxyGatesAnUpstreamServer(t *testing.T) {
	f := setup(t, teamRule)
	cs := proxyClient(t, f)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tl := range res.Tools {
		listed[tl.Name] = true
	}
	if !listed["read_text_file"] || listed["delete_everything"] {
		t.Errorf("listed tools: %v", listed)
	}
	r := call(t, cs, "read_text_file", map[string]any{"path": filepath.Join(f.ws, "notes.txt")})
	if r.IsError || text(r) != "hello notes\n" {
		t.Errorf("allowed read: %+v %q", r, text(r))
	}
	for _, p := range []string{"/etc/passwd", filepath.Join(f.home, ".ssh", "id_rsa"), "~/.ssh/id_rsa", f.ws + "/../home/.ssh/id_rsa"} {
		r = call(t, cs, "read_text_file", map[string]any{"path": p})
		if !r.IsError || strings.Contains(text(r), "CANARY") || strings.Contains(text(r), "root:x:") || !strings.Contains(text(r), "blocked by safety guard") {
			t.Errorf("%s: %+v %q", p, r, text(r))
		}
	}
	// A hidden tool called anyway is refused by name.
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_everything", Arguments: map[string]any{}}); err == nil {
		t.Error("a hidden tool could be called")
	}
	// Protocol errors pass through; so do non-text results.
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "broken", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "upstream exploded") {
		t.Errorf("upstream error: %v", err)
	}
	r = call(t, cs, "image", map[string]any{})
	if img, ok := r.Content[0].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" {
		t.Errorf("image result: %+v", r.Content)
	}
	if res := audit.Verify([]string{f.log}, audit.VerifyOptions{}); res.Problem != nil || res.Decisions < 6 || res.Outcomes < 3 {
		t.Errorf("audit: %+v %v", res, res.Problem)
	}
}

// proxyClient starts the test upstream (this binary) behind a proxy for f
// and connects a client to it.
func proxyClient(t *testing.T, f fixture) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MCPGATE_UPSTREAM=1")
	p, err := NewProxy(context.Background(), f.r, cmd, "test", os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return connect(t, p.Server())
}

// TestProxyAsksOnCodeArguments: a call allowed for the path it names but
// carrying code for the upstream to run asks, as the hook does; with asks
// denied it does not reach the upstream.
func TestProxyAsksOnCodeArguments(t *testing.T) {
	f := setup(t, "")
	cs := proxyClient(t, f)
	r := call(t, cs, "run_notebook_cell", map[string]any{"path": filepath.Join(f.ws, "notes.txt"), "code": "import os; os.system('id')"})
	if !r.IsError || strings.Contains(text(r), "ran ") || !strings.Contains(text(r), "approve") {
		t.Errorf("code argument: %+v %q", r, text(r))
	}
	r = call(t, cs, "read_text_file", map[string]any{"path": filepath.Join(f.ws, "notes.txt")})
	if r.IsError {
		t.Errorf("a plain read: %q", text(r))
	}
}

func TestAsksGoToTheClientByElicitation(t *testing.T) {
	f := setupWith(t, "", runner.ApprovePrompt)
	if err := f.sb.Check(context.Background()); err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	for _, approve := range []bool{true, false} {
		var asked string
		client := mcp.NewClient(&mcp.Implementation{Name: "elicit-client", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked = req.Params.Message
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": approve}}, nil
			},
		})
		ct, st := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(context.Background())
		go func() { _ = NewServer(f.r, "test").Run(ctx, st) }()
		// Elicitation inside a request is how 2025 clients are asked; the
		// 2026-07-28 protocol moves it to multi-round-trip results, which
		// toolgate does not speak yet (the ask is then denied, saying so).
		cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		r := call(t, cs, "exec", map[string]any{"command": "git clean -fdx"})
		if !strings.Contains(asked, "git clean -fdx") || !strings.Contains(asked, "ask.git_destructive") {
			t.Errorf("elicitation message: %q", asked)
		}
		decision, _ := r.Meta["toolgate/decision"].(string)
		if approve && decision != "allow" || !approve && (decision != "deny" || !strings.Contains(text(r), "the user declined")) {
			t.Errorf("approve=%v: %s %q", approve, decision, text(r))
		}
		cs.Close()
		cancel()
	}
}
