package tools

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/toolgate/toolgate/sandbox"
)

func text(s string) sandbox.Text { return sandbox.Text{Head: s, Bytes: int64(len(s))} }

func TestFormatExecSeedStrings(t *testing.T) {
	cases := []struct {
		name string
		r    sandbox.Result
		want string
	}{
		{"stdout", sandbox.Result{Stdout: text("hello\n")}, "hello\n"},
		{"all three", sandbox.Result{Stdout: text("out\n"), Stderr: text("err\n"), ExitCode: 1},
			"out\n\nSTDERR:\nerr\n\n\nExit code: 1"},
		{"stderr only", sandbox.Result{Stderr: text("boom\n"), ExitCode: 2}, "STDERR:\nboom\n\n\nExit code: 2"},
		{"blank stderr dropped", sandbox.Result{Stdout: text("x"), Stderr: text(" \n\t")}, "x"},
		{"nothing", sandbox.Result{}, "(no output)"},
		{"only an exit code", sandbox.Result{ExitCode: 3}, "\nExit code: 3"},
		{"memory", sandbox.Result{ExitCode: 137, OOM: true}, "Error: a process was killed: the sandbox's memory limit was reached\n\nExit code: 137"},
		{"output flood", sandbox.Result{Stdout: text("y\n"), OutputLimited: true, ExitCode: 137}, "y\n\nError: Command stopped: its output passed the sandbox's limit\n\nExit code: 137"},
		{"timeout", sandbox.Result{Stdout: text("partial"), TimedOut: true, ExitCode: 137}, "Error: Command timed out after 60 seconds"},
	}
	for _, c := range cases {
		got, trunc := FormatExec(c.r, 60*time.Second)
		if got != c.want || trunc {
			t.Errorf("%s: got %q (truncated %v), want %q", c.name, got, trunc, c.want)
		}
	}
}

func TestFormatExecHeadAndTail(t *testing.T) {
	long := strings.Repeat("a", 5000) + strings.Repeat("m", 15000) + strings.Repeat("z", 5000)
	got, trunc := FormatExec(sandbox.Result{Stdout: text(long)}, time.Minute)
	want := strings.Repeat("a", 5000) + "\n\n... (15,000 chars truncated) ...\n\n" + strings.Repeat("z", 5000)
	if got != want || !trunc {
		t.Fatalf("head/tail cut wrong: len %d, truncated %v", len(got), trunc)
	}
	// Characters, not bytes.
	wide := strings.Repeat("é", 12000)
	got, _ = FormatExec(sandbox.Result{Stdout: text(wide)}, time.Minute)
	if !strings.Contains(got, "(2,000 chars truncated)") || !utf8.ValidString(got) ||
		utf8.RuneCountInString(got) != 10000+utf8.RuneCountInString("\n\n... (2,000 chars truncated) ...\n\n") {
		t.Errorf("multibyte cut wrong: %q…", got[:40])
	}
	// The capture's gap counts toward what was cut, and the exit code stays
	// in the tail.
	r := sandbox.Result{
		Stdout:   sandbox.Text{Head: strings.Repeat("h", 65536), Gap: 1000000, Tail: strings.Repeat("t", 65536), Bytes: 1131072},
		ExitCode: 1,
	}
	got, trunc = FormatExec(r, time.Minute)
	total := 65536 + 1000000 + 65536 + len("\n\nExit code: 1")
	if !trunc || !strings.HasPrefix(got, strings.Repeat("h", 5000)+"\n\n... (") ||
		!strings.HasSuffix(got, "t\n\nExit code: 1") ||
		!strings.Contains(got, "("+thousands(total-10000)+" chars truncated)") {
		t.Errorf("gap not counted: …%q…", got[4990:5060])
	}
}

func TestBlocked(t *testing.T) {
	if got := Blocked("exec", []string{"deletes the home directory", "reads a secret"}); got != "Error: Command blocked by safety guard (deletes the home directory; reads a secret)" {
		t.Errorf("got %q", got)
	}
	if got := Blocked("read_file", nil); got != "Error: read_file blocked by safety guard (denied by policy)" {
		t.Errorf("got %q", got)
	}
}
