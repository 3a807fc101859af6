package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/toolgate/toolgate/internal/hookflags"
)

// hookClient builds cmd/toolgate-hook into dir, with a toolgate beside it
// that runs this test binary as toolgate (the client's fallback).
func hookClient(t *testing.T, dir string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build toolgate-hook")
	}
	client := filepath.Join(dir, "toolgate-hook")
	if out, err := exec.Command(goBin, "build", "-o", client, "github.com/toolgate/toolgate/cmd/toolgate-hook").CombinedOutput(); err != nil {
		t.Fatalf("building toolgate-hook: %v\n%s", err, out)
	}
	script := "#!/bin/sh\nTOOLGATE_MAIN=1 exec '" + os.Args[0] + "' -test.run='^$' -- \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "toolgate"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return client
}

type hookRun = binRun

func runHookClient(t *testing.T, client, ws, socket string, event string, args ...string) hookRun {
	t.Helper()
	return runBin(t, "", event, []string{"CLAUDE_PROJECT_DIR=" + ws, "TOOLGATE_SOCKET=" + socket, "PATH=" + filepath.Dir(client)}, client, append([]string{"claude-code"}, args...)...)
}

func bashEvent(ws, command string) string {
	return `{"hook_event_name":"PreToolUse","cwd":"` + ws + `","tool_name":"Bash","tool_input":{"command":"` + command + `"}}`
}

// TestHookClient: toolgate-hook gets its answers from a real `toolgate serve
// --socket` (which audits them), and whenever the service cannot answer —
// another workspace, no socket, a socket that never replies — the event
// goes to `toolgate hook claude-code` with the other flags, so a decision
// is always made; with no toolgate to fall back on, the call is blocked.
func TestHookClient(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, ws2, home, bin := filepath.Join(root, "ws"), filepath.Join(root, "ws2"), filepath.Join(root, "home"), filepath.Join(root, "bin")
	for _, d := range []string{ws, ws2, filepath.Join(home, ".ssh"), bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	client := hookClient(t, bin)

	sock, log := filepath.Join(root, "s.sock"), filepath.Join(root, "serve.jsonl")
	srv := toolgateCmd("serve", "--socket", sock, "--workspace", ws, "--sandbox", "none", "--audit", log)
	var srvErr bytes.Buffer
	srv.Stderr = &srvErr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	for deadline := time.Now().Add(30 * time.Second); ; {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the service did not start:\n%s", srvErr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	for cmd, want := range map[string]string{"ls -la": `"allow"`, "cat ~/.ssh/id_rsa": `"deny"`, "git push": `"ask"`} {
		r := runHookClient(t, client, ws, sock, bashEvent(ws, cmd))
		if r.code != 0 || !strings.Contains(r.out, `"permissionDecision":`+want) || r.errs != "" {
			t.Errorf("%s: exit %d, out %q, stderr %q", cmd, r.code, r.out, r.errs)
		}
	}
	if b, err := os.ReadFile(log); err != nil || strings.Count(string(b), `"kind":"decision"`) != 3 {
		t.Errorf("the service's audit log holds %d decisions (want 3): %v", strings.Count(string(b), `"kind":"decision"`), err)
	}

	// Another workspace: the service refuses, the fallback decides for
	// ws2 with the flags passed through (its own audit log).
	log2 := filepath.Join(root, "fallback.jsonl")
	r := runHookClient(t, client, ws2, sock, bashEvent(ws2, "ls"), "--audit", log2)
	if r.code != 0 || !strings.Contains(r.out, `"allow"`) || !strings.Contains(r.errs, "did not decide (422") {
		t.Errorf("another workspace: %+v", r)
	}
	if b, err := os.ReadFile(log2); err != nil || !strings.Contains(string(b), `"kind":"decision"`) {
		t.Errorf("the fallback did not audit to --audit: %v", err)
	}

	// Another home: the service's ~ would be another directory's; the
	// fallback judges with the client's own home.
	other := filepath.Join(root, "other-home")
	os.MkdirAll(filepath.Join(other, ".kube"), 0o755)
	cmd := exec.Command(client, "claude-code", "--audit", log2)
	cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR="+ws, "TOOLGATE_SOCKET="+sock, "PATH="+bin, "HOME="+other)
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse","cwd":"` + ws + `","tool_name":"Read","tool_input":{"file_path":"` + other + `/.kube/config"}}`)
	var hout, herr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &hout, &herr
	if err := cmd.Run(); err != nil || !strings.Contains(hout.String(), `"deny"`) || !strings.Contains(herr.String(), "did not decide (409") {
		t.Errorf("another home: %v, out %q, stderr %q", err, hout.String(), herr.String())
	}

	// No socket: the fallback decides, and still denies what it must.
	r = runHookClient(t, client, ws, filepath.Join(root, "none.sock"), bashEvent(ws, "cat ~/.ssh/id_rsa"), "--audit", log2)
	if r.code != 0 || !strings.Contains(r.out, `"deny"`) || !strings.Contains(r.errs, "no such file") {
		t.Errorf("no socket: %+v", r)
	}

	// A socket that accepts and never answers: given up after 2 s.
	mute := filepath.Join(root, "mute.sock")
	ln, err := net.Listen("unix", mute)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	start := time.Now()
	r = runHookClient(t, client, ws, mute, bashEvent(ws, "ls"), "--audit", log2)
	if r.code != 0 || !strings.Contains(r.out, `"allow"`) || time.Since(start) > 20*time.Second {
		t.Errorf("mute socket: %+v after %v", r, time.Since(start))
	}

	// Nothing to fall back on: blocked.
	lone := filepath.Join(root, "lone")
	os.MkdirAll(lone, 0o755)
	loneClient := filepath.Join(lone, "toolgate-hook")
	if b, err := os.ReadFile(client); err != nil || os.WriteFile(loneClient, b, 0o755) != nil {
		t.Fatal("copying toolgate-hook:", err)
	}
	r = runHookClient(t, loneClient, ws, filepath.Join(root, "none.sock"), bashEvent(ws, "ls"))
	if r.code != 2 || r.out != "" || !strings.Contains(r.errs, "cannot be found") {
		t.Errorf("no toolgate: %+v", r)
	}
	// Malformed command lines block too.
	if r := runHookClient(t, loneClient, ws, sock, bashEvent(ws, "ls"), "--socket"); r.code != 2 {
		t.Errorf("--socket without a value: %+v", r)
	}
}

// toolgate-hook refuses the flags `toolgate hook claude-code` would refuse:
// its list must be the command's.
func TestHookClientKnowsTheHookFlags(t *testing.T) {
	var got []string
	newHookClaudeCmd().Flags().VisitAll(func(f *pflag.Flag) {
		known, valued := hookflags.Takes(f.Name)
		if !known {
			t.Errorf("--%s is a flag of toolgate hook claude-code that toolgate-hook does not know", f.Name)
		}
		if valued != (f.Value.Type() != "bool") {
			t.Errorf("--%s: toolgate-hook thinks it takes a value: %v", f.Name, valued)
		}
		got = append(got, f.Name)
	})
	for _, n := range hookflags.Valued {
		if !slices.Contains(got, n) {
			t.Errorf("toolgate-hook passes --%s on, which toolgate hook claude-code does not have", n)
		}
	}
}
