package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/runner"
	"github.com/toolgate/toolgate/sandbox"
	"github.com/toolgate/toolgate/tools"
)

// A small team policy with its own Rego test, for the reload tests.
const (
	teamPolicy = `package toolgate

default decision := {"decision": "allow", "reasons": []}

decision := {"decision": "deny", "reasons": [{"rule": "team.no_rm", "message": "MESSAGE"}]} if {
	some c in input.commands
	c.name == "rm"
}
`
	teamTest = `package toolgate_test

import data.toolgate

test_rm_denied if {
	toolgate.decision.decision == "deny" with input as {"commands": [{"name": "rm"}]}
}

test_ls_allowed if {
	toolgate.decision.decision == "allow" with input as {"commands": [{"name": "ls"}]}
}
`
)

type fixture struct {
	ws, home, log string
	policyDir     string
	srv           *Server
	r             *runner.Runner
	sb            *sandbox.Sandbox
	client        *http.Client
	base          string // http://host
	logs          *lines
	cutOK         bool // the test cuts a request short: Serve reports it
}

// lines collects the server's log lines.
type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) add(s string) { l.mu.Lock(); l.l = append(l.l, s); l.mu.Unlock() }
func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.l, "\n")
}

type setup struct {
	team   bool         // the team policy in a directory instead of the embedded one
	mode   sandbox.Mode // default bwrap
	tcp    bool         // loopback TCP instead of a unix socket
	mutate func(*Options)
}

// start runs a real server (gate, sandbox, file tools, runner, audit log)
// on a unix socket (or loopback TCP) and stops it when the test ends.
func start(t *testing.T, s setup) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home"), log: filepath.Join(root, "audit.jsonl"), logs: &lines{}}
	for _, d := range []string{f.ws, filepath.Join(f.home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(f.ws, "a.txt"), []byte("alpha\n"), 0o644)
	var dirs []string
	if s.team {
		f.policyDir = filepath.Join(root, "policy")
		os.MkdirAll(f.policyDir, 0o755)
		writeFile(t, filepath.Join(f.policyDir, "team.rego"), strings.Replace(teamPolicy, "MESSAGE", "no rm here", 1))
		writeFile(t, filepath.Join(f.policyDir, "team_test.rego"), teamTest)
		dirs = []string{f.policyDir}
	}
	load := func(ctx context.Context) (*gate.Gate, error) {
		return gate.New(ctx, gate.Options{Workspace: f.ws, Home: f.home, PolicyDirs: dirs})
	}
	g, err := load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mode := s.mode
	if mode == "" {
		mode = sandbox.ModeBwrap
	}
	f.sb, err = sandbox.New(sandbox.Config{Mode: mode, Workspace: f.ws, Home: f.home, Timeout: 20 * time.Second, Mask: runner.SandboxMasks(g.Policy().Config())})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.sb.Close() })
	files, err := tools.OpenWorkspace(g.Workspace())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { files.Close() })
	l, err := audit.Open(audit.Options{Path: f.log, Fsync: audit.FsyncNever, Program: "toolgate serve test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	au := &runner.Auditor{Log: l, Source: "serve", Policy: g.PolicyDigest(), Mask: runner.AuditMask(g.Policy().Config())}
	f.r, err = runner.New(runner.Options{Gate: g, Sandbox: f.sb, Files: files, Approve: runner.ApproveDeny, Audit: au})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Runner: f.r, Audit: au, Load: load, Watch: dirs, RequestTimeout: 30 * time.Second, Log: f.logs.add}
	var ln net.Listener
	if s.tcp {
		ln, err = ListenTCP("127.0.0.1:0", false)
		o.LocalOnly = IsLoopbackListener(ln)
		f.client = &http.Client{Timeout: 30 * time.Second}
		f.base = "http://" + ln.Addr().String()
	} else {
		dir, derr := os.MkdirTemp("", "tgs") // short: socket paths are limited to 108 bytes
		if derr != nil {
			t.Fatal(derr)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		sock := filepath.Join(dir, "s")
		ln, err = ListenUnix(sock)
		f.client = unixClient(sock)
		f.base = "http://localhost"
	}
	if err != nil {
		t.Fatal(err)
	}
	if s.mutate != nil {
		s.mutate(&o)
	}
	f.srv, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- f.srv.Serve(ln) }()
	t.Cleanup(func() {
		// net/http keeps a connection the client dialled but never used
		// (it happens under concurrent load) for 5 s before Shutdown may
		// close it, so the grace must be longer than that.
		f.srv.Shutdown(10 * time.Second)
		select {
		case err := <-served:
			if err != nil && !f.cutOK {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("Serve did not return after Shutdown")
		}
	})
	return f
}

func unixClient(sock string) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
		MaxIdleConnsPerHost: 64,
	}}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// do sends a request and returns the status and body.
func (f *fixture) do(t *testing.T, method, path, body string, hdr ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := f.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

type result struct {
	ID, Tool, Decision string
	Reasons            []struct{ Rule, Message string }
}

func (r result) rule() string {
	if len(r.Reasons) == 0 {
		return ""
	}
	return r.Reasons[0].Rule
}

func (f *fixture) check(t *testing.T, body string) []result {
	t.Helper()
	code, out := f.do(t, http.MethodPost, "/v1/check", body)
	if code != http.StatusOK {
		t.Fatalf("check: %d %s", code, out)
	}
	var v struct{ Results []result }
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("check answer %q: %v", out, err)
	}
	return v.Results
}

func summary(rs []result) string {
	var s []string
	for _, r := range rs {
		s = append(s, r.ID+" "+r.Decision+" "+r.rule())
	}
	return strings.Join(s, "\n")
}

func needBwrap(t *testing.T, f *fixture) {
	t.Helper()
	if err := f.sb.Check(context.Background()); err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
}

func TestCheckToolsHealth(t *testing.T) {
	f := start(t, setup{})
	got := f.check(t, `[{"id":"a","name":"exec","arguments":{"command":"ls -la"}},`+
		`{"id":"b","name":"exec","arguments":{"command":"rm -rf /"}},`+
		`{"type":"tool_use","id":"c","name":"read_file","input":{"path":"a.txt"}},`+
		`{"id":"d","name":"exec","arguments":{"command":"git push"}},`+
		`{"name":"read_file","arguments":{"path":"`+filepath.Join(f.home, ".ssh/id_rsa")+`"}}]`)
	want := "a allow \nb deny destroy.root\nc allow \nd ask ask.git_remote\nline-1.5 deny secrets.access"
	if summary(got) != want {
		t.Errorf("check:\n%s\nwant\n%s", summary(got), want)
	}
	// Reasons are [] rather than null, as check prints them.
	if _, out := f.do(t, http.MethodPost, "/v1/check", `{"id":"x","name":"exec","arguments":{"command":"true"}}`); !strings.Contains(out, `"reasons":[]`) {
		t.Errorf("allow without reasons: %s", out)
	}
	// An OpenAI call, a whole MCP request.
	got = f.check(t, `{"id":"o","type":"function","function":{"name":"list_dir","arguments":"{\"path\":\".\"}"}}`)
	if summary(got) != "o allow " {
		t.Errorf("openai: %s", summary(got))
	}

	code, out := f.do(t, http.MethodGet, "/v1/tools", "")
	var tl struct {
		Tools []struct {
			Name            string          `json:"name"`
			Description     string          `json:"description"`
			InputSchema     json.RawMessage `json:"input_schema"`
			ReadOnly        *bool           `json:"read_only"`
			ConcurrencySafe *bool           `json:"concurrency_safe"`
		}
	}
	if code != 200 || json.Unmarshal([]byte(out), &tl) != nil || len(tl.Tools) != len(tools.All()) {
		t.Fatalf("tools: %d %s", code, out)
	}
	for i, tool := range tl.Tools {
		def := tools.All()[i]
		if tool.Name != def.Name || tool.Description == "" || !json.Valid(tool.InputSchema) || tool.ReadOnly == nil || *tool.ReadOnly != def.ReadOnly || tool.ConcurrencySafe == nil || *tool.ConcurrencySafe != def.ConcurrencySafe {
			t.Errorf("tool %d: %+v", i, tool)
		}
	}

	code, out = f.do(t, http.MethodGet, "/healthz", "")
	var h struct{ Status, Policy, Workspace string }
	if code != 200 || json.Unmarshal([]byte(out), &h) != nil || h.Status != "ok" || h.Policy != f.r.Gate().PolicyDigest() || h.Workspace != f.r.Gate().Workspace() {
		t.Errorf("healthz: %d %s", code, out)
	}
	if code, _ := f.do(t, http.MethodHead, "/healthz", ""); code != 200 {
		t.Errorf("HEAD /healthz: %d", code)
	}

	// Every decision is in the audit log, with source serve.
	b, _ := os.ReadFile(f.log)
	for _, id := range []string{`"id":"a"`, `"id":"b"`, `"id":"line-1.5"`, `"source":"serve"`} {
		if !bytes.Contains(b, []byte(id)) {
			t.Errorf("audit log lacks %s", id)
		}
	}
	if res := audit.Verify([]string{f.log}, audit.VerifyOptions{}); res.Problem != nil {
		t.Errorf("audit log: %v", res.Problem)
	}
}

func TestRun(t *testing.T) {
	f := start(t, setup{})
	code, out := f.do(t, http.MethodPost, "/v1/run", `[{"id":"w","name":"write_file","arguments":{"path":"n.txt","content":"one\ntwo\n"}},`+
		`{"id":"r","name":"read_file","arguments":{"path":"n.txt","offset":2}},`+
		`{"id":"p","name":"exec","arguments":{"command":"git push"}},`+
		`{"id":"x","name":"exec","arguments":{"command":"rm -rf ~"}}]`)
	if code != 200 {
		t.Fatalf("run: %d %s", code, out)
	}
	var v struct{ Records []runner.Record }
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Records) != 4 {
		t.Fatalf("run answer %s: %v", out, err)
	}
	r := v.Records
	if r[0].Output != "Successfully wrote 8 bytes to "+filepath.Join(f.r.Gate().Workspace(), "n.txt") || r[1].Output != "2\ttwo" || r[1].ExitCode == nil || *r[1].ExitCode != 0 {
		t.Errorf("write/read: %+v %+v", r[0], r[1])
	}
	if r[2].Decision != "deny" || r[2].Approval != "denied" || r[2].ExitCode != nil {
		t.Errorf("an ask under --approve deny: %+v", r[2])
	}
	if r[3].Decision != "deny" || !strings.HasPrefix(r[3].Output, "Error: Command blocked by safety guard (") {
		t.Errorf("deny: %+v", r[3])
	}
	needBwrap(t, f)
	code, out = f.do(t, http.MethodPost, "/v1/run", `{"id":"e","name":"exec","arguments":{"command":"echo hello; exit 3"}}`)
	if code != 200 || !strings.Contains(out, `"output":"hello\n\n\nExit code: 3"`) || !strings.Contains(out, `"exit_code":3`) || !strings.Contains(out, `"sandbox":"bwrap"`) {
		t.Errorf("exec: %d %s", code, out)
	}
}

func TestLimitsAndErrors(t *testing.T) {
	f := start(t, setup{})
	big := `{"id":"big","name":"exec","arguments":{"command":"` + strings.Repeat("a", DefaultMaxBody) + `"}}`
	for _, p := range []string{"/v1/check", "/v1/run"} {
		code, out := f.do(t, http.MethodPost, p, big)
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(out, "exceeds") {
			t.Errorf("%s, too large: %d %s", p, code, out)
		}
	}
	cases := []struct {
		method, path, body string
		hdr                []string
		code               int
		want               string
	}{
		{"GET", "/v1/check", "", nil, 405, "takes POST"},
		{"PUT", "/v1/run", "{}", nil, 405, "takes POST"},
		{"POST", "/healthz", "{}", nil, 405, "takes GET"},
		{"DELETE", "/metrics", "", nil, 405, "takes GET"},
		{"GET", "/nope", "", nil, 404, "no such endpoint"},
		{"POST", "/v1/check", "{}", []string{"Content-Type", ""}, 415, "application/json"},
		{"POST", "/v1/check", "{}", []string{"Content-Type", "text/plain"}, 415, "application/json"},
		{"POST", "/v1/check", `{"id":"1","name":"exec","arguments":{"command":"ls"}}`, []string{"Content-Type", "application/json; charset=utf-8"}, 200, `"decision":"allow"`},
		{"POST", "/v1/run", `{"id":"1","name":"list_dir","arguments":{"path":"."}}`, []string{"Origin", "https://evil.example"}, 403, "web pages"},
		{"POST", "/v1/check", `{"id":"1","name":"exec","arguments":{"command":"ls"}}`, []string{WorkspaceHeader, "/somewhere/else"}, 409, "not /somewhere/else"},
		{"POST", "/v1/check", `{"id":"1","name":"exec","arguments":{"command":"ls"}}`, []string{WorkspaceHeader, f.ws}, 200, `"decision":"allow"`},
		// Bad input gets the decoder's denies, not an error.
		{"POST", "/v1/check", `not json`, nil, 200, `"rule":"decode.invalid_json"`},
		{"POST", "/v1/check", ``, nil, 200, `"rule":"decode.invalid_json"`},
		{"POST", "/v1/check", `{"id":"1","name":"exec","arguments":{"command":"ls"},"id":"2"}`, nil, 200, `"rule":"decode.duplicate_key"`},
		{"POST", "/v1/check", `[]`, nil, 200, `"rule":"decode.empty_batch"`},
		{"POST", "/v1/check", `{"id":"1","name":"nuke","arguments":{}}`, nil, 200, `"rule":"gate.unknown_tool"`},
		{"POST", "/v1/run", `{"oops"`, nil, 200, `"rule":"decode.invalid_json"`},
	}
	for _, c := range cases {
		code, out := f.do(t, c.method, c.path, c.body, c.hdr...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%s %s %v: %d %s (want %d, %q)", c.method, c.path, c.hdr, code, out, c.code, c.want)
		}
	}
	_, m := f.do(t, http.MethodGet, "/metrics", "")
	for _, want := range []string{
		`toolgate_http_requests_total{path="/v1/check",code="413"} 1`,
		`toolgate_http_requests_total{path="/v1/run",code="413"} 1`,
		`toolgate_http_requests_total{path="other",code="404"} 1`,
		`toolgate_http_requests_total{path="/v1/check",code="415"} 2`,
		`toolgate_http_requests_total{path="/v1/run",code="403"} 1`,
		`toolgate_decisions_total{decision="deny",rule="decode.too_large"} 2`,
		`toolgate_decisions_total{decision="deny",rule="decode.invalid_json"} 3`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestLoopbackOnly(t *testing.T) {
	f := start(t, setup{tcp: true})
	if code, out := f.do(t, http.MethodGet, "/healthz", ""); code != 200 {
		t.Fatalf("healthz over TCP: %d %s", code, out)
	}
	// A page that rebinds its own name to 127.0.0.1 sends its own Host.
	req, _ := http.NewRequest(http.MethodGet, f.base+"/healthz", nil)
	req.Host = "rebind.example:80"
	resp, err := f.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host: %d", resp.StatusCode)
	}
	req.Host = "localhost"
	resp, err = f.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("Host localhost: %d", resp.StatusCode)
	}

	for _, addr := range []string{"0.0.0.0:0", "[::]:0", "192.0.2.1:0"} {
		if ln, err := ListenTCP(addr, false); !errors.Is(err, ErrRemote) {
			if ln != nil {
				ln.Close()
			}
			t.Errorf("%s: %v", addr, err)
		}
	}
	ln, err := ListenTCP(":0", false)
	if err != nil {
		t.Fatal(err)
	}
	if !IsLoopbackListener(ln) {
		t.Errorf(":0 listens on %s", ln.Addr())
	}
	ln.Close()
	ln, err = ListenTCP("localhost:0", false)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

func TestListenUnix(t *testing.T) {
	dir, err := os.MkdirTemp("", "tgs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s")
	ln, err := ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(sock)
	if err != nil || st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket mode: %v %v", st.Mode(), err)
	}
	// A live socket is not taken over.
	if _, err := ListenUnix(sock); err == nil || !strings.Contains(err.Error(), "already serving") {
		t.Errorf("second listener: %v", err)
	}
	ln.Close()
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left after close: %v", err)
	}
	// A stale socket (its listener gone without removing it) is replaced.
	l2, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	l2.(*net.UnixListener).SetUnlinkOnClose(false)
	l2.Close()
	ln, err = ListenUnix(sock)
	if err != nil {
		t.Fatalf("over a stale socket: %v", err)
	}
	ln.Close()
	// Anything else at the path is left alone.
	writeFile(t, sock, "precious")
	if _, err := ListenUnix(sock); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("over a file: %v", err)
	}
	if b, _ := os.ReadFile(sock); string(b) != "precious" {
		t.Error("the file was replaced")
	}
}

func TestConcurrentRequests(t *testing.T) {
	f := start(t, setup{})
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var body, path, want string
			switch i % 3 {
			case 0:
				path, body, want = "/v1/check", fmt.Sprintf(`{"id":"c%d","name":"exec","arguments":{"command":"cat a.txt | wc -l"}}`, i), `"decision":"allow"`
			case 1:
				path, body, want = "/v1/check", fmt.Sprintf(`{"id":"d%d","name":"exec","arguments":{"command":"sudo rm -rf /%d"}}`, i, i), `"decision":"deny"`
			default:
				path, body, want = "/v1/run", fmt.Sprintf(`{"id":"r%d","name":"write_file","arguments":{"path":"f%d.txt","content":"%d"}}`, i, i, i), `Successfully wrote`
			}
			req, _ := http.NewRequest(http.MethodPost, f.base+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := f.client.Do(req)
			if err != nil {
				errs <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
				errs <- fmt.Sprintf("%s %s: %d %s", path, body, resp.StatusCode, b)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	_, m := f.do(t, http.MethodGet, "/metrics", "")
	var total int
	sc := bufio.NewScanner(strings.NewReader(m))
	for sc.Scan() {
		var v int
		if line := sc.Text(); strings.HasPrefix(line, "toolgate_decisions_total{") {
			fmt.Sscanf(line[strings.LastIndexByte(line, ' ')+1:], "%d", &v)
			total += v
		}
	}
	if total != n {
		t.Errorf("decisions counted: %d, want %d\n%s", total, n, m)
	}
	if !strings.Contains(m, "toolgate_decision_seconds_count 34\n") { // the 34 calls of /v1/check
		t.Errorf("histogram count:\n%s", m)
	}
	if res := audit.Verify([]string{f.log}, audit.VerifyOptions{}); res.Problem != nil || res.Decisions != n {
		t.Errorf("audit log: %+v", res)
	}
}

func TestReload(t *testing.T) {
	f := start(t, setup{team: true})
	ctx := context.Background()
	rmCall := `{"id":"1","name":"exec","arguments":{"command":"rm x"}}`
	if got := f.check(t, rmCall); got[0].Reasons[0].Message != "no rm here" {
		t.Fatalf("before: %+v", got)
	}
	d0 := f.r.Gate().PolicyDigest()

	// A good change is swapped in.
	writeFile(t, filepath.Join(f.policyDir, "team.rego"), strings.Replace(teamPolicy, "MESSAGE", "still no rm", 1))
	if err := f.srv.Reload(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	d1 := f.r.Gate().PolicyDigest()
	if d1 == d0 {
		t.Error("the digest did not change")
	}
	if got := f.check(t, rmCall); got[0].Reasons[0].Message != "still no rm" {
		t.Errorf("after a good reload: %+v", got)
	}

	// A policy that does not compile is rejected; the old one stays.
	writeFile(t, filepath.Join(f.policyDir, "team.rego"), "package toolgate\ndecision := {\n")
	if err := f.srv.Reload(ctx, "test"); err == nil || !strings.Contains(err.Error(), "rego_parse_error") {
		t.Errorf("broken policy: %v", err)
	}
	if f.r.Gate().PolicyDigest() != d1 {
		t.Error("a broken policy replaced the one in force")
	}
	if got := f.check(t, rmCall); got[0].Reasons[0].Message != "still no rm" {
		t.Errorf("after a rejected reload: %+v", got)
	}

	// A policy that compiles but fails its own tests is rejected too.
	writeFile(t, filepath.Join(f.policyDir, "team.rego"), "package toolgate\n\ndefault decision := {\"decision\": \"allow\", \"reasons\": []}\n")
	if err := f.srv.Reload(ctx, "test"); err == nil || !strings.Contains(err.Error(), "toolgate_test.test_rm_denied") {
		t.Errorf("policy failing its tests: %v", err)
	}
	if f.r.Gate().PolicyDigest() != d1 {
		t.Error("a policy failing its tests replaced the one in force")
	}

	_, m := f.do(t, http.MethodGet, "/metrics", "")
	for _, want := range []string{`toolgate_policy_reloads_total{result="ok"} 1`, `toolgate_policy_reloads_total{result="rejected"} 2`, `toolgate_policy_info{digest="` + d1 + `"} 1`} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	_, h := f.do(t, http.MethodGet, "/healthz", "")
	if !strings.Contains(h, d1) {
		t.Errorf("healthz: %s", h)
	}
	// The reloads are in the audit log, and it still verifies.
	var got []string
	b, _ := os.ReadFile(f.log)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r audit.Record
		json.Unmarshal([]byte(line), &r)
		if r.ID == ReloadID {
			if r.Tool != ReloadTool || r.Kind != audit.KindDecision || len(r.Reasons) != 1 {
				t.Errorf("reload record: %s", line)
				continue
			}
			got = append(got, r.Decision+" "+r.Reasons[0].Rule+" "+r.Policy)
		}
	}
	want := []string{"allow policy.reloaded " + d1, "deny policy.reload_failed " + d1, "deny policy.reload_failed " + d1}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("reload records:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res := audit.Verify([]string{f.log}, audit.VerifyOptions{}); res.Problem != nil {
		t.Errorf("audit log: %v", res.Problem)
	}
	if !strings.Contains(f.logs.String(), "rejected; keeping "+d1) {
		t.Errorf("log lines:\n%s", f.logs)
	}
}

func TestWatchReloadsOnChange(t *testing.T) {
	f := start(t, setup{team: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		f.srv.Watch(ctx, 40*time.Millisecond)
		close(done)
	}()
	defer func() {
		cancel()
		<-done
	}()
	d0 := f.r.Gate().PolicyDigest()
	time.Sleep(100 * time.Millisecond) // the watcher has taken its first look
	writeFile(t, filepath.Join(f.policyDir, "team.rego"), strings.Replace(teamPolicy, "MESSAGE", "changed on disk", 1))
	deadline := time.Now().Add(15 * time.Second)
	for f.r.Gate().PolicyDigest() == d0 {
		if time.Now().After(deadline) {
			t.Fatalf("no reload after a change; log:\n%s", f.logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := f.check(t, `{"id":"1","name":"exec","arguments":{"command":"rm x"}}`); got[0].Reasons[0].Message != "changed on disk" {
		t.Errorf("after the watcher's reload: %+v", got)
	}
	// A broken save is rejected and counted; the policy stays.
	d1 := f.r.Gate().PolicyDigest()
	writeFile(t, filepath.Join(f.policyDir, "extra.rego"), "package toolgate\nthis is not rego\n")
	for !strings.Contains(f.logs.String(), "rejected") {
		if time.Now().After(deadline) {
			t.Fatalf("no rejected reload; log:\n%s", f.logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if f.r.Gate().PolicyDigest() != d1 {
		t.Error("a broken file replaced the policy")
	}
	// Hidden files (editor swap files) are not looked at.
	os.Remove(filepath.Join(f.policyDir, "extra.rego"))
	fp := fingerprint([]string{f.policyDir})
	writeFile(t, filepath.Join(f.policyDir, ".team.rego.swp"), "x")
	writeFile(t, filepath.Join(f.policyDir, "notes.txt"), "x")
	if fingerprint([]string{f.policyDir}) != fp {
		t.Error("hidden or non-policy files changed the fingerprint")
	}
}

func TestShutdownFinishesInFlight(t *testing.T) {
	f := start(t, setup{mode: sandbox.ModeNone})
	type answer struct {
		code int
		body string
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, f.base+"/v1/run", strings.NewReader(`{"id":"s","name":"exec","arguments":{"command":"sleep 0.7; echo done"}}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := f.client.Do(req)
		if err != nil {
			got <- answer{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- answer{code: resp.StatusCode, body: string(b)}
	}()
	time.Sleep(300 * time.Millisecond) // the request is running
	start := time.Now()
	if err := f.srv.Shutdown(5 * time.Second); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	a := <-got
	if a.err != nil || a.code != 200 || !strings.Contains(a.body, `"output":"done\n"`) {
		t.Errorf("in-flight request: %+v", a)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("shutdown took %s", d)
	}
	// No new requests after the shutdown.
	req, _ := http.NewRequest(http.MethodGet, f.base+"/healthz", nil)
	if resp, err := f.client.Do(req); err == nil {
		resp.Body.Close()
		t.Error("a request was answered after the shutdown")
	}
}

func TestShutdownCancelsAfterGrace(t *testing.T) {
	f := start(t, setup{mode: sandbox.ModeNone})
	f.cutOK = true
	got := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, f.base+"/v1/run", strings.NewReader(`{"id":"s","name":"exec","arguments":{"command":"sleep 15; echo late"}}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := f.client.Do(req)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	if err := f.srv.Shutdown(300 * time.Millisecond); err == nil {
		t.Error("Shutdown reported a clean stop with a request cut short")
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("shutdown took %s", d)
	}
	select {
	case s := <-got:
		if strings.Contains(s, "late") {
			t.Errorf("the command ran to its end: %s", s)
		}
	case <-time.After(10 * time.Second):
		t.Error("the cut request never ended")
	}
}

func TestMetricsFormat(t *testing.T) {
	m := newMetrics()
	for i := range MaxRuleLabels + 10 {
		m.decision("deny", fmt.Sprintf("rule.%d", i))
	}
	m.decision("allow", "")
	m.decision("weird", "x\"y\\z\nw")
	m.observe(50 * time.Microsecond)
	m.observe(3 * time.Millisecond)
	m.observe(2 * time.Second)
	var b strings.Builder
	m.write(&b, "sha256:ab")
	out := b.String()
	for _, want := range []string{
		`toolgate_decisions_total{decision="deny",rule="other"} 10`,
		`toolgate_decisions_total{decision="allow",rule="none"} 1`,
		`toolgate_decisions_total{decision="other",rule="other"} 1`,
		`toolgate_decision_seconds_bucket{le="0.0001"} 1`,
		`toolgate_decision_seconds_bucket{le="0.0025"} 1`,
		`toolgate_decision_seconds_bucket{le="0.005"} 2`,
		`toolgate_decision_seconds_bucket{le="1"} 2`,
		`toolgate_decision_seconds_bucket{le="+Inf"} 3`,
		`toolgate_decision_seconds_count 3`,
		`toolgate_decision_seconds_sum 2.00305`,
		"# TYPE toolgate_decision_seconds histogram",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
	if n := strings.Count(out, "toolgate_decisions_total{"); n != MaxRuleLabels+3 {
		t.Errorf("%d decision series, want %d", n, MaxRuleLabels+3)
	}
	if escape("a\"b\\c\nd") != `a\"b\\c\nd` {
		t.Errorf("escape: %s", escape("a\"b\\c\nd"))
	}
}

// TestHookEndpoint: /v1/hook/claude-code hands the event and the client's
// workspace to Options.Hook and returns its reply byte for byte; an error
// is a 422 with the reason; without a Hook the endpoint is 404.
func TestHookEndpoint(t *testing.T) {
	var gotWS, gotEvent string
	f := start(t, setup{mode: sandbox.ModeNone, mutate: func(o *Options) {
		o.Hook = func(_ context.Context, ws string, event []byte) ([]byte, error) {
			gotWS, gotEvent = ws, string(event)
			if ws != "/the/ws" {
				return nil, errors.New("another workspace")
			}
			return []byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}` + "\n"), nil
		}
	}})
	code, body := f.do(t, "POST", "/v1/hook/claude-code", `{"tool_name":"Bash"}`, WorkspaceHeader, "/the/ws")
	if code != 200 || body != `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`+"\n" {
		t.Fatalf("answer: %d %q", code, body)
	}
	if gotWS != "/the/ws" || gotEvent != `{"tool_name":"Bash"}` {
		t.Fatalf("Hook got %q %q", gotWS, gotEvent)
	}
	if code, body := f.do(t, "POST", "/v1/hook/claude-code", `{}`, WorkspaceHeader, "/other"); code != 422 || !strings.Contains(body, "another workspace") {
		t.Fatalf("error: %d %s", code, body)
	}

	// A client whose ~ is another directory is told so, here and on
	// /v1/check: the service would judge its home's secrets by its own.
	if code, body := f.do(t, "POST", "/v1/hook/claude-code", `{}`, WorkspaceHeader, "/the/ws", HomeHeader, "/elsewhere"); code != 409 || !strings.Contains(body, "judges ~ as") {
		t.Fatalf("other home: %d %s", code, body)
	}
	if code, body := f.do(t, "POST", "/v1/check", `{"name":"exec","arguments":{"command":"ls"}}`, HomeHeader, "/elsewhere"); code != 409 || !strings.Contains(body, "judges ~ as") {
		t.Fatalf("/v1/check, other home: %d %s", code, body)
	}
	if code, _ := f.do(t, "POST", "/v1/check", `{"name":"exec","arguments":{"command":"ls"}}`, HomeHeader, f.r.Gate().Home()); code != 200 {
		t.Fatalf("/v1/check, same home: %d", code)
	}

	g := start(t, setup{mode: sandbox.ModeNone})
	if code, body := g.do(t, "POST", "/v1/hook/claude-code", `{}`); code != 404 || !strings.Contains(body, "does not answer hook events") {
		t.Fatalf("no Hook: %d %s", code, body)
	}
}

// TestHTTPHookEndpoint: Claude Code's http hooks run the tool on any
// non-2xx answer, so /v1/hook/claude-code/http answers every failure 200
// with a deny (audited); without X-Toolgate-Workspace the service's own
// workspace is meant.
func TestHTTPHookEndpoint(t *testing.T) {
	var gotWS string
	f := start(t, setup{mode: sandbox.ModeNone, mutate: func(o *Options) {
		o.MaxBody = 4096
		o.Hook = func(_ context.Context, ws string, event []byte) ([]byte, error) {
			gotWS = ws
			switch string(event) {
			case `"panic"`:
				panic("the mapper broke")
			case `"bad"`:
				return nil, errors.New("the event is not a PreToolUse event")
			}
			return []byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}` + "\n"), nil
		}
	}})
	code, body := f.do(t, "POST", HTTPHookPath, `{"tool_name":"Bash"}`)
	if code != 200 || !strings.Contains(body, `"permissionDecision":"allow"`) || gotWS != f.r.Gate().Workspace() {
		t.Fatalf("no workspace header: %d %q, Hook got workspace %q (want the service's %q)", code, body, gotWS, f.r.Gate().Workspace())
	}
	if code, body := f.do(t, "POST", HTTPHookPath, `{}`, WorkspaceHeader, f.ws); code != 200 || !strings.Contains(body, `"allow"`) {
		t.Fatalf("the service's workspace named: %d %q", code, body)
	}
	denials := []struct {
		name, body, why string
		hdr             []string
	}{
		{"the Hook fails", `"bad"`, "not a PreToolUse event", nil},
		{"the Hook panics", `"panic"`, "internal error: the mapper broke", nil},
		{"too large", `"` + strings.Repeat("x", 5000) + `"`, "larger than the service's 4096-byte limit", nil},
		{"another home", `{}`, "judges ~ as", []string{HomeHeader, "/elsewhere"}},
		{"not sent as JSON", `{}`, "not sent as Content-Type: application/json", []string{"Content-Type", "text/plain"}},
	}
	for _, d := range denials {
		code, body := f.do(t, "POST", HTTPHookPath, d.body, d.hdr...)
		var ans struct {
			Out struct {
				Event    string `json:"hookEventName"`
				Decision string `json:"permissionDecision"`
				Reason   string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(body), &ans); err != nil || code != 200 {
			t.Errorf("%s: %d %q (%v)", d.name, code, body, err)
			continue
		}
		o := ans.Out
		if o.Event != "PreToolUse" || o.Decision != "deny" || !strings.Contains(o.Reason, d.why) || !strings.HasSuffix(o.Reason, "; the call is blocked") {
			t.Errorf("%s: %+v", d.name, o)
		}
	}
	b, _ := os.ReadFile(f.log)
	if n := strings.Count(string(b), `"rule":"`+CodeHookUnanswered+`"`); n != len(denials) {
		t.Errorf("the audit log holds %d %s denials, want %d:\n%s", n, CodeHookUnanswered, len(denials), b)
	}
	if res := audit.Verify([]string{f.log}, audit.VerifyOptions{}); res.Problem != nil {
		t.Errorf("audit log: %v", res.Problem)
	}

	// A service without a hook denies too.
	g := start(t, setup{mode: sandbox.ModeNone})
	if code, body := g.do(t, "POST", HTTPHookPath, `{}`); code != 200 || !strings.Contains(body, `"deny"`) || !strings.Contains(body, "does not answer hook events") {
		t.Fatalf("no Hook: %d %s", code, body)
	}
}
