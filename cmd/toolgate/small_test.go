package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/corpus"
)

// smallAndFull builds the small build as toolgate and the full build as
// toolgate-full into one directory, as make build installs them.
func smallAndFull(t *testing.T) (small, full string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build toolgate")
	}
	dir := t.TempDir()
	small, full = filepath.Join(dir, "toolgate"), filepath.Join(dir, "toolgate-full")
	for _, b := range []struct{ out, tags string }{{small, "toolgate_small"}, {full, ""}} {
		cmd := exec.Command(goBin, "build", "-tags", b.tags, "-o", b.out, "github.com/toolgate/toolgate/cmd/toolgate")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", b.out, err, out)
		}
	}
	return small, full
}

type binRun struct {
	out, errs string
	code      int
}

func runBin(t *testing.T, dir, stdin string, env []string, bin string, args ...string) binRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return binRun{out.String(), errs.String(), code}
}

// TestSmallBuild: the small build decides every corpus call as the full
// build does (byte for byte), answers the hook, and hands what it does
// not serve (another policy, --data, explain, the command list) to
// toolgate-full; without toolgate-full beside it, it says so and fails.
func TestSmallBuild(t *testing.T) {
	small, full := smallAndFull(t)
	cases, err := corpus.Load("../../testdata/attacks")
	if err != nil {
		t.Fatal(err)
	}
	ws, home, err := corpus.Fixture(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range cases {
		lines = append(lines, c.Lines(ws, home)...)
	}
	stdin := strings.Join(lines, "\n") + "\n"
	env := []string{"HOME=" + home}
	args := []string{"check", "--workspace", ws, "--audit", "none"}
	s := runBin(t, ws, stdin, env, small, args...)
	f := runBin(t, ws, stdin, env, full, args...)
	sl, fl := strings.Split(s.out, "\n"), strings.Split(f.out, "\n")
	if s.code != f.code || len(sl) != len(fl) {
		t.Fatalf("small build: exit %d, %d lines; full build: exit %d, %d lines\n%s", s.code, len(sl), f.code, len(fl), s.errs)
	}
	// Process ids and thread ids under /proc are each process's own.
	procIDs := regexp.MustCompile(`/proc/(self/task/)?[0-9]`)
	compared, diff := 0, 0
	for i := range sl {
		if procIDs.MatchString(sl[i]) || procIDs.MatchString(fl[i]) {
			continue
		}
		compared++
		if sl[i] != fl[i] {
			if diff++; diff <= 5 {
				t.Errorf("line %d:\nsmall %.400s\nfull  %.400s", i+1, sl[i], fl[i])
			}
		}
	}
	if diff > 0 || compared < 3000 {
		t.Fatalf("%d of %d decisions differ", diff, compared)
	}

	// The collector runs through a stream (the huge-page reservation's
	// own collection is the first) and stays off for a hook (one call).
	// The corpus four times over allocates well past the 256 MiB limit,
	// whatever a call allocates this month (once through, it came close).
	gc := runBin(t, ws, strings.Repeat(stdin, 4), append(env, "GODEBUG=gctrace=1"), small, args...)
	if !strings.Contains(gc.errs, "gc 2 @") {
		t.Errorf("check collected nothing over %d calls:\n%.2000s", 4*len(lines), gc.errs)
	}

	// the same policy digest in the audit log
	digests := map[string]bool{}
	for _, bin := range []string{small, full} {
		log := filepath.Join(t.TempDir(), "audit.jsonl")
		r := runBin(t, ws, lines[0]+"\n", env, bin, "check", "--workspace", ws, "--audit", log)
		b, err := os.ReadFile(log)
		if err != nil || r.code != 0 {
			t.Fatalf("%s: exit %d, %v\n%s", bin, r.code, err, r.errs)
		}
		m := regexp.MustCompile(`"policy":"(sha256:[0-9a-f]+)"`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("no policy digest in %s", b)
		}
		digests[string(m[1])] = true
	}
	if len(digests) != 1 {
		t.Errorf("the builds record different policy digests: %v", digests)
	}

	// the hook, on the small build's own
	event := bashEvent(ws, "rm -rf ~")
	h := runBin(t, ws, event, []string{"CLAUDE_PROJECT_DIR=" + ws, "HOME=" + home}, small, "hook", "claude-code", "--audit", "none")
	if h.code != 0 || !strings.Contains(h.out, `"permissionDecision":"deny"`) {
		t.Fatalf("hook: exit %d\n%s\n%s", h.code, h.out, h.errs)
	}
	h = runBin(t, ws, event, []string{"CLAUDE_PROJECT_DIR=" + ws, "HOME=" + home, "GODEBUG=gctrace=1"}, small, "hook", "claude-code", "--audit", "none")
	if strings.Contains(h.errs, "gc 1 @") {
		t.Errorf("a hook collected garbage:\n%s", h.errs)
	}

	// handed to toolgate-full
	pol := t.TempDir()
	os.WriteFile(filepath.Join(pol, "p.rego"), []byte("package toolgate\nimport rego.v1\ndecision := {\"decision\": \"deny\", \"reasons\": [{\"rule\": \"custom.no\", \"message\": \"custom says no\"}]}\n"), 0o644)
	data := filepath.Join(t.TempDir(), "d.json")
	os.WriteFile(data, []byte(`{"toolgate": {"config": {"allowed_commands": ["ls"]}}}`), 0o644)
	call := `{"id":"1","name":"exec","arguments":{"command":"echo hi"}}` + "\n"
	auditLog := filepath.Join(t.TempDir(), "audit.jsonl")
	if r := runBin(t, ws, call, env, small, "check", "--workspace", ws, "--audit", auditLog); r.code != 0 {
		t.Fatalf("check --audit: exit %d\n%s%s", r.code, r.out, r.errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--workspace", ws, "--audit", "none", "--policy", pol}, "custom says no"},
		{[]string{"check", "--workspace", ws, "--audit", "none", "--policy=" + pol}, "custom says no"},
		{[]string{"check", "--workspace", ws, "--audit", "none", "--data", data}, "config.not_allowlisted"},
		{[]string{"explain", "--workspace", ws}, "reasons:"},
		{[]string{"--help"}, "serve"},
		{[]string{"policy", "test"}, " passed, 0 failed"},
		{[]string{"audit", "report", auditLog}, "toolgate audit report"},
		{[]string{"audit", "--help"}, "ship"},
		{[]string{"audit", "verify", auditLog}, "intact: 2 records"},
	} {
		r := runBin(t, ws, call, env, small, c.args...)
		if !strings.Contains(r.out+r.errs, c.want) {
			t.Errorf("toolgate %s: exit %d, wanted %q in\n%s%s", strings.Join(c.args, " "), r.code, c.want, r.out, r.errs)
		}
	}
	// --policy builtin is the small build's own
	r := runBin(t, ws, call, env, small, "check", "--workspace", ws, "--audit", "none", "--policy", "builtin")
	if r.code != 0 || !strings.Contains(r.out, `"decision":"allow"`) {
		t.Errorf("--policy builtin: exit %d\n%s%s", r.code, r.out, r.errs)
	}

	// each build protects the other (and itself)
	for _, bin := range []string{small, full} {
		for _, target := range []string{small, full} {
			rm := `{"id":"1","name":"exec","arguments":{"command":"cp /bin/true ` + target + `"}}` + "\n"
			r := runBin(t, ws, rm, env, bin, "check", "--workspace", ws, "--audit", "none")
			if !strings.Contains(r.out, "self.protected_file") {
				t.Errorf("%s let a call overwrite %s:\n%s%s", filepath.Base(bin), filepath.Base(target), r.out, r.errs)
			}
		}
	}

	// no toolgate-full: a clear refusal, nothing decided
	if err := os.Remove(full); err != nil {
		t.Fatal(err)
	}
	r = runBin(t, ws, call, env, small, "check", "--workspace", ws, "--audit", "none", "--policy", pol)
	if r.code == 0 || r.out != "" || !strings.Contains(r.errs, "toolgate-full") || !strings.Contains(r.errs, "make build") {
		t.Errorf("without toolgate-full: exit %d\n%s%s", r.code, r.out, r.errs)
	}
}
