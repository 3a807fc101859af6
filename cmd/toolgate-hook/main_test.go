package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseArgs(t *testing.T) {
	t.Setenv("TOOLGATE_SOCKET", "/env.sock")
	o, err := parseArgs([]string{"claude-code", "--socket", "/a.sock", "--workspace=/ws", "--audit", "f", "--policy=p", "--data", "d.json"})
	if err != nil {
		t.Fatal(err)
	}
	want := options{socket: "/a.sock", workspace: "/ws", passThrough: []string{"--workspace", "/ws", "--audit", "f", "--policy", "p", "--data", "d.json"}}
	if !reflect.DeepEqual(o, want) {
		t.Fatalf("got %+v, want %+v", o, want)
	}
	if o, _ := parseArgs([]string{"claude-code"}); o.socket != "/env.sock" {
		t.Fatalf("socket from $TOOLGATE_SOCKET: %+v", o)
	}
	if o, _ := parseArgs([]string{"claude-code", "-socket", "/b.sock", "-workspace=/w"}); o.socket != "/b.sock" || o.workspace != "/w" {
		t.Fatalf("one-dash client flags: %+v", o)
	}
	// What the fallback would refuse is refused here, service or not.
	for _, bad := range [][]string{nil, {"codex"}, {"claude-code", "--socket"}, {"claude-code", "--workspace"},
		{"claude-code", "--polcy", "p"}, {"claude-code", "--policy"}, {"claude-code", "-policy", "p"},
		{"claude-code", "stray"}, {"claude-code", "--", "x"}, {"claude-code", "--bogus=1"}} {
		if _, err := parseArgs(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// --help blocks: exit 0 would let the call through.
func TestHelpBlocks(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"claude-code", "--help"}, strings.NewReader("{}"), &out, &errb); code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), "usage:") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// Without a socket and with nothing to fall back on, the call is blocked:
// exit 2, the reason on stderr, nothing on stdout.
func TestBlocksWithoutFallback(t *testing.T) {
	t.Setenv("TOOLGATE_SOCKET", "")
	t.Setenv("PATH", t.TempDir())
	if self, _ := os.Executable(); self != "" {
		if _, err := os.Stat(filepath.Join(filepath.Dir(self), "toolgate")); err == nil {
			t.Skip("a toolgate sits next to the test binary")
		}
	}
	var out, errs bytes.Buffer
	code := run([]string{"claude-code"}, strings.NewReader(`{"tool_name":"Bash"}`), &out, &errs)
	if code != 2 || out.Len() != 0 || !strings.Contains(errs.String(), "cannot be found") {
		t.Fatalf("exit %d, out %q, stderr %q", code, out.String(), errs.String())
	}
	if code := run([]string{"claude"}, strings.NewReader(""), &out, &errs); code != 2 {
		t.Fatalf("bad usage: exit %d", code)
	}
}

// A reply counts only as Claude Code's JSON.parse reads it: exact keys,
// the last of repeated keys.
func TestCheckReply(t *testing.T) {
	good := []string{
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"x"}}`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","PermissionDecision":"allow"}}`, // Claude Code reads deny
	}
	for _, b := range good {
		if err := checkReply([]byte(b)); err != nil {
			t.Errorf("%s: %v", b, err)
		}
	}
	bad := []string{
		`{"hookspecificoutput":{"hookeventname":"PreToolUse","permissiondecision":"deny"}}`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"},"hookSpecificOutput":{"hookEventName":"PreToolUse"}}`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecision":"maybe"}}`,
		`{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"allow"}}`,
		`{"hookSpecificOutput":null}`,
		`[]`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}} trailing`,
	}
	for _, b := range bad {
		if err := checkReply([]byte(b)); err == nil {
			t.Errorf("%s: accepted", b)
		}
	}
}

// The fallback's verdict stands only as Claude Code reads it: exit 0 with
// its answer, or 2 (blocked). Any other failing exit code would let the
// call through in Claude Code, so it becomes a block.
func TestFallbackExitCodes(t *testing.T) {
	if self, _ := os.Executable(); self != "" {
		if _, err := os.Stat(filepath.Join(filepath.Dir(self), "toolgate")); err == nil {
			t.Skip("a toolgate sits next to the test binary")
		}
	}
	dir := t.TempDir()
	t.Setenv("TOOLGATE_SOCKET", "")
	t.Setenv("PATH", dir)
	for script, want := range map[string]int{
		"echo '{\"hookSpecificOutput\":{}}'; exit 0": 0,
		"echo blocked >&2; exit 2":                   2,
		"exit 1":                                     2,
		"exit 3":                                     2,
		"kill -9 $$":                                 2,
	} {
		if err := os.WriteFile(filepath.Join(dir, "toolgate"), []byte("#!/bin/sh\ncat >/dev/null\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		var out, errs bytes.Buffer
		if code := run([]string{"claude-code"}, strings.NewReader(`{}`), &out, &errs); code != want {
			t.Errorf("fallback %q: exit %d, want %d (stderr %q)", script, code, want, errs.String())
		}
	}
}

// A home or workspace that HTTP would trim is not sent: the service could
// not tell it from another, so the client decides by other means.
func TestUnsafePathsAreNotSent(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
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
			// read the whole request first: closing early would break
			// the client's write
			br := bufio.NewReader(c)
			n := 0
			for {
				l, err := br.ReadString('\n')
				if err != nil || l == "\r\n" {
					break
				}
				if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(k, "Content-Length") {
					n, _ = strconv.Atoi(strings.TrimSpace(v))
				}
			}
			io.ReadFull(br, make([]byte, n))
			body := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body))
			c.Close()
		}
	}()
	t.Setenv("HOME", "/tmp/h")
	if _, err := ask(sock, "/ws", []byte(`{}`)); err != nil {
		t.Fatalf("plain paths: %v", err)
	}
	if _, err := ask(sock, "/ws ", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "workspace path") {
		t.Errorf("workspace with a trailing space: %v", err)
	}
	t.Setenv("HOME", "/tmp/h ")
	if _, err := ask(sock, "/ws", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "home path") {
		t.Errorf("home with a trailing space: %v", err)
	}
}
