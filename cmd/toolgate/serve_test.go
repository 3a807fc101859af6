package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to read while a command writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// service is a `toolgate serve` running in the test process.
type service struct {
	stderr *syncBuffer
	cancel context.CancelFunc
	code   chan int
}

// startServe runs the serve command until stop (or the test's end).
func startServe(t *testing.T, args ...string) *service {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &service{stderr: &syncBuffer{}, cancel: cancel, code: make(chan int, 1)}
	go func() {
		s.code <- executeContext(ctx, append([]string{"serve"}, args...), strings.NewReader(""), io.Discard, s.stderr)
	}()
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop ends the service and returns its exit code.
func (s *service) stop(t *testing.T) int {
	t.Helper()
	s.cancel()
	select {
	case c := <-s.code:
		s.code <- c // for a second stop
		return c
	case <-time.After(20 * time.Second):
		t.Fatalf("serve did not stop; stderr:\n%s", s.stderr)
		return -1
	}
}

// wait polls until the service answers GET /healthz (so its SIGHUP
// handler is in place) and returns the answer.
func (s *service) wait(t *testing.T, c *http.Client, base string) map[string]string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case code := <-s.code:
			t.Fatalf("serve exited %d:\n%s", code, s.stderr)
		default:
		}
		if resp, err := c.Get(base + "/healthz"); err == nil {
			var h map[string]string
			json.NewDecoder(resp.Body).Decode(&h)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return h
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not come up:\n%s", s.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func unixHTTP(sock string) *http.Client {
	return &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
	}}
}

func post(t *testing.T, c *http.Client, url, body string) (int, string) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "tgc") // unix socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

const teamRego = `package toolgate

default decision := {"decision": "allow", "reasons": []}

decision := {"decision": "deny", "reasons": [{"rule": "team.no_rm", "message": "MESSAGE"}]} if {
	some c in input.commands
	c.name == "rm"
}
`

const teamRegoTest = `package toolgate_test

import data.toolgate

test_rm if {
	toolgate.decision.decision == "deny" with input as {"commands": [{"name": "rm"}]}
}
`

func teamPolicyDir(t *testing.T, msg string) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "team")
	os.MkdirAll(d, 0o755)
	os.WriteFile(filepath.Join(d, "team.rego"), []byte(strings.Replace(teamRego, "MESSAGE", msg, 1)), 0o644)
	os.WriteFile(filepath.Join(d, "team_test.rego"), []byte(teamRegoTest), 0o644)
	return d
}

func TestServeSocketReloadAndStop(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	ws := t.TempDir()
	sock := filepath.Join(shortDir(t), "tg.sock")
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	pol := teamPolicyDir(t, "no rm")
	s := startServe(t, "--socket", sock, "--workspace", ws, "--policy", pol, "--audit", log, "--sandbox", "none")
	c := unixHTTP(sock)
	h := s.wait(t, c, "http://localhost")
	if st, err := os.Stat(sock); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket: %v %v", st, err)
	}
	code, out := post(t, c, "http://localhost/v1/check", `[{"id":"a","name":"exec","arguments":{"command":"rm x"}},{"id":"b","name":"exec","arguments":{"command":"ls"}}]`)
	if code != 200 || !strings.Contains(out, `"rule":"team.no_rm","message":"no rm"`) || !strings.Contains(out, `{"id":"b","tool":"exec","decision":"allow","reasons":[]}`) {
		t.Fatalf("check: %d %s", code, out)
	}
	code, out = post(t, c, "http://localhost/v1/run", `{"id":"w","name":"write_file","arguments":{"path":"f.txt","content":"hi"}}`)
	if code != 200 || !strings.Contains(out, `"output":"Successfully wrote 2 bytes to `) {
		t.Fatalf("run: %d %s", code, out)
	}

	// SIGHUP reloads the policy.
	os.WriteFile(filepath.Join(pol, "team.rego"), []byte(strings.Replace(teamRego, "MESSAGE", "still no rm", 1)), 0o644)
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(s.stderr.String(), "policy reload (SIGHUP)") {
		if time.Now().After(deadline) {
			t.Fatalf("no reload after SIGHUP:\n%s", s.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	h2 := s.wait(t, c, "http://localhost")
	if h2["policy"] == h["policy"] {
		t.Errorf("the digest did not change: %v", h2)
	}
	if _, out = post(t, c, "http://localhost/v1/check", `{"id":"a","name":"exec","arguments":{"command":"rm x"}}`); !strings.Contains(out, "still no rm") {
		t.Errorf("after the reload: %s", out)
	}

	if code := s.stop(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, s.stderr)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
	errs := s.stderr.String()
	for _, want := range []string{"serving on unix:" + sock, "warning: --sandbox=none", "stopped"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	out, _, code = run(t, "", "audit", "verify", log)
	if code != 0 || !strings.Contains(out, "intact") {
		t.Errorf("audit verify: %d %s", code, out)
	}
	out, _, _ = run(t, "", "audit", "show", "--json", log)
	if !strings.Contains(out, `"policy-reload"`) || !strings.Contains(out, `"source":"serve"`) {
		t.Errorf("audit log:\n%s", out)
	}
}

func TestServeTCP(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	ws := t.TempDir()
	s := startServe(t, "--listen", "127.0.0.1:0", "--workspace", ws, "--audit", "none")
	re := regexp.MustCompile(`serving on (http://127\.0\.0\.1:\d+)`)
	var base string
	deadline := time.Now().Add(20 * time.Second)
	for base == "" {
		if m := re.FindStringSubmatch(s.stderr.String()); m != nil {
			base = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no address:\n%s", s.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	c := &http.Client{Timeout: 20 * time.Second}
	s.wait(t, c, base)
	code, out := post(t, c, base+"/v1/check", `{"id":"1","name":"exec","arguments":{"command":"sudo ls"}}`)
	if code != 200 || !strings.Contains(out, `"decision":"deny"`) {
		t.Errorf("check: %d %s", code, out)
	}
	resp, err := c.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `toolgate_decisions_total{decision="deny",rule="priv.escalate"} 1`) {
		t.Errorf("metrics:\n%s", b)
	}
	if code := s.stop(t); code != 0 {
		t.Errorf("exit %d:\n%s", code, s.stderr)
	}
}

func TestServeRefuses(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	ws := t.TempDir()
	file := filepath.Join(t.TempDir(), "not-a-socket")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "exactly one of --listen"},
		{[]string{"--listen", "127.0.0.1:0", "--socket", file}, "exactly one of --listen"},
		{[]string{"--listen", "0.0.0.0:0"}, "no authentication"},
		{[]string{"--listen", "[::]:0"}, "no authentication"},
		{[]string{"--listen", "nohostport"}, "--listen nohostport"},
		{[]string{"--socket", file}, "not a socket"},
		{[]string{"--listen", "127.0.0.1:0", "--approve", "prompt"}, "no terminal"},
		{[]string{"--listen", "127.0.0.1:0", "--sandbox", "docker"}, "unknown sandbox"},
		{[]string{"--listen", "127.0.0.1:0", "--timeout", "0"}, "--timeout"},
		{[]string{"--listen", "127.0.0.1:0", "--max-runs", "0"}, "--max-runs"},
	} {
		_, errs, code := run(t, "", append([]string{"serve", "--workspace", ws, "--audit", "none"}, c.args...)...)
		if code != 1 || !strings.HasPrefix(errs, "toolgate: ") || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d %q", c.args, code, errs)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Error("serve replaced a file that is not a socket")
	}
}
