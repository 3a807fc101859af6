package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/sandbox"
	"github.com/toolgate/toolgate/tools"
)

const allowAll = `package toolgate

decision := {"decision": "allow", "reasons": [], "sandbox": {"network": false}}
`

type fixture struct {
	ws, home string
	r        *Runner
	sb       *sandbox.Sandbox
}

// setup builds a runner over a fresh workspace with the real gate, sandbox
// and file tools. policy "" is the embedded default.
func setup(t *testing.T, policy string, approve Approve, p Prompter, sbMod func(*sandbox.Config)) fixture {
	t.Helper()
	root := t.TempDir()
	f := fixture{ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home")}
	for _, d := range []string{f.ws, filepath.Join(f.home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(f.home, ".ssh", "id_rsa"), []byte("CANARY-KEY\n"), 0o600)
	os.WriteFile(filepath.Join(f.ws, "a.txt"), []byte("alpha\n"), 0o644)
	os.WriteFile(filepath.Join(f.ws, "b.txt"), []byte("beta\n"), 0o644)
	var dirs []string
	if policy != "" {
		pd := filepath.Join(root, "policy")
		os.MkdirAll(pd, 0o755)
		os.WriteFile(filepath.Join(pd, "p.rego"), []byte(policy), 0o644)
		dirs = []string{pd}
	}
	g, err := gate.New(context.Background(), gate.Options{Workspace: f.ws, Home: f.home, PolicyDirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	cfg := sandbox.Config{Workspace: f.ws, Home: f.home, Timeout: 20 * time.Second, Mask: SandboxMasks(g.Policy().Config())}
	if sbMod != nil {
		sbMod(&cfg)
	}
	f.sb, err = sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.sb.Close() })
	files, err := tools.OpenWorkspace(g.Workspace())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { files.Close() })
	f.r, err = New(Options{Gate: g, Sandbox: f.sb, Files: files, Approve: approve, Prompter: p})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func needBwrap(t *testing.T, f fixture) {
	t.Helper()
	if err := f.sb.Check(context.Background()); err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
}

func line(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func call(id, tool string, args map[string]any) map[string]any {
	return map[string]any{"id": id, "name": tool, "arguments": args}
}

func TestExecRunsInTheSandbox(t *testing.T) {
	f := setup(t, allowAll, ApproveDeny, nil, nil)
	needBwrap(t, f)
	recs := f.r.Line(context.Background(), line(t, call("1", "exec", map[string]any{"command": "echo hi; echo oops >&2; exit 3"})), 1)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if r.Decision != "allow" || r.Output != "hi\n\nSTDERR:\noops\n\n\nExit code: 3" || r.ExitCode == nil || *r.ExitCode != 3 || r.Sandbox != "bwrap" {
		t.Errorf("record %+v", r)
	}
	// Under a policy that allows everything the box still hides the home.
	recs = f.r.Line(context.Background(), line(t, call("2", "exec", map[string]any{"command": "cat " + filepath.Join(f.home, ".ssh/id_rsa")})), 2)
	if strings.Contains(recs[0].Output, "CANARY") {
		t.Errorf("secret read through an allow-all policy: %q", recs[0].Output)
	}
}

func TestWorkingDir(t *testing.T) {
	f := setup(t, "", ApproveDeny, nil, nil)
	needBwrap(t, f)
	os.Mkdir(filepath.Join(f.ws, "sub"), 0o755)
	recs := f.r.Line(context.Background(), line(t, call("1", "exec", map[string]any{"command": "pwd", "working_dir": "sub"})), 1)
	if recs[0].Output != filepath.Join(f.ws, "sub")+"\n" {
		t.Errorf("record %+v", recs[0])
	}
}

func TestDeniedCallDoesNotRun(t *testing.T) {
	f := setup(t, "", ApproveDeny, nil, nil)
	recs := f.r.Line(context.Background(), line(t, call("1", "exec", map[string]any{"command": "rm -rf ~"})), 1)
	r := recs[0]
	if r.Decision != "deny" || r.ExitCode != nil || !strings.HasPrefix(r.Output, "Error: Command blocked by safety guard (") {
		t.Fatalf("record %+v", r)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "a.txt")); err != nil {
		t.Fatal("a denied command ran")
	}
	recs = f.r.Line(context.Background(), []byte(`{"id":"x","name":"read_file","arguments":{"path":"../home/.ssh/id_rsa"}}`), 2)
	if recs[0].Decision != "deny" || strings.Contains(recs[0].Output, "CANARY") || !strings.HasPrefix(recs[0].Output, "Error: read_file blocked by safety guard (") {
		t.Errorf("record %+v", recs[0])
	}
	recs = f.r.Line(context.Background(), []byte(`{not json`), 3)
	if recs[0].Decision != "deny" || recs[0].ID != "line-3" || recs[0].ExitCode != nil {
		t.Errorf("bad line: %+v", recs[0])
	}
}

func TestBatchKeepsInputOrder(t *testing.T) {
	f := setup(t, allowAll, ApproveDeny, nil, nil)
	needBwrap(t, f)
	batch := []any{
		call("r1", "read_file", map[string]any{"path": "a.txt"}),
		call("r2", "read_file", map[string]any{"path": "b.txt"}),
		call("w", "write_file", map[string]any{"path": "c.txt", "content": "gamma\n"}),
		call("x", "exec", map[string]any{"command": "cat c.txt"}),
		call("l", "list_dir", map[string]any{"path": "."}),
		call("g", "glob", map[string]any{"pattern": "*.txt"}),
	}
	recs := f.r.Line(context.Background(), line(t, batch), 1)
	want := []struct{ id, out string }{
		{"r1", "alpha\n"}, {"r2", "beta\n"},
		{"w", "Successfully wrote 6 bytes to " + filepath.Join(f.ws, "c.txt")},
		{"x", "gamma\n"},
		{"l", "📄 a.txt\n📄 b.txt\n📄 c.txt"},
		{"g", "a.txt\nb.txt\nc.txt"},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records", len(recs))
	}
	for i, w := range want {
		if recs[i].ID != w.id || recs[i].Output != w.out || recs[i].ExitCode == nil || *recs[i].ExitCode != 0 {
			t.Errorf("record %d: %+v, want id %s output %q", i, recs[i], w.id, w.out)
		}
	}
}

// scripted answers asks from a list: it stands in for the person.
type scripted struct {
	answers []Answer
	edit    func(json.RawMessage) json.RawMessage
	asked   int
	notes   []string
}

func (s *scripted) Ask(gate.Call, []gate.Reason) (Answer, error) {
	if s.asked >= len(s.answers) {
		return 0, errors.New("no more answers")
	}
	s.asked++
	return s.answers[s.asked-1], nil
}
func (s *scripted) Edit(a json.RawMessage) (json.RawMessage, error) { return s.edit(a), nil }
func (s *scripted) Note(m string)                                   { s.notes = append(s.notes, m) }

func TestAskApprovals(t *testing.T) {
	askCall := line(t, call("1", "exec", map[string]any{"command": "git clean -fdx"}))
	for _, c := range []struct {
		approve  Approve
		p        Prompter
		decision string
		approval string
		rule     string
	}{
		{ApproveDeny, nil, "deny", "denied", RuleApprovalDenied},
		{ApprovePrompt, &scripted{answers: []Answer{AnswerNo}}, "deny", "declined", RuleApprovalDeclined},
		{ApprovePrompt, &scripted{}, "deny", "no_terminal", RuleApprovalNoTerminal},
		{ApprovePrompt, &scripted{answers: []Answer{AnswerYes}}, "allow", "approved", ""},
		{ApproveAllow, nil, "allow", "auto", ""},
	} {
		f := setup(t, "", c.approve, c.p, nil)
		needBwrap(t, f)
		r := f.r.Line(context.Background(), askCall, 1)[0]
		if r.Decision != c.decision || r.Approval != c.approval {
			t.Errorf("%s/%T: %+v", c.approve, c.p, r)
		}
		if c.rule != "" && (len(r.Reasons) < 2 || r.Reasons[len(r.Reasons)-1].Rule != c.rule || r.ExitCode != nil) {
			t.Errorf("%s: reasons %+v", c.approve, r.Reasons)
		}
		if c.decision == "allow" && (r.ExitCode == nil || r.Reasons[0].Rule != "ask.git_destructive") {
			t.Errorf("%s: approved call did not run or lost its reasons: %+v", c.approve, r)
		}
	}
}

func TestAskEditDecidesAgain(t *testing.T) {
	p := &scripted{answers: []Answer{AnswerEdit}, edit: func(json.RawMessage) json.RawMessage {
		return json.RawMessage(`{"command":"git clean -n"}`)
	}}
	f := setup(t, "", ApprovePrompt, p, nil)
	needBwrap(t, f)
	r := f.r.Line(context.Background(), line(t, call("1", "exec", map[string]any{"command": "git clean -fdx"})), 1)[0]
	if r.Decision != "allow" || r.Approval != "edited" || string(r.Args) != `{"command":"git clean -n"}` || r.ExitCode == nil {
		t.Errorf("record %+v notes %v", r, p.notes)
	}
	// An edit into something denied is denied.
	p = &scripted{answers: []Answer{AnswerEdit}, edit: func(json.RawMessage) json.RawMessage {
		return json.RawMessage(`{"command":"rm -rf ~"}`)
	}}
	f = setup(t, "", ApprovePrompt, p, nil)
	r = f.r.Line(context.Background(), line(t, call("1", "exec", map[string]any{"command": "git clean -fdx"})), 1)[0]
	if r.Decision != "deny" || r.ExitCode != nil {
		t.Errorf("edited into a deny: %+v", r)
	}
	// An edit with a NUL byte is refused like an input line would be.
	p = &scripted{answers: []Answer{AnswerEdit, AnswerNo}, edit: func(json.RawMessage) json.RawMessage {
		return json.RawMessage(`{"command":"ls\u0000"}`)
	}}
	f = setup(t, "", ApprovePrompt, p, nil)
	r = f.r.Line(context.Background(), line(t, call("1", "exec", map[string]any{"command": "git clean -fdx"})), 1)[0]
	if r.Decision != "deny" || len(p.notes) == 0 {
		t.Errorf("NUL edit: %+v notes %v", r, p.notes)
	}
}

func TestTerminalPromptWithRealEditor(t *testing.T) {
	var out strings.Builder
	term := &Terminal{In: strings.NewReader("maybe\ne\ny\n"), Out: &out, Editor: "sed -i s/-fdx/-n/"}
	f := setup(t, "", ApprovePrompt, term, nil)
	needBwrap(t, f)
	r := f.r.Line(context.Background(), line(t, call("1", "exec", map[string]any{"command": "git clean -fdx"})), 1)[0]
	if r.Decision != "allow" || r.Approval != "edited" || !strings.Contains(string(r.Args), "git clean -n") {
		t.Errorf("record %+v\nterminal:\n%s", r, out.String())
	}
	for _, want := range []string{"ask.git_destructive", "Please answer y, n or e.", "Allow it? [y]es, [n]o, [e]dit the arguments:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("terminal lacks %q:\n%s", want, out.String())
		}
	}
}

func TestUnavailableSandboxRefusesExecOnly(t *testing.T) {
	f := setup(t, allowAll, ApproveDeny, nil, func(c *sandbox.Config) { c.Bwrap = "/nonexistent/bwrap" })
	recs := f.r.Line(context.Background(), line(t, []any{
		call("1", "exec", map[string]any{"command": "touch ran"}),
		call("2", "read_file", map[string]any{"path": "a.txt"}),
	}), 1)
	if recs[0].ExitCode != nil || !strings.HasPrefix(recs[0].Output, "Error: Command not run: the sandbox is unavailable (") || !strings.Contains(recs[0].Output, "Hint: install bubblewrap") {
		t.Errorf("exec: %+v", recs[0])
	}
	if _, err := os.Stat(filepath.Join(f.ws, "ran")); err == nil {
		t.Error("exec ran without a sandbox")
	}
	if recs[1].Output != "alpha\n" {
		t.Errorf("read_file: %+v", recs[1])
	}
}

// A runner without a sandbox (the hook's) never runs an allowed exec.
func TestNoSandboxRefusesExec(t *testing.T) {
	f := setup(t, allowAll, ApproveDeny, nil, nil)
	r, err := New(Options{Gate: f.r.Gate(), Files: f.r.o.Files, Approve: ApproveDeny})
	if err != nil {
		t.Fatal(err)
	}
	recs := r.Line(context.Background(), line(t, []any{
		call("1", "exec", map[string]any{"command": "touch ran"}),
		call("2", "read_file", map[string]any{"path": "a.txt"}),
	}), 1)
	if recs[0].ExitCode != nil || recs[0].Output != "Error: Command not run: this front end runs no commands" || recs[0].Sandbox != "" {
		t.Errorf("exec: %+v", recs[0])
	}
	if _, err := os.Stat(filepath.Join(f.ws, "ran")); err == nil {
		t.Error("exec ran without a sandbox")
	}
	if recs[1].Output != "alpha\n" {
		t.Errorf("read_file: %+v", recs[1])
	}
	if _, err := New(Options{Gate: f.r.Gate()}); err == nil {
		t.Error("a runner without files was made")
	}
}

func TestSandboxNoneIsVisible(t *testing.T) {
	f := setup(t, allowAll, ApproveDeny, nil, func(c *sandbox.Config) { c.Mode = sandbox.ModeNone })
	r := f.r.Line(context.Background(), line(t, call("1", "exec", map[string]any{"command": "echo host"})), 1)[0]
	if r.Sandbox != "none" || r.Output != "host\n" {
		t.Errorf("record %+v", r)
	}
}

func TestAuditRecordsDecisionBeforeOutcome(t *testing.T) {
	f := setup(t, allowAll, ApproveDeny, nil, nil)
	needBwrap(t, f)
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := audit.Open(audit.Options{Path: logPath})
	if err != nil {
		t.Fatal(err)
	}
	f.r.o.Audit = &Auditor{Log: l, Source: "run", Policy: "sha256:x", Mask: audit.DefaultMask}
	recs := f.r.Line(context.Background(), line(t, []any{
		call("w", "write_file", map[string]any{"path": "s.txt", "content": "secret content"}),
		call("x", "exec", map[string]any{"command": "echo ran"}),
	}), 1)
	if recs[1].Output != "ran\n" {
		t.Fatalf("exec: %+v", recs[1])
	}
	l.Close()
	if res := audit.Verify([]string{logPath}, audit.VerifyOptions{}); res.Problem != nil || res.Decisions != 2 || res.Outcomes != 2 {
		t.Fatalf("log: %+v %v", res, res.Problem)
	}
	b, _ := os.ReadFile(logPath)
	text := string(b)
	if strings.Contains(text, "secret content") || !strings.Contains(text, `"masked":true`) {
		t.Errorf("write_file content not masked:\n%s", text)
	}
	if strings.Index(text, `"id":"x","kind":"decision"`) > strings.Index(text, `"id":"x","kind":"outcome"`) {
		t.Errorf("outcome before decision:\n%s", text)
	}
	// A log that cannot be written denies the call, and it does not run.
	l2, _ := audit.Open(audit.Options{Path: filepath.Join(t.TempDir(), "b.jsonl")})
	l2.Close()
	f.r.o.Audit = &Auditor{Log: l2, Source: "run"}
	r := f.r.Line(context.Background(), line(t, call("y", "exec", map[string]any{"command": "touch unlogged"})), 2)[0]
	if r.Decision != "deny" || r.Reasons[len(r.Reasons)-1].Rule != RuleAuditFailed || r.ExitCode != nil {
		t.Errorf("unloggable call: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "unlogged")); err == nil {
		t.Error("an unlogged call ran")
	}
}

// When the BeforeRun function fails (run could not write the answer it
// held back: the agent is gone), the line's calls do not run, and their
// records say so.
func TestBeforeRunFailureStopsTheCalls(t *testing.T) {
	f := setup(t, allowAll, ApproveDeny, nil, nil)
	needBwrap(t, f)
	calls := 0
	f.r.BeforeRun(func() error { calls++; return errors.New("stdout is closed") })
	r := f.r.Line(context.Background(), line(t, call("1", "exec", map[string]any{"command": "touch ran"})), 1)[0]
	if r.ExitCode != nil || !strings.Contains(r.Output, "not run") || calls != 1 {
		t.Errorf("record %+v after %d calls of BeforeRun", r, calls)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "ran")); err == nil {
		t.Error("the call ran after BeforeRun failed")
	}
}
