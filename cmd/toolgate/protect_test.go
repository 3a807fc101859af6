package main

import (
	"encoding/json"
	"os"
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
	key := filepath.Join(ws, "audit.key")
	if _, errs, code := run(t, "", "audit", "keygen", "--out", key); code != 0 {
		t.Fatal(errs)
	}
	calls := map[string]string{
		"sed":      `{"id":"sed","name":"exec","arguments":{"command":"sed -i s/deny/allow/g policies/toolgate.rego"}}`,
		"add":      `{"id":"add","name":"write_file","arguments":{"path":"policies/zz.rego","content":"package toolgate\n"}}`,
		"rmpol":    `{"id":"rmpol","name":"exec","arguments":{"command":"rm -rf policies"}}`,
		"truncate": `{"id":"truncate","name":"exec","arguments":{"command":"truncate -s0 .local/state/toolgate/audit.jsonl"}}`,
		"rmstate":  `{"id":"rmstate","name":"exec","arguments":{"command":"rm -rf .local"}}`,
		"key":      `{"id":"key","name":"read_file","arguments":{"path":"audit.key"}}`,
		"read":     `{"id":"read","name":"read_file","arguments":{"path":"policies/toolgate.rego"}}`,
		"tail":     `{"id":"tail","name":"exec","arguments":{"command":"tail -n1 .local/state/toolgate/audit.jsonl"}}`,
		"other":    `{"id":"other","name":"exec","arguments":{"command":"echo x > notes.txt"}}`,
	}
	want := map[string]string{"sed": "self.protected_file", "add": "self.protected_file", "rmpol": "self.protected_file",
		"truncate": "self.protected_file", "rmstate": "self.protected_file", "key": "self.signing_key", "read": "", "tail": "", "other": ""}
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
