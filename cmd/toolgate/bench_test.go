package main

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/corpus"
)

// corpusStream returns the attack corpus's calls (about 3,200, every tool,
// three in four of them attacks) as one input stream, with the fixture
// workspace and home they are written for.
func corpusStream(b *testing.B) (stream []byte, n int, ws, home string) {
	cases, err := corpus.Load(filepath.Join("..", "..", "testdata", "attacks"))
	if err != nil {
		b.Fatal(err)
	}
	ws, home, err = corpus.Fixture(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for _, c := range cases {
		for _, l := range c.Lines(ws, home) {
			buf.WriteString(l)
			buf.WriteByte('\n')
			n++
		}
	}
	return buf.Bytes(), n, ws, home
}

// BenchmarkCheckStream runs the whole corpus through one check (in this
// process: the binary's start is not included), with the audit log off and
// with --fsync batch, and reports microseconds per call end to end. The
// README's table gives the same figure for the binary (make bench).
func BenchmarkCheckStream(b *testing.B) {
	stream, n, ws, home := corpusStream(b)
	b.Setenv("HOME", home)
	for _, mode := range []string{"none", "batch"} {
		b.Run("audit-"+mode, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				args := []string{"check", "--workspace", ws, "--audit", "none"}
				if mode != "none" {
					args = []string{"check", "--workspace", ws, "--audit", filepath.Join(b.TempDir(), "audit.jsonl"), "--fsync", mode}
				}
				t0 := time.Now()
				if code := execute(args, bytes.NewReader(stream), io.Discard, io.Discard); code != 0 {
					b.Fatalf("check exited %d", code)
				}
				total += time.Since(t0)
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N*n), "µs/call")
		})
	}
}

// BenchmarkHookInProcess answers one Claude Code PreToolUse event per
// iteration the way a hook process does without a service: the policy is
// loaded and compiled every time (the binary's start, about 35 ms on the
// project's VM, is not included).
func BenchmarkHookInProcess(b *testing.B) {
	ws := b.TempDir()
	b.Setenv("HOME", b.TempDir())
	b.Setenv("CLAUDE_PROJECT_DIR", ws)
	ev, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": "/tmp/t", "cwd": ws,
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "ls -la"}})
	for i := 0; i < b.N; i++ {
		var out bytes.Buffer
		if code := execute([]string{"hook", "claude-code", "--audit", "none"}, bytes.NewReader(ev), &out, io.Discard); code != 0 || !strings.Contains(out.String(), `"allow"`) {
			b.Fatalf("hook: exit %d, %s", code, out.String())
		}
	}
}
