package gate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestToolVerb(t *testing.T) {
	for name, want := range map[string]string{
		"read_text_file": "read", "list_directory": "read", "getFileInfo": "read", "search_files": "read",
		"write_file": "write", "edit_file": "write", "createDirectory": "write", "move_file": "write",
		"delete_file": "delete", "fs.remove": "delete", "frobnicate": "write",
		"mcp__open__write_file": "write", "mcp__search__delete_file": "delete", "mcp__fs__WRITEFILE": "write",
	} {
		if got := toolVerb(name); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}

func TestDecideExternal(t *testing.T) {
	root := t.TempDir()
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o755)
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("k"), 0o600)
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a"), 0o644)
	os.Symlink(home, filepath.Join(ws, "link_home"))
	g, err := New(context.Background(), Options{Workspace: ws, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool, args, want, rule string
	}{
		{"read_text_file", `{"path":"` + ws + `/a.txt"}`, "allow", ""},
		{"read_text_file", `{"path":"/etc/passwd"}`, "deny", "workspace.read_outside"},
		{"read_text_file", `{"path":"~/.ssh/id_rsa"}`, "deny", "secrets.access"},
		{"read_text_file", `{"path":"` + ws + `/link_home/.ssh/id_rsa"}`, "deny", "secrets.access"},
		{"read_multiple_files", `{"paths":["` + ws + `/a.txt","/etc/shadow"]}`, "deny", "secrets.access"},
		{"write_file", `{"path":"b.txt","content":"x"}`, "deny", CodeRelativePath},
		{"edit_file", `{"path":"` + ws + `/a.txt","edits":[{"oldText":"/* a */","newText":"/usr/bin/x"}]}`, "allow", ""},
		{"move_file", `{"source":"` + ws + `/a.txt","destination":"/tmp/out"}`, "deny", "workspace.write_outside"},
		{"directory_tree", `{"path":"/"}`, "deny", "workspace.read_outside"},
		{"list_allowed_directories", `{}`, "allow", ""},
		{"run_command", `{"command":"rm -rf ~"}`, "deny", "destroy.root"},
		{"anything", `[1,2]`, "deny", CodeInvalidArgs},
		{"read_text_file", `{"path":"` + ws + `/\u212aink/x"}`, "deny", CodeNotNFC},
		{"read_text_file", `{"uri":"file://localhost` + home + `/.ssh/id_rsa"}`, "deny", "secrets.access"},
		{"read_text_file", `{"url":"file:` + home + `/.ssh/id_rsa"}`, "deny", "secrets.access"},
		{"tool", `{"args":["--file=` + home + `/.ssh/id_rsa"]}`, "deny", "secrets.access"},
		{"tool", `{"target_file":"../home/.ssh/id_rsa"}`, "deny", CodeRelativePath},
		{"tool", `{"cmd":["cat","` + home + `/.ssh/id_rsa"]}`, "deny", "secrets.access"},
		{"tool", `{"shell":"cat ~/.ssh/id_rsa"}`, "deny", "secrets.access"},
		{"tool", `{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":{"k":{"l":{"m":{"n":{"o":{"p":{"q":{"r":"x"}}}}}}}}}}}}}}}}}}`, "deny", CodeTooDeep},
		{"mcp__open__write_file", `{"path":"` + ws + `/.git/hooks/pre-commit"}`, "deny", ""},
		{"anything", `{"path":"` + ws + `/a\u0000"}`, "deny", CodeDecodeNUL},
	}
	for _, c := range cases {
		r := g.DecideExternal(context.Background(), Call{ID: "x", Tool: c.tool, Args: json.RawMessage(c.args)})
		if r.Decision != c.want || (c.rule != "" && (len(r.Reasons) == 0 || r.Reasons[0].Rule != c.rule)) {
			t.Errorf("%s %s: %s %+v, want %s %s", c.tool, c.args, r.Decision, r.Reasons, c.want, c.rule)
		}
	}
	if forbidden, _ := g.ExternalForbidden(context.Background(), "read_text_file"); forbidden {
		t.Error("read_text_file hidden by the default policy")
	}
}
