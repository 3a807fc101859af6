package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/runner"
	"github.com/toolgate/toolgate/sandbox"
	"github.com/toolgate/toolgate/serve"
	"github.com/toolgate/toolgate/tools"
)

// env is a workspace and home standing in for the ones in the recorded
// payloads (/home/dev/webapp and /home/dev).
type env struct {
	ws, home string
}

func newEnv(t *testing.T) env {
	t.Helper()
	root := t.TempDir()
	e := env{ws: filepath.Join(root, "webapp"), home: filepath.Join(root, "home")}
	for _, d := range []string{"src", "docs", "config", "notebooks"} {
		if err := os.MkdirAll(filepath.Join(e.ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(e.home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(e.home, ".ssh", "id_ed25519"), []byte("KEY"), 0o600)
	os.WriteFile(filepath.Join(e.ws, "src", "app.ts"), []byte("const port = 3000;\n"), 0o644)
	t.Setenv("HOME", e.home)
	t.Setenv(ProjectDirEnv, e.ws) // as Claude Code sets it for hooks
	return e
}

// payload reads a recorded event, moved into the test's workspace.
func (e env) payload(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "/home/dev/webapp", e.ws)
	s = strings.ReplaceAll(s, "/home/dev", e.home)
	return []byte(s)
}

// local returns an in-process decider over policyDirs (nil: the embedded
// policy) whose decisions go to the audit log at logPath, and a counter of
// its calls.
func local(t *testing.T, e env, policyDirs []string, logPath string) (func(context.Context, string, []byte) ([]gate.Result, error), *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	return func(ctx context.Context, ws string, line []byte) ([]gate.Result, error) {
		calls.Add(1)
		g, err := gate.New(ctx, gate.Options{Workspace: ws, Home: e.home, PolicyDirs: policyDirs})
		if err != nil {
			return nil, err
		}
		sb, err := sandbox.New(sandbox.Config{Mode: sandbox.ModeNone, Workspace: g.Workspace(), Home: e.home})
		if err != nil {
			return nil, err
		}
		defer sb.Close()
		files, err := tools.OpenWorkspace(g.Workspace())
		if err != nil {
			return nil, err
		}
		defer files.Close()
		var au *runner.Auditor
		if logPath != "" {
			l, err := audit.Open(audit.Options{Path: logPath, Fsync: audit.FsyncNever, Program: "toolgate hook test"})
			if err != nil {
				return nil, err
			}
			defer l.Close()
			au = &runner.Auditor{Log: l, Source: "hook", Policy: g.PolicyDigest(), Mask: runner.AuditMask(g.Policy().Config())}
		}
		r, err := runner.New(runner.Options{Gate: g, Sandbox: sb, Files: files, Approve: runner.ApproveDeny, Audit: au})
		if err != nil {
			return nil, err
		}
		return DecideLocal(ctx, r, line), nil
	}, &calls
}

// wantJSON is the exact hook output for a decision and reason.
func wantJSON(decision, reason string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(reason)
	return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"` + decision +
		`","permissionDecisionReason":` + strings.TrimSpace(b.String()) + "}}\n"
}

func echo(tool, args string) string { return "test.echo: " + tool + " " + args }

func TestRecordedPayloads(t *testing.T) {
	e := newEnv(t)
	dec, _ := local(t, e, []string{filepath.Join("testdata", "policy")}, "")
	cases := []struct {
		file, decision, reason string
	}{
		{"bash.json", "allow", echo("exec", `{"command":"npm test -- --watch=false"}`)},
		{"bash_subdir.json", "ask", "test.push: pushing needs a person; " + echo("exec", `{"command":"git push origin main","working_dir":"src"}`)},
		{"bash_outside.json", "allow", echo("exec", `{"command":"ls -la","working_dir":"HOME"}`)},
		{"read.json", "allow", echo("read_file", `{"limit":50,"offset":10,"path":"src/app.ts"}`)},
		{"read_secret.json", "deny", "test.secret: read_file touches a secret"},
		{"read_dotdot.json", "allow", echo("read_file", `{"path":"docs/../notes.md"}`) + "; " + echo("read_file", `{"path":"notes.md"}`)},
		{"write.json", "allow", echo("write_file", `{"content":"export const port = 8080;\nexport const host = \"localhost\";\n","path":"src/config.ts"}`)},
		{"edit.json", "allow", echo("edit_file", `{"new_text":"const port = Number(process.env.PORT ?? 3000);","old_text":"const port = 3000;","path":"src/app.ts"}`)},
		{"edit_create.json", "allow", echo("write_file", `{"content":"# Changelog\n","path":"CHANGELOG.md"}`)},
		{"multiedit.json", "allow", echo("edit_file", `{"new_text":"import express from 'express';\nimport helmet from 'helmet';","old_text":"import express from 'express';","path":"src/app.ts"}`) + "; " +
			echo("edit_file", `{"new_text":"app.use(cors());\napp.use(helmet());","old_text":"app.use(cors());","path":"src/app.ts"}`)},
		{"multiedit_secret.json", "deny", "test.secret: edit_file touches a secret"},
		{"notebookedit.json", "allow", echo("write_file", `{"content":"df.describe()","path":"notebooks/analysis.ipynb"}`)},
		{"glob.json", "allow", echo("glob", `{"pattern":"src/**/*.test.ts"}`)},
		{"glob_cwd.json", "allow", echo("glob", `{"pattern":"*.md"}`)},
		{"grep.json", "allow", echo("search", `{"glob":"*.ts","path":"src","pattern":"TODO\\("}`)},
		{"ls.json", "allow", echo("list_dir", `{"path":"."}`)},
		{"webfetch.json", "ask", "toolgate.no_policy: WebFetch reaches the network, and toolgate has no policy input for it; approve it yourself"},
		{"websearch.json", "ask", "toolgate.no_policy: WebSearch reaches the network, and toolgate has no policy input for it; approve it yourself"},
		{"mcp.json", "ask", `test.echo: mcp__github__create_issue {"body":"Security headers are missing.","owner":"acme","repo":"webapp","title":"Add helmet"}; toolgate.no_policy: mcp__github__create_issue's arguments name no path and no command, so toolgate cannot judge what it does; approve it yourself`},
		{"todowrite.json", "allow", "toolgate: TodoWrite reads no file, writes none and runs no command"},
	}
	for _, c := range cases {
		t.Run(strings.TrimSuffix(c.file, ".json"), func(t *testing.T) {
			a, err := Decide(context.Background(), e.payload(t, c.file), Options{Local: dec})
			if err != nil {
				t.Fatal(err)
			}
			reason := strings.ReplaceAll(c.reason, `"working_dir":"HOME"`, `"working_dir":"`+e.home+`"`)
			if got, want := string(a.JSON()), wantJSON(c.decision, reason); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// The same payloads under the embedded default policy.
func TestDefaultPolicy(t *testing.T) {
	e := newEnv(t)
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	dec, _ := local(t, e, nil, logPath)
	cases := []struct{ file, decision, rule string }{
		{"bash.json", "allow", ""},
		{"bash_destroy.json", "deny", "destroy.root: "},
		{"bash_subdir.json", "ask", "ask.git_remote: "},
		{"bash_outside.json", "deny", "workspace.cd_outside: "},
		{"read.json", "allow", ""},
		{"read_ssh_key.json", "deny", "secrets.access: "},
		{"edit.json", "allow", ""},
		{"multiedit.json", "allow", ""},
		{"glob.json", "allow", ""},
		{"grep.json", "allow", ""},
		{"ls.json", "allow", ""},
	}
	for _, c := range cases {
		a, err := Decide(context.Background(), e.payload(t, c.file), Options{Local: dec})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if a.Decision != c.decision || (c.rule != "" && !strings.HasPrefix(a.Reason, c.rule)) {
			t.Errorf("%s: %+v, want %s %s…", c.file, a, c.decision, c.rule)
		}
	}
	b, _ := os.ReadFile(logPath)
	for _, want := range []string{`"source":"hook"`, `"id":"toolu_01Za2Bc4De6Fg8Hi0Jk2Lm4n"`, `"id":"toolu_01Qr7St9Uv1Wx3Yz5Ab7Cd9e.2"`, `"decision":"ask"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("audit log lacks %s", want)
		}
	}
	if res := audit.Verify([]string{logPath}, audit.VerifyOptions{}); res.Problem != nil {
		t.Errorf("audit log: %v", res.Problem)
	}
}

func TestFailClosed(t *testing.T) {
	e := newEnv(t)
	dec, calls := local(t, e, []string{filepath.Join("testdata", "policy")}, "")
	bad := map[string]string{
		"garbage":       "rm -rf /",
		"empty":         "",
		"not utf-8":     "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"\xff\"}}",
		"two values":    `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}} {}`,
		"other event":   `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		"no tool":       `{"hook_event_name":"PreToolUse","tool_input":{}}`,
		"input array":   `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":["ls"]}`,
		"no input":      `{"hook_event_name":"PreToolUse","tool_name":"Bash"}`,
		"wrong type":    `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":42}}`,
		"no edits":      `{"hook_event_name":"PreToolUse","tool_name":"MultiEdit","tool_input":{"file_path":"/x","edits":[]}}`,
		"array payload": `[{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}]`,
	}
	for name, in := range bad {
		if a, err := Decide(context.Background(), []byte(in), Options{Local: dec}); err == nil {
			t.Errorf("%s: answered %+v", name, a)
		}
	}
	// A workspace that does not exist (from the cwd, without a project
	// directory) cannot be judged.
	t.Setenv(ProjectDirEnv, "")
	if a, err := Decide(context.Background(), []byte(`{"hook_event_name":"PreToolUse","cwd":"/nonexistent/dir","tool_name":"Bash","tool_input":{"command":"ls"}}`), Options{Local: dec}); err == nil {
		t.Errorf("missing workspace: answered %+v", a)
	}
	t.Setenv(ProjectDirEnv, e.ws)
	if calls.Load() != 0 {
		t.Errorf("malformed events reached the policy %d times", calls.Load())
	}
	// Calls the decoder refuses are denied, not errors.
	for _, in := range []string{
		`{"hook_event_name":"PreToolUse","cwd":"` + e.ws + `","tool_name":"Bash","tool_input":{"command":"echo \u0000"}}`,
		`{"hook_event_name":"PreToolUse","cwd":"` + e.ws + `","tool_name":"Write","tool_input":{"file_path":"` + e.ws + `/big","content":"` + strings.Repeat("x", 1<<20) + `"}}`,
		`{"hook_event_name":"PreToolUse","cwd":"` + e.ws + `","tool_name":"Bash","tool_input":{}}`,
		`{"hook_event_name":"PreToolUse","cwd":"` + e.ws + `","tool_name":"Read","tool_input":{"file_path":""}}`,
	} {
		a, err := Decide(context.Background(), []byte(in), Options{Local: dec})
		if err != nil || a.Decision != "deny" {
			t.Errorf("%.120s: %+v %v", in, a, err)
		}
	}
	if got := string(Deny("x").JSON()); got != wantJSON("deny", "x") {
		t.Errorf("Deny: %s", got)
	}
	if got := string((Answer{Decision: "maybe", Reason: "r"}).JSON()); got != wantJSON("deny", "r") {
		t.Errorf("an unknown decision: %s", got)
	}
}

func TestCombine(t *testing.T) {
	r := func(d string, rs ...string) gate.Result {
		res := gate.Result{Decision: d}
		for i := 0; i+1 < len(rs); i += 2 {
			res.Reasons = append(res.Reasons, gate.Reason{Rule: rs[i], Message: rs[i+1]})
		}
		return res
	}
	cases := []struct {
		in   []gate.Result
		want Answer
	}{
		{nil, Deny("toolgate: no decision was made, so the call is denied")},
		{[]gate.Result{r("allow"), r("allow")}, Answer{"allow", "toolgate: allowed by the policy"}},
		{[]gate.Result{r("allow", "a", "1"), r("ask", "b", "2"), r("ask", "b", "2")}, Answer{"ask", "b: 2"}},
		{[]gate.Result{r("ask", "b", "2"), r("deny", "c", "3"), r("deny", "d", "4")}, Answer{"deny", "c: 3; d: 4"}},
		{[]gate.Result{r("allow"), r("bogus")}, Answer{"deny", `toolgate.invalid_decision: the decision "bogus" is not allow, deny or ask`}},
		{[]gate.Result{r("ask")}, Answer{"ask", "toolgate: the policy asks for approval"}},
	}
	for _, c := range cases {
		if got := Combine(c.in); got != c.want {
			t.Errorf("%+v: %+v, want %+v", c.in, got, c.want)
		}
	}
}

// serveOn starts a real toolgate service (embedded policy) on a unix
// socket for the workspace and returns the socket path and the service's
// audit log.
func serveOn(t *testing.T, e env) (string, string) {
	t.Helper()
	g, err := gate.New(context.Background(), gate.Options{Workspace: e.ws, Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Config{Mode: sandbox.ModeBwrap, Workspace: g.Workspace(), Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	files, err := tools.OpenWorkspace(g.Workspace())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { files.Close() })
	logPath := filepath.Join(t.TempDir(), "serve-audit.jsonl")
	l, err := audit.Open(audit.Options{Path: logPath, Fsync: audit.FsyncNever, Program: "toolgate serve test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	au := &runner.Auditor{Log: l, Source: "serve", Policy: g.PolicyDigest()}
	r, err := runner.New(runner.Options{Gate: g, Sandbox: sb, Files: files, Approve: runner.ApproveDeny, Audit: au})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(serve.Options{Runner: r, Audit: au})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "tgh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	ln, err := serve.ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Shutdown(5 * time.Second)
		<-done
	})
	return sock, logPath
}

func TestSocketFastPath(t *testing.T) {
	e := newEnv(t)
	sock, serveLog := serveOn(t, e)
	// In-process the echo policy would answer; the service (the embedded
	// policy) must be the one that does.
	dec, calls := local(t, e, []string{filepath.Join("testdata", "policy")}, "")
	var notes []string
	o := Options{Socket: sock, Local: dec, Note: func(s string) { notes = append(notes, s) }}
	cases := []struct{ file, decision, prefix string }{
		{"bash.json", "allow", "toolgate: allowed by the policy"},
		{"bash_destroy.json", "deny", "destroy.root: "},
		{"bash_subdir.json", "ask", "ask.git_remote: "},
		{"multiedit.json", "allow", "toolgate: allowed by the policy"},
		{"read_ssh_key.json", "deny", "secrets.access: "},
	}
	for _, c := range cases {
		a, err := Decide(context.Background(), e.payload(t, c.file), o)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if a.Decision != c.decision || !strings.HasPrefix(a.Reason, c.prefix) {
			t.Errorf("%s: %+v", c.file, a)
		}
	}
	if calls.Load() != 0 || len(notes) != 0 {
		t.Errorf("decided in-process %d times with the service up: %v", calls.Load(), notes)
	}
	b, _ := os.ReadFile(serveLog)
	if !bytes.Contains(b, []byte(`"id":"toolu_01Za2Bc4De6Fg8Hi0Jk2Lm4n"`)) || !bytes.Contains(b, []byte(`"source":"serve"`)) {
		t.Errorf("the service did not audit the hook's calls:\n%s", b)
	}

	// A service for another workspace is not asked twice: 409, then here.
	other := newEnv(t)
	a, err := Decide(context.Background(), other.payload(t, "bash.json"), o)
	if err != nil || a.Decision != "allow" || !strings.HasPrefix(a.Reason, "test.echo: ") || calls.Load() != 1 {
		t.Errorf("another workspace: %+v %v (%d local)", a, err, calls.Load())
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "409") {
		t.Errorf("notes: %v", notes)
	}

	// No socket: in-process at once.
	o.Socket = filepath.Join(t.TempDir(), "missing.sock")
	if a, err := Decide(context.Background(), e.payload(t, "bash.json"), o); err != nil || !strings.HasPrefix(a.Reason, "test.echo: ") {
		t.Errorf("missing socket: %+v %v", a, err)
	}
}

func TestSilentSocket(t *testing.T) {
	e := newEnv(t)
	dir, err := os.MkdirTemp("", "tgh")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// It accepts and never answers.
	go func() {
		var held []net.Conn
		for {
			c, err := ln.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	dec, calls := local(t, e, []string{filepath.Join("testdata", "policy")}, "")
	start := time.Now()
	a, err := Decide(context.Background(), e.payload(t, "read.json"), Options{Socket: sock, SocketTimeout: 300 * time.Millisecond, Local: dec})
	if err != nil || a.Decision != "allow" || calls.Load() != 1 {
		t.Fatalf("%+v %v", a, err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 10*time.Second {
		t.Errorf("waited %s for a silent service", d)
	}
	if DefaultSocketTimeout != 2*time.Second {
		t.Errorf("DefaultSocketTimeout is %s", DefaultSocketTimeout)
	}
}

func TestWorkspaceFlagAndCwd(t *testing.T) {
	e := newEnv(t)
	ev, err := ParseEvent(e.payload(t, "bash_subdir.json"))
	if err != nil {
		t.Fatal(err)
	}
	// --workspace wins over the event's cwd; the cwd then sets working_dir.
	ws, err := Workspace(e.ws, ev)
	if err != nil || ws != e.ws {
		t.Fatalf("%s %v", ws, err)
	}
	// Without it, Claude Code's project directory; without that, no
	// workspace at all: the event's cwd follows the agent's cd.
	if ws, _ := Workspace("", ev); ws != e.ws {
		t.Errorf("from $%s: %s", ProjectDirEnv, ws)
	}
	t.Setenv(ProjectDirEnv, "")
	if ws, err := Workspace("", ev); err == nil {
		t.Errorf("a workspace taken from the cwd: %s", ws)
	}
	// A symlinked workspace resolves to the real directory.
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(e.ws, link)
	if ws, _ := Workspace(link, ev); ws != e.ws {
		t.Errorf("through a link: %s", ws)
	}
	// A tilde path is judged as the home path too.
	m, err := Map(Event{HookEventName: EventName, Cwd: e.ws, ToolName: "Read", ToolInput: json.RawMessage(`{"file_path":"~/.ssh/id_ed25519"}`)}, e.ws)
	if err != nil || len(m.Calls) != 2 || string(m.Calls[0].Args) != `{"path":"`+e.home+`/.ssh/id_ed25519"}` || string(m.Calls[1].Args) != `{"path":"~/.ssh/id_ed25519"}` {
		t.Errorf("tilde: %+v %v", m.Calls, err)
	}
	line, _ := m.Line()
	if !strings.HasPrefix(string(line), `[{"id":"claude-code.1","name":"read_file","arguments":{"path":`) {
		t.Errorf("line: %s", line)
	}
}

// TestTrimmedPaths: Claude Code trims white space (and U+FEFF) around the
// paths of several tools, so " ~/.ssh/x" is judged as ~/.ssh/x too.
func TestTrimmedPaths(t *testing.T) {
	e := newEnv(t)
	dec, _ := local(t, e, nil, "")
	for _, c := range []struct{ tool, input, decision string }{
		{"Write", `{"file_path":" ~/.ssh/authorized_keys","content":"k"}`, "deny"},
		{"Write", `{"file_path":"` + e.ws + `/.claude/settings.json\t","content":"{}"}`, "deny"},
		{"Edit", `{"file_path":"\u00a0` + e.home + `/.bashrc","old_string":"a","new_string":"b"}`, "deny"},
		{"Grep", `{"pattern":"KEY","path":"\ufeff` + e.home + `/.ssh"}`, "deny"},
		{"LS", `{"path":" ~/.ssh"}`, "deny"},
		{"Write", `{"file_path":" src/new.ts","content":"x"}`, "allow"},
	} {
		decideEvent(t, e, dec, c.tool, c.input, c.decision)
	}
}

// TestOpaqueExternalArgs: an MCP tool allowed on its paths still asks when
// another argument holds code or an address toolgate does not judge.
func TestOpaqueExternalArgs(t *testing.T) {
	e := newEnv(t)
	dec, _ := local(t, e, nil, "")
	nb := e.ws + "/notebooks/n.ipynb"
	for _, c := range []struct{ tool, input, decision string }{
		{"mcp__jupyter__execute_code", `{"notebook_path":"` + nb + `","code":"print(open('/etc/hostname').read())"}`, "ask"},
		{"mcp__x__http_request", `{"url":"https://example.org/","file":"` + e.ws + `/src/app.ts"}`, "ask"},
		{"mcp__shell__execute", `{"workdir":"` + e.ws + `","cmdline":"cat ~/.ssh/id_ed25519"}`, "deny"},
		{"mcp__fs__read_file", `{"path":"` + e.ws + `/src/app.ts"}`, "allow"},
		{"mcp__fs__write_file", `{"path":"` + e.ws + `/src/b.ts","content":"a\nb\n"}`, "allow"},
	} {
		decideEvent(t, e, dec, c.tool, c.input, c.decision)
	}
}

// decideEvent decides a PreToolUse event for tool with input in e's
// workspace and checks the decision.
func decideEvent(t *testing.T, e env, dec func(context.Context, string, []byte) ([]gate.Result, error), tool, input, want string) {
	t.Helper()
	ev := `{"session_id":"s","hook_event_name":"PreToolUse","cwd":"` + e.ws + `","tool_name":"` + tool + `","tool_input":` + input + `}`
	a, err := Decide(context.Background(), []byte(ev), Options{Local: dec})
	if err != nil {
		t.Fatalf("%s %s: %v", tool, input, err)
	}
	if a.Decision != want {
		t.Errorf("%s %s: %+v, want %s", tool, input, a, want)
	}
}
