package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const bundleTeamRule = `package toolgate

deny contains {"rule": "team.terraform_apply", "message": "no terraform apply"} if {
	some c in input.commands
	c.name == "terraform"
	"apply" in c.argv
}
`

const bundleCalls = `{"id":"a","name":"exec","arguments":{"command":"terraform apply"}}
{"id":"b","name":"exec","arguments":{"command":"ls"}}
{"id":"c","name":"exec","arguments":{"command":"rm -rf /"}}
`

// bundleSetup makes a key pair and a team policy directory with toolgate
// policy keygen, and builds an unsigned and a signed bundle of the default
// plus the team's rule with toolgate policy build.
type bundleSetup struct {
	dir, priv, pub, team, unsigned, signed string
}

func newBundleSetup(t *testing.T) bundleSetup {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	s := bundleSetup{dir: t.TempDir()}
	s.priv, s.pub = filepath.Join(s.dir, "bundle.key"), filepath.Join(s.dir, "bundle.pub")
	s.team = filepath.Join(s.dir, "team")
	os.Mkdir(s.team, 0o755)
	if err := os.WriteFile(filepath.Join(s.team, "terraform.rego"), []byte(bundleTeamRule), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := run(t, "", "policy", "keygen", "--private", s.priv, "--public", s.pub); code != 0 {
		t.Fatalf("keygen: exit %d: %s", code, errs)
	}
	s.unsigned, s.signed = filepath.Join(s.dir, "unsigned.tar.gz"), filepath.Join(s.dir, "signed.tar.gz")
	if _, errs, code := run(t, "", "policy", "build", "--with-default", "--revision", "u1", "-o", s.unsigned, s.team); code != 0 {
		t.Fatalf("build: exit %d: %s", code, errs)
	}
	if _, errs, code := run(t, "", "policy", "build", "--with-default", "--revision", "s1", "--signing-key", s.priv, "-o", s.signed, s.team); code != 0 {
		t.Fatalf("build --signing-key: exit %d: %s", code, errs)
	}
	return s
}

// decisions runs check with args and returns "id decision first-rule" lines.
func decisions(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	out, errs, code := run(t, bundleCalls, append([]string{"check", "--workspace", t.TempDir()}, args...)...)
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var r struct {
			ID, Decision string
			Reasons      []struct{ Rule string }
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
	return strings.Join(got, "\n"), errs, code
}

const bundleWant = "a deny team.terraform_apply\nb allow \nc deny destroy.root"

func TestPolicyKeygen(t *testing.T) {
	s := newBundleSetup(t)
	st, err := os.Stat(s.priv)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("private key mode %v, want 0600", st.Mode().Perm())
	}
	if b := mustRead(t, s.pub); !bytes.HasPrefix(b, []byte("-----BEGIN PUBLIC KEY-----")) {
		t.Errorf("public key file: %s", b)
	}
	before := mustRead(t, s.priv)
	for _, args := range [][]string{
		{"--private", s.priv, "--public", filepath.Join(s.dir, "new.pub")},
		{"--private", filepath.Join(s.dir, "new.key"), "--public", s.pub},
		{"--private", filepath.Join(s.dir, "new.key")},
	} {
		if _, _, code := run(t, "", append([]string{"policy", "keygen"}, args...)...); code == 0 {
			t.Errorf("keygen %v succeeded", args)
		}
	}
	if !bytes.Equal(before, mustRead(t, s.priv)) {
		t.Error("keygen overwrote the private key")
	}
	if _, err := os.Stat(filepath.Join(s.dir, "new.pub")); err == nil {
		t.Error("a refused keygen left a file behind")
	}
}

func TestCheckWithBundle(t *testing.T) {
	s := newBundleSetup(t)
	got, errs, code := decisions(t, "--bundle", s.unsigned, "--audit", "none")
	if code != 0 || got != bundleWant {
		t.Fatalf("unsigned: exit %d: %s\ngot\n%s", code, errs, got)
	}
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	got, errs, code = decisions(t, "--bundle", s.signed, "--bundle-verification-key", s.pub, "--audit", log)
	if code != 0 || got != bundleWant {
		t.Fatalf("signed: exit %d: %s\ngot\n%s", code, errs, got)
	}
	// Every decision record names the bundle's revision.
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(mustRead(t, log))), "\n") {
		var m map[string]any
		json.Unmarshal([]byte(line), &m)
		if m["kind"] != "decision" {
			continue
		}
		n++
		if m["policy_revision"] != "s1" || !strings.HasPrefix(m["policy"].(string), "sha256:") {
			t.Errorf("decision record without the revision: %s", line)
		}
	}
	if n != 3 {
		t.Errorf("%d decision records, want 3", n)
	}
	if _, errs, code := run(t, "", "audit", "verify", log); code != 0 {
		t.Errorf("audit verify: exit %d: %s", code, errs)
	}
}

// tamper rewrites one file of a bundle: the team's rule no longer denies.
func tamper(t *testing.T, src, dst string) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(mustRead(t, src)))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	changed := false
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		if strings.HasSuffix(h.Name, "team/terraform.rego") {
			b = bytes.Replace(b, []byte(`"apply" in c.argv`), []byte(`"never" in c.argv`), 1)
			changed = true
		}
		h.Size = int64(len(b))
		tw.WriteHeader(h)
		tw.Write(b)
	}
	tw.Close()
	zw.Close()
	if !changed {
		t.Fatal("the bundle has no team/terraform.rego")
	}
	if err := os.WriteFile(dst, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckRefusesBadBundles(t *testing.T) {
	s := newBundleSetup(t)
	tampered := filepath.Join(s.dir, "tampered.tar.gz")
	tamper(t, s.signed, tampered)
	otherPriv, otherPub := filepath.Join(s.dir, "other.key"), filepath.Join(s.dir, "other.pub")
	if _, errs, code := run(t, "", "policy", "keygen", "--private", otherPriv, "--public", otherPub); code != 0 {
		t.Fatal(errs)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"tampered", []string{"--bundle", tampered, "--bundle-verification-key", s.pub}, "failed signature verification: team/terraform.rego: digest mismatch"},
		{"wrong key", []string{"--bundle", s.signed, "--bundle-verification-key", otherPub}, "failed signature verification"},
		{"unsigned with a key", []string{"--bundle", s.unsigned, "--bundle-verification-key", s.pub}, "is not signed"},
		{"signed without a key", []string{"--bundle", s.signed}, "is signed, and no key was given"},
		{"missing", []string{"--bundle", filepath.Join(s.dir, "nope.tar.gz")}, "no such file"},
		{"with --policy", []string{"--bundle", s.signed, "--bundle-verification-key", s.pub, "--policy", "builtin"}, "--bundle and --policy cannot be combined"},
		{"key without bundle", []string{"--bundle-verification-key", s.pub}, "needs --bundle"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := run(t, bundleCalls, append([]string{"check", "--workspace", t.TempDir(), "--audit", "none"}, c.args...)...)
			if code != exitError || out != "" || !strings.Contains(errs, c.want) {
				t.Fatalf("exit %d, out %q, stderr %q; want exit 1, no output, %q", code, out, errs, c.want)
			}
		})
	}
	// Leaving the key off is no way around the check: a signed bundle
	// without a key is refused, tampered or not.
	if _, _, code := run(t, bundleCalls, "check", "--workspace", t.TempDir(), "--audit", "none", "--bundle", tampered); code == 0 {
		t.Error("a tampered signed bundle loaded without a key")
	}
}

func TestPolicyBuildRefuses(t *testing.T) {
	s := newBundleSetup(t)
	bad := filepath.Join(s.dir, "bad")
	os.Mkdir(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "p.rego"), []byte("package toolgate\n\ndecision := {\"decision\": \"allow\", \"x\": nothing_here}\n"), 0o644)
	out := filepath.Join(s.dir, "bad.tar.gz")
	if _, errs, code := run(t, "", "policy", "build", "-o", out, bad); code == 0 || !strings.Contains(errs, "compiling policy") {
		t.Errorf("build of a policy that does not compile: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused build wrote its output")
	}
	if _, _, code := run(t, "", "policy", "build", "--with-default"); code == 0 {
		t.Error("build without -o succeeded")
	}
	if _, _, code := run(t, "", "policy", "build", "--with-default", "--signing-key", s.pub, "-o", out); code == 0 {
		t.Error("build signed with a public key succeeded")
	}
}

func TestCheckWithBundleURL(t *testing.T) {
	s := newBundleSetup(t)
	body := mustRead(t, s.signed)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/bundles/toolgate.tar.gz" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/gzip")
		w.Write(body)
	}))
	defer srv.Close()
	got, errs, code := decisions(t, "--bundle", srv.URL+"/bundles/toolgate.tar.gz", "--bundle-verification-key", s.pub, "--audit", "none")
	if code != 0 || got != bundleWant {
		t.Fatalf("by URL: exit %d: %s\ngot\n%s", code, errs, got)
	}
	out, errs, code := run(t, bundleCalls, "check", "--workspace", t.TempDir(), "--audit", "none", "--bundle", srv.URL+"/missing.tar.gz", "--bundle-verification-key", s.pub)
	if code != exitError || out != "" || !strings.Contains(errs, "404") {
		t.Fatalf("missing URL: exit %d, out %q, stderr %q", code, out, errs)
	}
}

func TestEveryFrontEndRefusesABadBundle(t *testing.T) {
	s := newBundleSetup(t)
	otherPriv, otherPub := filepath.Join(s.dir, "other.key"), filepath.Join(s.dir, "other.pub")
	if _, errs, code := run(t, "", "policy", "keygen", "--private", otherPriv, "--public", otherPub); code != 0 {
		t.Fatal(errs)
	}
	ws := t.TempDir()
	event := `{"hook_event_name":"PreToolUse","cwd":"` + ws + `","tool_name":"Bash","tool_input":{"command":"ls"}}`
	for _, c := range []struct {
		args  []string
		stdin string
		code  int
	}{
		{[]string{"check"}, bundleCalls, exitError},
		{[]string{"run"}, bundleCalls, exitError},
		{[]string{"mcp"}, "", exitError},
		{[]string{"serve", "--listen", "127.0.0.1:0"}, "", exitError},
		{[]string{"hook", "claude-code"}, event, 2}, // a hook that cannot decide blocks
	} {
		t.Run(c.args[0], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var out, errb bytes.Buffer
			args := append(append([]string{}, c.args...), "--workspace", ws, "--audit", "none", "--bundle", s.signed, "--bundle-verification-key", otherPub)
			code := executeContext(ctx, args, strings.NewReader(c.stdin), &out, &errb)
			if code != c.code || !strings.Contains(errb.String(), "failed signature verification") {
				t.Fatalf("exit %d (want %d), stderr %q, stdout %q", code, c.code, errb.String(), out.String())
			}
			if c.args[0] == "hook" && !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
				t.Errorf("hook answer %q", out.String())
			}
		})
	}
}
