package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/hook"
)

// TestHTTPHook posts Claude Code events to a real `toolgate serve --listen`
// the way Claude Code's http hooks do (the event as the body, headers from
// the hook's settings): the service's policy decides and audits, and an
// event it cannot decide is denied with a 200 answer, since any other status
// would let the tool run.
func TestHTTPHook(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, ws2, home := filepath.Join(root, "ws"), filepath.Join(root, "ws2"), filepath.Join(root, "home")
	for _, d := range []string{ws, ws2, filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	log := filepath.Join(root, "serve.jsonl")
	srv := toolgateCmd("serve", "--listen", "127.0.0.1:0", "--workspace", ws, "--sandbox", "none", "--audit", log)
	errs, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`serving on (http://127\.0\.0\.1:\d+)`)
		sc := bufio.NewScanner(errs)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	var base string
	select {
	case base = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatal("the service did not say where it listens")
	}

	post := func(event string, hdr ...string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("POST", base+"/v1/hook/claude-code/http", strings.NewReader(event))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	cases := []struct {
		name, event, want, reason string
		hdr                       []string
	}{
		{"benign", bashEvent(ws, "ls -la"), "allow", "", nil},
		{"a secret", bashEvent(ws, "cat ~/.ssh/id_rsa"), "deny", "", nil},
		{"a push", bashEvent(ws, "git push"), "ask", "", nil},
		{"the workspace named", bashEvent(ws, "cat ~/.ssh/id_rsa"), "deny", "", []string{"X-Toolgate-Workspace", ws}},
		{"another workspace", bashEvent(ws2, "ls"), "deny", "judges calls for the workspace", []string{"X-Toolgate-Workspace", ws2}},
		{"not an event", `{"tool_name":`, "deny", "the call is blocked", nil},
		{"a tool input of the wrong shape", `{"hook_event_name":"PreToolUse","cwd":"` + ws + `","tool_name":"Bash","tool_input":{"command":7}}`, "deny", "the call is blocked", nil},
	}
	for _, c := range cases {
		code, body := post(c.event, c.hdr...)
		if code != 200 || !strings.Contains(body, `"hookEventName":"PreToolUse"`) || !strings.Contains(body, `"permissionDecision":"`+c.want+`"`) || !strings.Contains(body, c.reason) {
			t.Errorf("%s: %d %s", c.name, code, body)
		}
		// the service's own denials are written as the hook writes its
		// answers
		var ans struct {
			Out struct {
				Decision string `json:"permissionDecision"`
				Reason   string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(body), &ans); err != nil {
			t.Errorf("%s: %v", c.name, err)
		} else if want := (hook.Answer{Decision: ans.Out.Decision, Reason: ans.Out.Reason}).JSON(); body != string(want) {
			t.Errorf("%s: answer %q, the hook would write %q", c.name, body, want)
		}
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	// the three decided calls, the named workspace, and the three denials
	// of events that could not be decided
	if n := strings.Count(string(b), `"kind":"decision"`); n != len(cases) {
		t.Errorf("the service's audit log holds %d decisions, want %d:\n%s", n, len(cases), b)
	}
	if v := toolgateCmd("audit", "verify", log); v.Run() != nil {
		t.Errorf("the service's audit log does not verify")
	}
}
