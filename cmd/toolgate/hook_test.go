package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hookEvent reads a recorded Claude Code payload from hook/testdata, moved
// into ws and home.
func hookEvent(t *testing.T, name, ws, home string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "hook", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "/home/dev/webapp", ws)
	return strings.ReplaceAll(s, "/home/dev", home)
}

type hookAnswer struct {
	HookSpecificOutput struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

func parseHook(t *testing.T, out string) hookAnswer {
	t.Helper()
	var a hookAnswer
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil || a.HookSpecificOutput.HookEventName != "PreToolUse" || !strings.HasSuffix(out, "}\n") || strings.Count(out, "\n") != 1 {
		t.Fatalf("hook output %q: %v", out, err)
	}
	return a
}

func hookEnv(t *testing.T) (ws, home string) {
	t.Helper()
	ws = filepath.Join(t.TempDir(), "webapp")
	home = t.TempDir()
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_PROJECT_DIR", ws)
	t.Setenv("TOOLGATE_SOCKET", "")
	return ws, home
}

func TestHookClaudeCode(t *testing.T) {
	ws, home := hookEnv(t)
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	cases := []struct{ file, decision, prefix string }{
		{"bash.json", "allow", "toolgate: allowed by the policy"},
		{"bash_destroy.json", "deny", "destroy.root: "},
		{"bash_subdir.json", "ask", "ask.git_remote: "},
		{"read_ssh_key.json", "deny", "secrets.access: "},
		{"multiedit.json", "allow", "toolgate: allowed by the policy"},
		{"webfetch.json", "ask", "toolgate.no_policy: WebFetch"},
	}
	for _, c := range cases {
		out, errs, code := run(t, hookEvent(t, c.file, ws, home), "hook", "claude-code", "--audit", log)
		if code != 0 {
			t.Fatalf("%s: exit %d %s", c.file, code, errs)
		}
		a := parseHook(t, out).HookSpecificOutput
		if a.PermissionDecision != c.decision || !strings.HasPrefix(a.PermissionDecisionReason, c.prefix) {
			t.Errorf("%s: %+v", c.file, a)
		}
	}
	// The exact answer for one of them.
	out, _, _ := run(t, hookEvent(t, "bash.json", ws, home), "hook", "claude-code", "--audit", log)
	if want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"toolgate: allowed by the policy"}}` + "\n"; out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	out, _, code := run(t, "", "audit", "verify", log)
	if code != 0 || !strings.Contains(out, "intact") {
		t.Errorf("audit verify: %d %s", code, out)
	}
	out, _, _ = run(t, "", "audit", "show", "--json", log)
	if !strings.Contains(out, `"source":"hook"`) || !strings.Contains(out, "toolu_01Za2Bc4De6Fg8Hi0Jk2Lm4n") {
		t.Errorf("audit log:\n%s", out)
	}
	// --workspace wins over the project directory.
	out, _, _ = run(t, hookEvent(t, "bash.json", ws, home), "hook", "claude-code", "--audit", "none", "--workspace", filepath.Join(ws, "src"))
	if a := parseHook(t, out).HookSpecificOutput; a.PermissionDecision != "deny" || !strings.HasPrefix(a.PermissionDecisionReason, "workspace.cd_outside: ") {
		t.Errorf("cwd outside --workspace: %+v", a)
	}
}

// Every failure blocks the call: exit 2 (Claude Code runs the tool after any
// other non-zero code), the reason on stderr and a deny on stdout.
func TestHookFailsClosed(t *testing.T) {
	ws, home := hookEnv(t)
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "p.rego"), []byte("package toolgate\ndecision := {\n"), 0o644)
	ev := hookEvent(t, "bash.json", ws, home)
	cases := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"garbage", "rm -rf /", nil, "not a JSON event object"},
		{"empty", "", nil, "not a JSON event object"},
		{"wrong event", strings.Replace(ev, `"PreToolUse"`, `"PostToolUse"`, 1), nil, "PreToolUse events only"},
		{"bad input", strings.Replace(ev, `"command":"npm test -- --watch=false"`, `"command":["npm"]`, 1), nil, "Bash input"},
		{"unknown flag", ev, []string{"--nope"}, "unknown flag: --nope"},
		{"extra argument", ev, []string{"extra"}, "takes no arguments"},
		{"broken policy", ev, []string{"--policy", broken}, "rego_parse_error"},
		{"unwritable audit log", ev, []string{"--audit", "/proc/nope/audit.jsonl"}, "audit"},
		{"missing workspace", ev, []string{"--workspace", filepath.Join(ws, "missing")}, "workspace"},
	}
	for _, c := range cases {
		args := append([]string{"hook", "claude-code"}, c.args...)
		if c.name != "unwritable audit log" {
			args = append(args, "--audit", "none")
		}
		out, errs, code := run(t, c.stdin, args...)
		if code != 2 || !strings.Contains(errs, c.want) || !strings.Contains(errs, "the call is blocked") {
			t.Errorf("%s: exit %d, stderr %q", c.name, code, errs)
			continue
		}
		if a := parseHook(t, out).HookSpecificOutput; a.PermissionDecision != "deny" || !strings.Contains(a.PermissionDecisionReason, c.want) {
			t.Errorf("%s: %+v", c.name, a)
		}
	}
	for _, args := range [][]string{{"hook"}, {"hook", "cursor"}} {
		out, errs, code := run(t, ev, args...)
		if code != 2 || !strings.Contains(errs, "claude-code") || parseHook(t, out).HookSpecificOutput.PermissionDecision != "deny" {
			t.Errorf("%v: exit %d %q", args, code, errs)
		}
	}
}

// An answer larger than net/http buffers (which it would otherwise send
// chunked, and the hook's client refuses unsized answers) still reaches
// the hook: the service decides, the hook does not fall back.
func TestHookSocketLargeAnswer(t *testing.T) {
	ws, home := hookEnv(t)
	sock := filepath.Join(shortDir(t), "tg.sock")
	msg := "the service says no " + strings.Repeat("at length ", 600)
	s := startServe(t, "--socket", sock, "--workspace", ws, "--policy", teamPolicyDir(t, msg), "--audit", "none", "--sandbox", "none")
	s.wait(t, unixHTTP(sock), "http://localhost")
	defer s.stop(t)
	ev := strings.Replace(hookEvent(t, "bash.json", ws, home), "npm test -- --watch=false", "rm src/old.ts", 1)
	out, errs, code := run(t, ev, "hook", "claude-code", "--socket", sock, "--audit", "none")
	a := parseHook(t, out).HookSpecificOutput
	if code != 0 || a.PermissionDecision != "deny" || !strings.HasPrefix(a.PermissionDecisionReason, "team.no_rm: the service says no") || errs != "" {
		t.Errorf("%d %s %q", code, a.PermissionDecision, errs)
	}
}

// With a service on the socket, the service decides (its policy, its log).
func TestHookSocketFastPath(t *testing.T) {
	ws, home := hookEnv(t)
	sock := filepath.Join(shortDir(t), "tg.sock")
	serveLog := filepath.Join(t.TempDir(), "serve.jsonl")
	s := startServe(t, "--socket", sock, "--workspace", ws, "--policy", teamPolicyDir(t, "the service says no"), "--audit", serveLog, "--sandbox", "none")
	s.wait(t, unixHTTP(sock), "http://localhost")
	ev := strings.Replace(hookEvent(t, "bash.json", ws, home), "npm test -- --watch=false", "rm src/old.ts", 1)
	// In-process (the embedded policy) this is allowed; the service's team
	// policy denies it.
	out, errs, code := run(t, ev, "hook", "claude-code", "--audit", "none")
	if a := parseHook(t, out).HookSpecificOutput; code != 0 || a.PermissionDecision != "allow" {
		t.Fatalf("in-process: %d %+v %s", code, a, errs)
	}
	hookLog := filepath.Join(t.TempDir(), "hook.jsonl")
	for _, args := range [][]string{
		{"hook", "claude-code", "--socket", sock, "--audit", hookLog},
		{"hook", "claude-code", "--audit", hookLog}, // $TOOLGATE_SOCKET
	} {
		t.Setenv("TOOLGATE_SOCKET", sock)
		out, errs, code := run(t, ev, args...)
		a := parseHook(t, out).HookSpecificOutput
		if code != 0 || a.PermissionDecision != "deny" || a.PermissionDecisionReason != "team.no_rm: the service says no" || errs != "" {
			t.Errorf("%v: %d %+v %q", args, code, a, errs)
		}
	}
	if _, err := os.Stat(hookLog); !os.IsNotExist(err) {
		t.Errorf("the hook opened its own log although the service decided: %v", err)
	}
	b, _ := os.ReadFile(serveLog)
	if strings.Count(string(b), `"id":"toolu_01HZk5tq3W9vXrYb2JcLmN4p"`) != 2 {
		t.Errorf("the service's log:\n%s", b)
	}
	// Service gone: decided here, with a note.
	if code := s.stop(t); code != 0 {
		t.Fatalf("serve exit %d", code)
	}
	out, errs, code = run(t, ev, "hook", "claude-code", "--socket", sock, "--audit", "none")
	if a := parseHook(t, out).HookSpecificOutput; code != 0 || a.PermissionDecision != "allow" || !strings.Contains(errs, "deciding here") {
		t.Errorf("service gone: %d %+v %q", code, a, errs)
	}
}
