package gate_test

import (
	"context"
	"encoding/json"
	"os"
	"os/user"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/internal/corpus"
	"github.com/toolgate/toolgate/parser"
)

func newGate(t testing.TB, o gate.Options) *gate.Gate {
	t.Helper()
	if o.Workspace == "" {
		o.Workspace = t.TempDir()
	}
	if o.Home == "" {
		o.Home = t.TempDir()
	}
	g, err := gate.New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func execCall(cmd string) gate.Call {
	b, _ := json.Marshal(map[string]any{"command": cmd})
	return gate.Call{ID: "t", Tool: "exec", Args: b}
}

func writePolicy(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.rego"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFailClosed: every way the policy can go wrong is a deny with a code.
func TestFailClosed(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, policy, code string
	}{
		{"undefined decision", "package toolgate\n", gate.CodePolicyShape},
		{"wrong shape", "package toolgate\ndecision := \"allow\"\n", gate.CodePolicyShape},
		{"bad verdict", "package toolgate\ndecision := {\"decision\": \"yes\"}\n", gate.CodePolicyShape},
		{"bad reasons", "package toolgate\ndecision := {\"decision\": \"deny\", \"reasons\": \"no\"}\n", gate.CodePolicyShape},
		{"runtime error", "package toolgate\ndecision := {\"decision\": \"allow\", \"x\": to_number(\"zz\")}\n", gate.CodePolicyError},
		{"conflict", "package toolgate\ndecision := {\"decision\": \"allow\"} if true\ndecision := {\"decision\": \"ask\"} if true\n", gate.CodePolicyError},
	}
	for _, c := range cases {
		for _, topdown := range []bool{false, true} {
			g := newGate(t, gate.Options{PolicyDirs: []string{writePolicy(t, c.policy)}, Topdown: topdown})
			r := g.Decide(ctx, execCall("ls"))
			if r.Decision != "deny" || len(r.Reasons) == 0 || r.Reasons[0].Rule != c.code {
				t.Errorf("%s (topdown %v): got %+v, want deny %s", c.name, topdown, r, c.code)
			}
		}
	}
}

// TestPlanFallsBackToTopdown: a policy whose plan irvm does not run (a
// rule using with) is evaluated by topdown, with the same answer.
func TestPlanFallsBackToTopdown(t *testing.T) {
	pol := writePolicy(t, "package toolgate\nimport rego.v1\n"+
		"decision := {\"decision\": v, \"reasons\": [{\"rule\": \"t.with\", \"message\": \"m\"}]} if {\n\tv := verdict with input.tool as \"pretend\"\n}\n"+
		"verdict := \"deny\" if input.tool == \"pretend\"\n"+
		"default verdict := \"allow\"\n")
	for _, topdown := range []bool{false, true} {
		g := newGate(t, gate.Options{PolicyDirs: []string{pol}, Topdown: topdown})
		if r := g.Decide(context.Background(), execCall("ls")); r.Decision != "deny" || len(r.Reasons) != 1 || r.Reasons[0].Rule != "t.with" {
			t.Errorf("topdown %v: %+v", topdown, r)
		}
	}
}

// TestBackgroundCompileFailure: with the policy compiling in the
// background, New returns, and a policy that then fails to compile makes
// Ready report it and every decision a deny.
func TestBackgroundCompileFailure(t *testing.T) {
	ctx := context.Background()
	g, err := gate.New(ctx, gate.Options{Workspace: t.TempDir(), Background: true,
		PolicyDirs: []string{writePolicy(t, "package toolgate\ndecision := {\"decision\": \"allow\", \"x\": undefined_fn(1)}\n")}})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := g.Ready(ctx); err == nil {
		t.Error("Ready reported no error")
	}
	if r := g.Decide(ctx, execCall("ls")); r.Decision != "deny" || r.Reasons[0].Rule != gate.CodePolicyError {
		t.Errorf("decision after a failed compile: %+v", r)
	}
}

// TestAllowAllStillDeniesUnanalysable: a custom policy that allows
// everything cannot allow a script the analyser refused.
func TestAllowAllStillDeniesUnanalysable(t *testing.T) {
	g := newGate(t, gate.Options{PolicyDirs: []string{writePolicy(t, "package toolgate\ndecision := {\"decision\": \"allow\", \"reasons\": []}\n")}})
	for _, cmd := range []string{"if then fi", "echo a\x00b", strings.Repeat("x", 100000), "  "} {
		r := g.Decide(context.Background(), execCall(cmd))
		if r.Decision != "deny" || !strings.HasPrefix(r.Reasons[0].Rule, "parse.") {
			t.Errorf("%.30q: %+v", cmd, r)
		}
	}
	if r := g.Decide(context.Background(), execCall("ls")); r.Decision != "allow" {
		t.Errorf("ls under allow-all: %+v", r)
	}
}

// TestBrokenPolicyRefusesToStart: a policy that does not compile, a missing
// directory or malformed data stop the gate from starting.
func TestBrokenPolicyRefusesToStart(t *testing.T) {
	ctx := context.Background()
	for name, o := range map[string]gate.Options{
		"syntax":      {PolicyDirs: []string{writePolicy(t, "package toolgate\ndecision := {\n")}},
		"missing dir": {PolicyDirs: []string{filepath.Join(t.TempDir(), "nope")}},
		"no modules":  {PolicyDirs: []string{t.TempDir()}},
		"banned http": {PolicyDirs: []string{writePolicy(t, "package toolgate\ndecision := http.send({\"method\": \"get\", \"url\": \"http://127.0.0.1:1\"})\n")}},
		"banned net":  {PolicyDirs: []string{writePolicy(t, "package toolgate\ndecision := {\"decision\": \"allow\", \"x\": net.lookup_ip_addr(\"localhost\")}\n")}},
	} {
		o.Workspace = t.TempDir()
		if _, err := gate.New(ctx, o); err == nil {
			t.Errorf("%s: gate started", name)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"toolgate": {"config": {"allowed_commands": [1]}}}`), 0o644)
	if _, err := gate.New(ctx, gate.Options{Workspace: t.TempDir(), DataFiles: []string{bad}}); err == nil {
		t.Error("malformed allowed_commands accepted")
	}
}

// TestGateCodes: unknown tools, invalid arguments and undecodable lines.
func TestGateCodes(t *testing.T) {
	g := newGate(t, gate.Options{})
	ctx := context.Background()
	lines := map[string]string{
		`{"id":"a","name":"launch_missiles","arguments":{}}`:                  gate.CodeUnknownTool,
		`{"id":"a","name":"exec","arguments":{}}`:                             gate.CodeInvalidArgs,
		`{"id":"a","name":"exec","arguments":{"command":1}}`:                  gate.CodeInvalidArgs,
		`{"id":"a","name":"exec","arguments":{"command":"ls","extra":true}}`:  gate.CodeInvalidArgs,
		`{"id":"a","name":"read_file","arguments":{"path":"a","offset":0}}`:   gate.CodeInvalidArgs,
		`{"id":"a","name":"exec","arguments":{"command":"ls","command":"x"}}`: gate.CodeDecodeDupKey,
		`{"id":"a","name":"exec","arguments":"[1]"}`:                          gate.CodeDecodeArgs,
		`{"id":"a","name":"exec","arguments":{"command":"a\u0000b"}}`:         gate.CodeDecodeNUL,
		`nope`: gate.CodeDecodeJSON,
	}
	for line, code := range lines {
		rs := g.DecideLine(ctx, []byte(line), 1)
		if len(rs) != 1 || rs[0].Decision != "deny" || rs[0].Reasons[0].Rule != code {
			t.Errorf("%s: got %+v, want deny %s", line, rs, code)
		}
	}
	// every violation is reported with its location
	rs := g.DecideLine(ctx, []byte(`{"name":"search","arguments":{"pattern":"","max_results":0,"x":1}}`), 7)
	msg := rs[0].Reasons[0].Message
	for _, want := range []string{"/pattern", "/max_results", "x"} {
		if !strings.Contains(msg, want) {
			t.Errorf("violation %q missing from %q", want, msg)
		}
	}
	if rs[0].ID != "line-7" {
		t.Errorf("id %q, want line-7", rs[0].ID)
	}
}

// TestFileTools: file tools are confined to the workspace, with no /tmp or
// system exception, and resolve symlinks.
func TestFileTools(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(ws, "keys"))
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a"), 0o644)
	g := newGate(t, gate.Options{Workspace: ws, Home: home})
	for line, want := range map[string]string{
		`{"name":"read_file","arguments":{"path":"a.txt"}}`:                                   "allow",
		`{"name":"read_file","arguments":{"path":"../../etc/passwd"}}`:                        "deny",
		`{"name":"read_file","arguments":{"path":"/etc/hostname"}}`:                           "deny",
		`{"name":"read_file","arguments":{"path":"keys/id_rsa"}}`:                             "deny",
		`{"name":"write_file","arguments":{"path":"new/b.txt","content":""}}`:                 "allow",
		`{"name":"write_file","arguments":{"path":"/tmp/x","content":""}}`:                    "deny",
		`{"name":"edit_file","arguments":{"path":"~/.bashrc","old_text":"a","new_text":"b"}}`: "deny",
		`{"name":"list_dir","arguments":{"path":""}}`:                                         "allow",
		`{"name":"search","arguments":{"pattern":"x","path":"/"}}`:                            "deny",
		`{"name":"glob","arguments":{"pattern":"**/*.go"}}`:                                   "allow",
		`{"name":"glob","arguments":{"pattern":"/etc/*"}}`:                                    "deny",
		`{"name":"glob","arguments":{"pattern":"../*"}}`:                                      "deny",
	} {
		decideWant(t, g, line, want, "")
	}
}

// decideWant decides one call line and checks its verdict and, when rule
// is set, the first reason's rule.
func decideWant(t *testing.T, g *gate.Gate, line, want, rule string) {
	t.Helper()
	rs := g.DecideLine(context.Background(), []byte(line), 1)
	if len(rs) != 1 || rs[0].Decision != want {
		t.Errorf("%s: got %+v, want %s", line, rs, want)
		return
	}
	if rule != "" && (len(rs[0].Reasons) == 0 || rs[0].Reasons[0].Rule != rule) {
		t.Errorf("%s: reasons %+v, want %s first", line, rs[0].Reasons, rule)
	}
}

// TestSearchToolOverSecrets: the search tool reads every file below its
// path, hidden ones too; in a workspace that holds the home, "." holds
// ~/.ssh and the search is denied, a subdirectory without secrets is not.
func TestSearchToolOverSecrets(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("k"), 0o600)
	os.MkdirAll(filepath.Join(home, "src"), 0o755)
	g := newGate(t, gate.Options{Workspace: home, Home: home})
	for line, want := range map[string]string{
		`{"name":"search","arguments":{"pattern":"k"}}`:                     "deny",
		`{"name":"search","arguments":{"pattern":"k","path":"."}}`:          "deny",
		`{"name":"search","arguments":{"pattern":"k","path":"src"}}`:        "allow",
		`{"name":"list_dir","arguments":{"path":"."}}`:                      "allow",
		`{"name":"exec","arguments":{"command":"grep -r k ."}}`:             "deny",
		`{"name":"exec","arguments":{"command":"rg k"}}`:                    "allow",
		`{"name":"exec","arguments":{"command":"tar czf /tmp/home.tgz ."}}`: "deny",
		`{"name":"exec","arguments":{"command":"grep -r k src"}}`:           "allow",
	} {
		rule := ""
		if want == "deny" {
			rule = "secrets.access"
		}
		decideWant(t, g, line, want, rule)
	}
}

// TestEnvironment: variables a script uses without setting them take the
// value of the environment the command runs in (Options.Environ), unset
// ones are empty as in bash; $OLDPWD never comes from it (it follows the
// agent's own cds).
func TestEnvironment(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".config", "gcloud"), 0o700)
	key := filepath.Join(home, ".config", "gcloud", "sa.json")
	os.WriteFile(key, []byte("{}"), 0o600)
	os.MkdirAll(filepath.Join(ws, "build"), 0o755)
	exec := func(cmd string) string {
		b, _ := json.Marshal(map[string]any{"name": "exec", "arguments": map[string]string{"command": cmd}})
		return string(b)
	}
	with := newGate(t, gate.Options{Workspace: ws, Home: home, Environ: []string{"GOOGLE_APPLICATION_CREDENTIALS=" + key, "OLDPWD=" + ws, "TMPDIR=/tmp"}})
	without := newGate(t, gate.Options{Workspace: ws, Home: home, Environ: []string{}})
	decideWant(t, with, exec("cat $GOOGLE_APPLICATION_CREDENTIALS"), "deny", "secrets.access")
	decideWant(t, without, exec("cat $GOOGLE_APPLICATION_CREDENTIALS"), "allow", "")
	decideWant(t, with, exec(`mkdir -p "$TMPDIR/x"`), "allow", "")
	decideWant(t, without, exec(`mkdir -p "$TMPDIR/x"`), "deny", "workspace.write_outside")
	decideWant(t, without, exec(`rm -rf "${BUILD_DIR:-build}"`), "allow", "")
	decideWant(t, without, exec(`rm -rf "$BUILD_DIR/"`), "deny", "destroy.root")
	decideWant(t, with, exec("grep -r x $OLDPWD"), "deny", "")
	// a variable the script takes over is no longer the environment's:
	// read from input, unset, given an unknown value, or after a source
	for _, cmd := range []string{
		`read -r TMPDIR; rm -rf "$TMPDIR/x"`,
		`unset TMPDIR; rm -rf "$TMPDIR/x"`,
		`TMPDIR=$(cat /tmp/x); rm -rf "$TMPDIR/x"`,
		`source ./env.sh; rm -rf "$TMPDIR/x"`,
		`if true; then unset TMPDIR; fi; rm -rf "$TMPDIR/x"`,
	} {
		if rs := with.DecideLine(context.Background(), []byte(exec(cmd)), 1); len(rs) != 1 || rs[0].Decision != "deny" {
			t.Errorf("%s: got %+v, want deny", cmd, rs)
		}
	}
	decideWant(t, with, exec(`rm -rf "$TMPDIR/x"`), "allow", "")
}

// TestPolicyTestsPass runs the embedded Rego unit tests from go test.
func TestPolicyTestsPass(t *testing.T) {
	p, err := gate.LoadPolicy(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	results, err := p.Test(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(results) == 0 {
		t.Fatal("no Rego tests ran")
	}
	for _, r := range results {
		if !r.Pass {
			t.Errorf("%s (%s): %s", r.Name, r.File, r.Detail)
		}
	}
	t.Logf("%d Rego tests", len(results))
}

// TestAllowlist: allowed_commands restricts every command found, wherever it hides.
func TestAllowlist(t *testing.T) {
	data := filepath.Join(t.TempDir(), "d.json")
	os.WriteFile(data, []byte(`{"toolgate": {"config": {"allowed_commands": ["git status", "ls", "/usr/bin/go test"]}}}`), 0o644)
	g := newGate(t, gate.Options{DataFiles: []string{data}})
	for cmd, want := range map[string]string{
		"git status":           "allow",
		"git status --short":   "allow",
		"ls -la":               "allow",
		"go test ./...":        "allow",
		"git push":             "deny",
		"ls && sh -c 'whoami'": "deny",
		"ls $(id)":             "deny",
	} {
		if r := g.Decide(context.Background(), execCall(cmd)); r.Decision != want {
			t.Errorf("%q: %+v, want %s", cmd, r, want)
		}
	}
}

// eachCorpusInput decides every corpus line and calls fn with each input
// document the policy saw; it fails unless at least 100 were seen.
func eachCorpusInput(t *testing.T, fn func(g *gate.Gate, line string, in *gate.Input)) {
	t.Helper()
	cases, err := corpus.Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	g, ws, home := corpusGate(t)
	n := 0
	for _, c := range cases {
		for _, line := range c.Lines(ws, home) {
			for _, r := range g.DecideLine(context.Background(), []byte(line), 1) {
				if r.Input == nil || r.Input.Present == nil {
					continue
				}
				n++
				fn(g, line, r.Input)
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d inputs seen", n)
	}
}

// TestASTInputMatchesJSON: the input built directly as an OPA value equals
// the JSON encoding of Input, for every corpus call.
func TestASTInputMatchesJSON(t *testing.T) {
	eachCorpusInput(t, func(_ *gate.Gate, line string, in *gate.Input) {
		if err := gate.CheckInputEncoding(in); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	})
}

// TestPresentIndexAgrees: the Go index of the facts equals the policy's own
// present_of, which hand-written inputs rely on, for every corpus input.
func TestPresentIndexAgrees(t *testing.T) {
	eachCorpusInput(t, func(g *gate.Gate, line string, in *gate.Input) {
		fromRego, err := g.RegoPresent(in)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(in.Present)
		var fromGo any
		json.Unmarshal(b, &fromGo)
		if !reflect.DeepEqual(normalize(fromGo), normalize(fromRego)) {
			t.Fatalf("%s:\n go   %v\n rego %v", line, fromGo, fromRego)
		}
	})
}

// normalize round-trips a value through JSON so both sides compare alike.
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// TestCacheSeesFilesystemChanges: the decision cache is keyed on the whole
// input, which holds what was read from the filesystem: the same call is
// judged anew when a file it names turns into a link to a secret.
func TestCacheSeesFilesystemChanges(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("k"), 0o600)
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("n"), 0o644)
	g := newGate(t, gate.Options{Workspace: ws, Home: home})
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if r := g.Decide(ctx, execCall("cat notes.txt")); r.Decision != "allow" {
			t.Fatalf("before: %+v", r)
		}
	}
	os.Remove(filepath.Join(ws, "notes.txt"))
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(ws, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	r := g.Decide(ctx, execCall("cat notes.txt"))
	if r.Decision != "deny" {
		t.Fatalf("after the swap: %+v", r)
	}
	// a cached answer carries the new call's id
	c := execCall("cat notes.txt")
	c.ID = "other"
	if r := g.Decide(ctx, c); r.ID != "other" || r.Decision != "deny" {
		t.Fatalf("cached: %+v", r)
	}
}

// TestDefaultListsAgree: the analyser's built-in lists (used when a policy
// brings no data) are the embedded data.json's, so the two cannot drift.
func TestDefaultListsAgree(t *testing.T) {
	p, err := gate.LoadPolicy(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := p.Config()
	d := parser.DefaultConfig()
	for name, want := range map[string][]string{"shells": d.Shells, "interpreters": d.Interpreters, "wrappers": d.Wrappers,
		"read_roots": d.ReadRoots, "sensitive_paths": d.SensitivePaths, "sensitive_names": d.SensitiveNames} {
		var got []string
		for _, v := range cfg[name].([]any) {
			got = append(got, v.(string))
		}
		if !reflect.DeepEqual(sorted(got), sorted(want)) {
			t.Errorf("%s differs:\n data.json %v\n parser    %v", name, sorted(got), sorted(want))
		}
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// TestPolicyDirFollowsSymlinkedDirs: modules in a symlinked subdirectory
// are loaded, as OPA's loader loads them (a rule must never vanish
// quietly) and hidden directories are skipped; a link cycle is an error,
// not a hang.
func TestPolicyDirFollowsSymlinkedDirs(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	pol := filepath.Join(root, "pol")
	os.MkdirAll(real, 0o755)
	os.MkdirAll(filepath.Join(pol, ".hidden"), 0o755)
	os.WriteFile(filepath.Join(real, "team.rego"), []byte("package toolgate\n\ndecision := {\"decision\": \"deny\", \"reasons\": [{\"rule\": \"team.linked\", \"message\": \"from a linked dir\"}]}\n"), 0o644)
	os.WriteFile(filepath.Join(pol, ".hidden", "x.rego"), []byte("package toolgate\n\nnot valid rego\n"), 0o644)
	os.Symlink(real, filepath.Join(pol, "linked"))
	p, err := gate.LoadPolicy([]string{pol}, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for name := range p.Modules {
		if strings.HasSuffix(name, "linked/team.rego") {
			found = true
		}
	}
	if !found {
		t.Fatalf("the linked module was not loaded: %v", p.Modules)
	}
	g := newGate(t, gate.Options{PolicyDirs: []string{pol}})
	args, _ := json.Marshal(map[string]string{"command": "ls"})
	if r := g.Decide(context.Background(), gate.Call{ID: "a", Tool: "exec", Args: args}); r.Decision != "deny" || r.Reasons[0].Rule != "team.linked" {
		t.Errorf("decided by %+v", r)
	}
	os.Symlink(pol, filepath.Join(real, "loop")) // a cycle back up
	if _, err := gate.LoadPolicy([]string{pol}, nil); err == nil {
		t.Error("a policy directory with a link cycle loaded")
	}
}

// TestRelativeHome: a relative $HOME is taken from where toolgate started,
// as the user's own shell would have it there; ~ then names that absolute
// place, and the home's secrets stay secrets.
func TestRelativeHome(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(root, "ws")
	os.MkdirAll(filepath.Join(root, "home", ".ssh"), 0o700)
	os.MkdirAll(ws, 0o755)
	t.Chdir(root)
	t.Setenv("HOME", "home")
	g, err := gate.New(context.Background(), gate.Options{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	rs := g.DecideLine(context.Background(), []byte(`{"name":"exec","arguments":{"command":"cat ~/.ssh/id_rsa"}}`), 1)
	if len(rs) != 1 || rs[0].Decision != "deny" {
		t.Fatalf("cat ~/.ssh/id_rsa with HOME=home: %+v", rs)
	}
	if rs[0].Input == nil || rs[0].Input.Home != filepath.Join(root, "home") {
		t.Fatalf("input home %q, want %q", rs[0].Input.Home, filepath.Join(root, "home"))
	}
}

// TestUnsetHome: with HOME unset or empty, the home is the account's (as
// bash expands ~ then), so its secrets stay secrets; and deciding ends.
func TestUnsetHome(t *testing.T) {
	u, err := user.Current()
	if err != nil || u.HomeDir == "" {
		t.Skip("no account home to fall back on")
	}
	want := u.HomeDir
	if r, err := filepath.EvalSymlinks(want); err == nil {
		want = r
	}
	for _, unset := range []bool{true, false} {
		if unset {
			t.Setenv("HOME", "x")
			os.Unsetenv("HOME")
		} else {
			t.Setenv("HOME", "")
		}
		g, err := gate.New(context.Background(), gate.Options{Workspace: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan []gate.Result, 1)
		go func() {
			done <- g.DecideLine(context.Background(), []byte(`{"name":"exec","arguments":{"command":"ls ~; cat ~/.ssh/id_rsa"}}`), 1)
		}()
		select {
		case rs := <-done:
			if len(rs) != 1 || rs[0].Decision != "deny" || rs[0].Input == nil || rs[0].Input.Home != want {
				t.Fatalf("unset=%v: %+v (home %q, want %q)", unset, rs, rs[0].Input.Home, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("unset=%v: deciding ls ~ did not end", unset)
		}
	}
}
