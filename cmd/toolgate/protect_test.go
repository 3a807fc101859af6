package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/policies"
)

// A policy kept in the workspace and a home inside the workspace (so the
// default audit log is in it): calls that would change toolgate's own files
// are denied, reading them is not.
func TestOwnFilesInTheWorkspaceAreProtected(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("HOME", ws)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("TOOLGATE_AUDIT", "")
	pol := filepath.Join(ws, "policies")
	if err := os.MkdirAll(pol, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := policies.FS.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := policies.FS.ReadFile(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pol, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A signing key inside the workspace is refused at start: search,
	// grep -r or tar over a directory above it would read it.
	inside := filepath.Join(ws, "keys", "audit.key")
	os.MkdirAll(filepath.Dir(inside), 0o700)
	if _, errs, code := run(t, "", "audit", "keygen", "--out", inside); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := run(t, "", "check", "--workspace", ws, "--audit-key", inside); code != exitError || !strings.Contains(errs, "lies inside the workspace") {
		t.Fatalf("key in the workspace: exit %d, %s", code, errs)
	}
	os.RemoveAll(filepath.Dir(inside))
	key := filepath.Join(t.TempDir(), "audit.key")
	if _, errs, code := run(t, "", "audit", "keygen", "--out", key); code != 0 {
		t.Fatal(errs)
	}
	calls := map[string]string{
		"sed":      `{"id":"sed","name":"exec","arguments":{"command":"sed -i s/deny/allow/g policies/toolgate.rego"}}`,
		"add":      `{"id":"add","name":"write_file","arguments":{"path":"policies/zz.rego","content":"package toolgate\n"}}`,
		"rmpol":    `{"id":"rmpol","name":"exec","arguments":{"command":"rm -rf policies"}}`,
		"truncate": `{"id":"truncate","name":"exec","arguments":{"command":"truncate -s0 .local/state/toolgate/audit.jsonl"}}`,
		"rmstate":  `{"id":"rmstate","name":"exec","arguments":{"command":"rm -rf .local"}}`,
		"key":      `{"id":"key","name":"exec","arguments":{"command":"cat ` + key + `"}}`,
		"pub":      `{"id":"pub","name":"exec","arguments":{"command":"cp /dev/null ` + key + `.pub"}}`,
		"regos":    `{"id":"regos","name":"exec","arguments":{"command":"find . -name '*.rego' -delete"}}`,
		"cpdot":    `{"id":"cpdot","name":"exec","arguments":{"command":"cp notes.txt policies/"}}`,
		"read":     `{"id":"read","name":"read_file","arguments":{"path":"policies/toolgate.rego"}}`,
		"tail":     `{"id":"tail","name":"exec","arguments":{"command":"tail -n1 .local/state/toolgate/audit.jsonl"}}`,
		"other":    `{"id":"other","name":"exec","arguments":{"command":"echo x > notes.txt"}}`,
	}
	want := map[string]string{"sed": "self.protected_file", "add": "self.protected_file", "rmpol": "self.protected_file",
		"truncate": "self.protected_file", "rmstate": "self.protected_file", "key": "self.signing_key", "read": "", "tail": "", "other": "",
		"pub": "self.protected_file", "regos": "self.protected_file", "cpdot": "self.protected_file"}
	var in []string
	for _, c := range calls {
		in = append(in, c)
	}
	// The log is written once first, so it exists when the calls come.
	for _, pass := range []string{"first", "second"} {
		out, errs, code := run(t, strings.Join(in, "\n"), "check", "--workspace", ws, "--policy", pol, "--audit-key", key, "--fsync", "never")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", pass, code, errs)
		}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var r struct {
				ID, Decision string
				Reasons      []struct{ Rule string }
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("not JSON: %q", line)
			}
			var rules []string
			for _, rs := range r.Reasons {
				rules = append(rules, rs.Rule)
			}
			switch w := want[r.ID]; {
			case w == "" && r.Decision != "allow":
				t.Errorf("%s: %s %v, want allow", r.ID, r.Decision, rules)
			case w != "" && (r.Decision != "deny" || !strings.Contains(strings.Join(rules, " "), w)):
				t.Errorf("%s: %s %v, want deny by %s", r.ID, r.Decision, rules, w)
			}
		}
	}
}

// Under run, an audit log kept in the workspace is read-only in the box,
// with the files rotated while the box runs: a script the analyser cannot
// read empties none of them.
func TestRunKeepsTheLogReadOnlyInTheBox(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed (scripts/ensure-bwrap.sh installs it)")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for the script")
	}
	ws := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	logs := filepath.Join(ws, "logs")
	if err := os.Mkdir(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	empty := `python3 -c "import glob; [open(f, 'w').close() for f in glob.glob('logs/*')]"`
	var in []string
	for i := 0; i < 12; i++ {
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprint(i), "name": "exec", "arguments": map[string]string{"command": empty + "; echo " + strings.Repeat("x", 300)}})
		in = append(in, string(b))
	}
	out, errs, code := run(t, strings.Join(in, "\n"), "run", "--workspace", ws, "--audit", filepath.Join(logs, "audit.jsonl"), "--audit-max-bytes", "3000", "--fsync", "never", "--timeout", "20")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "Read-only file system") {
		t.Fatalf("the script was not stopped by the box: %s", out)
	}
	files, _ := filepath.Glob(filepath.Join(logs, "audit.jsonl*"))
	if len(files) < 2 {
		t.Fatalf("the log did not rotate: %v", files)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s was emptied", f)
		}
	}
}

// A hook has no sandbox: a policy kept in the workspace is decided with,
// and warned about.
func TestHookWarnsAboutOwnFilesInTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	pol := filepath.Join(ws, "team")
	if err := os.Mkdir(pol, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pol, "x.rego"), []byte("package toolgate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	event := `{"hook_event_name":"PreToolUse","cwd":"` + ws + `","tool_name":"Bash","tool_input":{"command":"echo x > team/y.rego"}}`
	out, errs, code := run(t, event, "hook", "claude-code", "--workspace", ws, "--policy", "builtin", "--policy", pol, "--audit", "none")
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "self.protected_file") {
		t.Fatalf("exit %d, out %s, stderr %s", code, out, errs)
	}
	if !strings.Contains(errs, pol+" is toolgate's own and lies inside the workspace") {
		t.Errorf("no warning: %s", errs)
	}
}
