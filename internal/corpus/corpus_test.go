package corpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const shippedDir = "../../testdata/attacks"

func TestShippedCorpus(t *testing.T) {
	cases, err := Load(shippedDir)
	if err != nil {
		t.Fatal(err)
	}
	count := make(map[string]int)
	lines := 0
	seen := make(map[string]string) // spelling key -> file/note
	for _, c := range cases {
		count[c.Category]++
		where := c.File + ": " + c.Note
		if c.File != c.Category+".json" {
			t.Errorf("%s: category %q belongs in %s.json", where, c.Category, c.Category)
		}
		var want string
		switch c.Category {
		case "benign":
			want = "allow"
		case "ask":
			want = "ask"
		default:
			want = "deny"
		}
		if c.Want != want {
			t.Errorf("%s: want %q, but category %s wants %q", where, c.Want, c.Category, want)
		}
		for _, key := range spellingKeys(t, c) {
			if prev, ok := seen[key]; ok {
				t.Errorf("%s: spelling %.80q already in %s", where, key, prev)
			}
			seen[key] = where
		}
		ls := c.Lines("/ws", "/home/u")
		lines += len(ls)
		for _, l := range ls {
			if strings.Contains(l, "{{") {
				t.Errorf("%s: placeholder left after substitution: %.120s", where, l)
			}
			if c.Raw == nil && !json.Valid([]byte(l)) {
				t.Errorf("%s: line is not valid JSON: %.120s", where, l)
			}
		}
	}
	for _, cat := range Categories {
		if count[cat] == 0 {
			t.Errorf("no cases in category %s", cat)
		}
	}
	if len(cases) < 400 {
		t.Errorf("%d cases, want at least 400", len(cases))
	}
	if count["benign"] < 150 {
		t.Errorf("%d benign cases, want at least 150", count["benign"])
	}
	t.Logf("%d cases, %d lines: %v", len(cases), lines, count)
}

// spellingKeys returns one key per input the case sends, so that the same
// input never appears twice in the corpus (it could then want two verdicts).
func spellingKeys(t *testing.T, c Case) []string {
	t.Helper()
	switch {
	case c.Commands != nil:
		keys := make([]string, len(c.Commands))
		for i, cmd := range c.Commands {
			keys[i] = "exec\x00" + c.WorkingDir + "\x00" + cmd
		}
		return keys
	case c.Args != nil:
		b, err := json.Marshal(c.Args) // map keys come out sorted
		if err != nil {
			t.Fatal(err)
		}
		return []string{c.Tool + "\x00" + string(b)}
	default:
		keys := make([]string, len(c.Raw))
		for i, r := range c.Raw {
			keys[i] = "raw\x00" + r
		}
		return keys
	}
}

func TestLoadStrict(t *testing.T) {
	good := `{"note": "n", "category": "benign", "commands": ["ls"], "want": "allow"}`
	tests := []struct {
		name, file, wantErr string
	}{
		{"unknown key", `{"cases": [{"note": "n", "category": "benign", "commands": ["ls"], "want": "allow", "wnat": "deny"}]}`, `unknown field "wnat"`},
		{"unknown top-level key", `{"cases": [` + good + `], "extra": 1}`, `unknown field "extra"`},
		{"File is not a key", `{"cases": [{"File": "x", "note": "n", "category": "benign", "commands": ["ls"], "want": "allow"}]}`, `unknown field "File"`},
		{"missing note", `{"cases": [{"category": "benign", "commands": ["ls"], "want": "allow"}]}`, "missing note"},
		{"blank note", `{"cases": [{"note": "  ", "category": "benign", "commands": ["ls"], "want": "allow"}]}`, "missing note"},
		{"repeated note", `{"cases": [` + good + `, ` + good + `]}`, "note already used by case 1"},
		{"commands and args", `{"cases": [{"note": "n", "category": "benign", "commands": ["ls"], "args": {"path": "x"}, "want": "allow"}]}`, "exactly one of"},
		{"args and raw", `{"cases": [{"note": "n", "category": "malformed", "tool": "read_file", "args": {"path": "x"}, "raw": ["x"], "want": "deny"}]}`, "exactly one of"},
		{"none of them", `{"cases": [{"note": "n", "category": "benign", "want": "allow"}]}`, "exactly one of"},
		{"bad want", `{"cases": [{"note": "n", "category": "benign", "commands": ["ls"], "want": "maybe"}]}`, `unknown want "maybe"`},
		{"missing want", `{"cases": [{"note": "n", "category": "benign", "commands": ["ls"]}]}`, `unknown want ""`},
		{"bad category", `{"cases": [{"note": "n", "category": "fun", "commands": ["ls"], "want": "allow"}]}`, `unknown category "fun"`},
		{"bad tool", `{"cases": [{"note": "n", "category": "benign", "tool": "rm_file", "args": {"path": "x"}, "want": "allow"}]}`, `unknown tool "rm_file"`},
		{"commands for another tool", `{"cases": [{"note": "n", "category": "benign", "tool": "read_file", "commands": ["ls"], "want": "allow"}]}`, "commands are only for exec"},
		{"args for exec outside malformed", `{"cases": [{"note": "n", "category": "benign", "args": {"command": "ls"}, "want": "allow"}]}`, "exec takes commands"},
		{"raw outside malformed", `{"cases": [{"note": "n", "category": "benign", "raw": ["x"], "want": "allow"}]}`, "raw is only for category malformed"},
		{"raw with a tool", `{"cases": [{"note": "n", "category": "malformed", "tool": "exec", "raw": ["x"], "want": "deny"}]}`, "names no tool"},
		{"raw with a line break", `{"cases": [{"note": "n", "category": "malformed", "raw": ["a\nb"], "want": "deny"}]}`, "line break"},
		{"empty commands", `{"cases": [{"note": "n", "category": "benign", "commands": [], "want": "allow"}]}`, "empty commands"},
		{"empty command outside malformed", `{"cases": [{"note": "n", "category": "benign", "commands": [""], "want": "allow"}]}`, "empty command outside"},
		{"repeated spelling", `{"cases": [{"note": "n", "category": "benign", "commands": ["ls", "ls"], "want": "allow"}]}`, "listed twice"},
		{"working_dir without commands", `{"cases": [{"note": "n", "category": "benign", "tool": "read_file", "args": {"path": "x"}, "working_dir": "src", "want": "allow"}]}`, "working_dir is only for commands"},
		{"duplicate key", `{"cases": [{"note": "n", "category": "benign", "commands": ["ls"], "want": "allow", "want": "deny"}]}`, `duplicate key "want"`},
		{"missing cases", `{}`, `missing "cases"`},
		{"trailing data", `{"cases": [` + good + `]} {}`, "trailing data"},
		{"not JSON", `{"cases": [`, "unexpected EOF"},
		{"commands not strings", `{"cases": [{"note": "n", "category": "benign", "commands": [1], "want": "allow"}]}`, "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir)
			if err == nil {
				t.Fatalf("Load accepted %s", tt.file)
			}
			if !strings.Contains(err.Error(), "bad.json") || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q, want it to name bad.json and say %q", err, tt.wantErr)
			}
		})
	}
}

func TestLoadNamesTheCase(t *testing.T) {
	dir := t.TempDir()
	file := `{"cases": [
		{"note": "first", "category": "benign", "commands": ["ls"], "want": "allow"},
		{"note": "second", "category": "benign", "commands": ["ls -la"], "want": "nope"}]}`
	if err := os.WriteFile(filepath.Join(dir, "x.json"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), `x.json: case 2 ("second")`) {
		t.Fatalf("error %v, want it to name x.json case 2 \"second\"", err)
	}
}

func TestLoadEmptyDir(t *testing.T) {
	if _, err := Load(t.TempDir()); err == nil {
		t.Fatal("Load of a directory with no corpus files succeeded")
	}
}

func TestLoadDefaults(t *testing.T) {
	dir := t.TempDir()
	file := `{"cases": [
		{"note": "a", "category": "benign", "commands": ["ls"], "want": "allow"},
		{"note": "b", "category": "malformed", "raw": ["x"], "want": "deny"},
		{"note": "c", "category": "malformed", "args": {"command": 5}, "want": "deny"}]}`
	if err := os.WriteFile(filepath.Join(dir, "x.json"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if cases[0].Tool != "exec" || cases[0].File != "x.json" {
		t.Errorf("case a: tool %q file %q, want exec and x.json", cases[0].Tool, cases[0].File)
	}
	if cases[1].Tool != "" {
		t.Errorf("raw case: tool %q, want none", cases[1].Tool)
	}
	if cases[2].Tool != "exec" {
		t.Errorf("malformed args case: tool %q, want exec", cases[2].Tool)
	}
}

func TestLines(t *testing.T) {
	exec := Case{Note: "n", Category: "destruction", Tool: "exec", Want: "deny",
		Commands: []string{"rm -rf {{HOME}}", "cat {{WS}}/a > /tmp/<x>&"}, WorkingDir: "{{WS}}/src"}
	got := exec.Lines("/w s", "/h")
	if len(got) != 2 {
		t.Fatalf("got %d lines, want 2", len(got))
	}
	want0 := `{"id":"n#1","name":"exec","arguments":{"command":"rm -rf /h","working_dir":"/w s/src"}}`
	want1 := `{"id":"n#2","name":"exec","arguments":{"command":"cat /w s/a > /tmp/<x>&","working_dir":"/w s/src"}}`
	if got[0] != want0 || got[1] != want1 {
		t.Errorf("got\n%s\n%s\nwant\n%s\n%s", got[0], got[1], want0, want1)
	}

	tool := Case{Note: "r", Category: "secrets", Tool: "read_file", Want: "deny",
		Args: map[string]any{"path": "{{HOME}}/.ssh/id_rsa", "limit": json.Number("10"), "nested": []any{"{{WS}}"}}}
	got = tool.Lines("/w", "/h")
	want := `{"id":"r#1","name":"read_file","arguments":{"limit":10,"nested":["/w"],"path":"/h/.ssh/id_rsa"}}`
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if tool.Args["path"] != "{{HOME}}/.ssh/id_rsa" {
		t.Error("Lines changed the case's own args")
	}

	raw := Case{Note: "x", Category: "malformed", Want: "deny", Raw: []string{"not json {{WS}}", "{\"a\":\x00}"}}
	got = raw.Lines("/w", "/h")
	if len(got) != 2 || got[0] != "not json /w" || got[1] != "{\"a\":\x00}" {
		t.Errorf("raw lines %q", got)
	}

	nul := Case{Note: "z", Category: "malformed", Tool: "exec", Want: "deny", Commands: []string{"ls\x00"}}
	got = nul.Lines("/w", "/h")
	if len(got) != 1 || !strings.Contains(got[0], `"ls\u0000"`) {
		t.Errorf("NUL command line %q, want the NUL escaped as \\u0000", got)
	}
}

func TestFixture(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fixture needs Unix symlinks and /etc, /proc")
	}
	ws, home, err := Fixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{ws, home} {
		if !filepath.IsAbs(p) {
			t.Errorf("%s is not absolute", p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		if real != p {
			t.Errorf("%s resolves to %s: want a symlink-free path", p, real)
		}
	}
	for _, f := range workspaceFiles {
		assertFile(t, filepath.Join(ws, f.path), f.mode)
	}
	for _, f := range homeFiles {
		assertFile(t, filepath.Join(home, f.path), f.mode)
	}
	for _, dir := range []string{".git/objects", ".git/refs/heads", "src", "cmd/app", ".git/hooks"} {
		if fi, err := os.Stat(filepath.Join(ws, dir)); err != nil || !fi.IsDir() {
			t.Errorf("workspace %s is not a directory (%v)", dir, err)
		}
	}
	if fi, err := os.Stat(filepath.Join(home, ".ssh")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("home .ssh: %v %v, want mode 0700", fi.Mode(), err)
	}

	root := filepath.Dir(ws)
	links := []struct {
		name, target, resolves string // resolves: "" when the target may be missing here
	}{
		{"link_etc", "/etc", "/etc"},
		{"link_home", home, home},
		{"link_ssh", filepath.Join(home, ".ssh"), filepath.Join(home, ".ssh")},
		{"src/link_up", "../..", root},
		{"link_root", "/", "/"},
		{"link_var", "/var", ""},
		{"inner_link", "src", filepath.Join(ws, "src")},
		{"link_shadow", "/etc/shadow", ""},
		{"link_proc", "/proc/self", ""},
	}
	for _, l := range links {
		p := filepath.Join(ws, l.name)
		target, err := os.Readlink(p)
		if err != nil {
			t.Errorf("%s: %v", l.name, err)
			continue
		}
		if target != l.target {
			t.Errorf("%s -> %s, want -> %s", l.name, target, l.target)
		}
		if l.resolves == "" {
			continue
		}
		want, err := filepath.EvalSymlinks(l.resolves)
		if err != nil {
			t.Fatal(err)
		}
		got, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Errorf("%s does not resolve: %v", l.name, err)
			continue
		}
		if got != want {
			t.Errorf("%s resolves to %s, want %s", l.name, got, want)
		}
	}
	// Resolution the way the kernel does it: the link first, then "..".
	// (Plain concatenation: filepath.Join would clean ".." away first.)
	for rel, want := range map[string]string{
		"/src/link_up/home/.ssh/id_rsa": filepath.Join(home, ".ssh", "id_rsa"),
		"/link_ssh/../.netrc":           filepath.Join(home, ".netrc"),
		"/inner_link/../go.mod":         filepath.Join(ws, "go.mod"),
		"/src/link_up/ws/README.md":     filepath.Join(ws, "README.md"),
	} {
		got, err := os.Stat(ws + rel)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		wantFi, err := os.Stat(want)
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(got, wantFi) {
			t.Errorf("%s is not %s", rel, want)
		}
	}
}

func TestFixtureRefusesExistingLayout(t *testing.T) {
	root := t.TempDir()
	if _, _, err := Fixture(root); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Fixture(root); err == nil {
		t.Fatal("a second Fixture over the same root succeeded")
	}
}

func assertFile(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Error(err)
		return
	}
	if !fi.Mode().IsRegular() {
		t.Errorf("%s is not a regular file", p)
	}
	if fi.Mode().Perm() != mode {
		t.Errorf("%s has mode %v, want %v", p, fi.Mode().Perm(), mode)
	}
}
