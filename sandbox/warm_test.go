package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"
)

// warmWorld is a sandbox whose first box has been made, so that boxes can
// be made ahead.
func warmWorld(t *testing.T) (world, *Sandbox) {
	t.Helper()
	w := newWorld(t)
	s := box(t, w, nil)
	if res := run(t, s, "true"); res.ExitCode != 0 {
		t.Fatalf("first box: %+v", res)
	}
	return w, s
}

func warmCount(s *Sandbox) int {
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	return len(s.warm)
}

// A box made ahead runs nothing until Run takes it for its request: not
// while it waits, not when it is dropped.
func TestWarmBoxRunsOnlyWhenTaken(t *testing.T) {
	w, s := warmWorld(t)
	marker := filepath.Join(w.ws, "marker")
	req := Request{Command: "touch " + marker}
	ticket := s.Prestart(req)
	if ticket == 0 {
		t.Fatal("no box made ahead")
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran in a box made ahead before Run")
	}
	s.Forget(ticket)
	s.pending.Wait()
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran in a box made ahead that was dropped")
	}
	if warmCount(s) != 0 {
		t.Fatal("Forget left the box")
	}

	if s.Prestart(req) == 0 {
		t.Fatal("no box made ahead")
	}
	res, err := s.Run(context.Background(), req)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Run: %+v %v", res, err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the command did not run: %v", err)
	}
	if warmCount(s) != 0 {
		t.Fatal("Run did not take the box made ahead")
	}
	if res.Duration > 5*time.Second {
		t.Errorf("duration %v counts the wait before Run", res.Duration)
	}
}

// What a command sees in a box made ahead is what it sees in a box made
// for it: environment, directory, limits, credentials, namespaces' view.
func TestWarmBoxSameAsFresh(t *testing.T) {
	_, s := warmWorld(t)
	// What differs from box to box: the cgroup (two take turns, and the box's
	// cgroup namespace is rooted at it when bwrap joined it before making
	// the box, else at toolgate's) and the output pipes.
	vary := regexp.MustCompile(`(pids|memory):/[^\n]*|pipe:\[[0-9]+\]`)
	norm := func(r Result) string { return vary.ReplaceAllString(output(r), "X") }
	for _, cmd := range []string{
		"env",      // started by bubblewrap itself
		"pwd",      // the same
		"id -u -n", // the same
		"env | sort; echo $$ $PPID $SHLVL; pwd; ulimit -a; ls -la /dev /proc/self/fd | sort | cut -c1-11,40-; umask",
		"grep -E '^(Cap|NoNewPrivs|Seccomp)' /proc/self/status; cat /proc/self/cgroup; ls -1a /tmp ~",
	} {
		req := Request{Command: cmd}
		fresh, err := s.Run(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if s.Prestart(req) == 0 {
			t.Fatal("no box made ahead")
		}
		warm, err := s.Run(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if warmCount(s) != 0 {
			t.Fatalf("%q: the box made ahead was not used", cmd)
		}
		a, b := norm(fresh), norm(warm)
		if a != b || fresh.ExitCode != warm.ExitCode {
			t.Errorf("%q: fresh box (exit %d):\n%s\nbox made ahead (exit %d):\n%s", cmd, fresh.ExitCode, a, warm.ExitCode, b)
		}
	}
}

// A box made ahead whose command line would differ now (here a guard
// appeared: the repository gained .git/info) is not used; the command runs
// in a box made for it, where the new guard holds.
func TestWarmBoxNotUsedOnceItsCommandLineChanged(t *testing.T) {
	w, s := warmWorld(t)
	req := Request{Command: "touch .git/info/planted"}
	if s.Prestart(req) == 0 {
		t.Fatal("no box made ahead")
	}
	if err := os.Mkdir(filepath.Join(w.ws, ".git", "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if warmCount(s) != 0 {
		t.Fatal("the stale box was kept")
	}
	if res.ExitCode == 0 {
		t.Errorf("the command wrote into the guarded .git/info: %s", output(res))
	}
	if _, err := os.Stat(filepath.Join(w.ws, ".git", "info", "planted")); err == nil {
		t.Error(".git/info/planted exists: the box made before the guard was used")
	}
}

// A box made ahead is only kept while every box released holds its
// workspace mounts in place, and none is made while a box runs that does
// not.
func TestWarmBoxFollowsThePins(t *testing.T) {
	w, s := warmWorld(t)
	req := Request{Command: "true"}
	args, err := s.args(req)
	if err != nil {
		t.Fatal(err)
	}
	targets := wsTargets(args, s.ws)
	if !slices.Contains(targets, filepath.Join(w.ws, ".git", "hooks")) {
		t.Fatalf("targets %q lack the hooks guard", targets)
	}

	p := s.pin([]string{s.ws}) // a box without the git guards runs
	if s.Prestart(req) != 0 {
		t.Error("a box was made ahead while a box that does not pin its guards runs")
	}
	s.unpin(p)
	if s.Prestart(req) == 0 {
		t.Fatal("no box made ahead")
	}
	p = s.pin(targets) // the same guards: kept
	s.unpin(p)
	if warmCount(s) != 1 {
		t.Fatal("a box pinning the same mounts dropped the box made ahead")
	}
	p = s.pin([]string{s.ws})
	s.unpin(p)
	if warmCount(s) != 0 {
		t.Fatal("a box that does not pin the guards left the box made ahead")
	}
	s.pending.Wait()
}

func TestAnchored(t *testing.T) {
	ws := "/w"
	for _, c := range []struct {
		targets []string
		want    bool
	}{
		{[]string{"/w"}, true},
		{[]string{"/w", "/w/.git", "/w/.git/hooks", "/w/.git/config"}, true},
		{[]string{"/w", "/w/.git", "/w/.git/modules/m/hooks"}, false},
		{[]string{"/w", "/w/.claude/settings.json"}, false},
		{[]string{"/w", "/x/y"}, false},
		{nil, false},
	} {
		if got := anchored(c.targets, ws); got != c.want {
			t.Errorf("anchored(%q) = %v, want %v", c.targets, got, c.want)
		}
	}
}

func TestOptionsReader(t *testing.T) {
	args := []string{"--unshare-all", "--setenv", "--bind", "/w/x", "--bind", "/w", "/w", "--info-fd", "3", "--block-fd", "4", "--sync-fd", "5",
		"--ro-bind", "/dev/null", "/w/k", "--tmpfs", "/tmp", "--seccomp", "6", "--", "ls", "--bind", "/w/y", "/w/y"}
	if got := wsTargets(args, "/w"); !slices.Equal(got, []string{"/w", "/w/k"}) {
		t.Errorf("wsTargets: %q (a --setenv value or the command taken for a mount)", got)
	}
	if got := wsTargets([]string{"--unknown", "--bind", "/w", "/w", "--", "ls"}, "/w"); got != nil {
		t.Errorf("an unknown option: %q", got)
	}
	if got := wsTargets([]string{"--bind", "/w", "/w"}, "/w"); got != nil {
		t.Errorf("no command: %q", got)
	}
}

// On a run's staged workspace a box made ahead carries the guards of the
// tree it was made on: once a guarded path is another file (its directory
// renamed and the file made again, a guard added), the box is not used,
// and the command meets the guards as they are now.
func TestWarmBoxOnStagedWorkspace(t *testing.T) {
	w := newWorld(t)
	state := filepath.Join(w.ws, "state")
	if err := os.Mkdir(state, 0o755); err != nil {
		t.Fatal(err)
	}
	logf := filepath.Join(state, "audit.jsonl")
	if err := os.WriteFile(logf, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := box(t, w, func(c *Config) { c.Sequential = true; c.ReadOnly = []string{logf} })
	if res := run(t, s, "true"); res.ExitCode != 0 {
		t.Fatalf("first box: %+v", res)
	}
	if s.stage.key == "" {
		t.Skip("the workspace is not staged here")
	}
	cases := []struct {
		name, cmd string
		change    func()
		guarded   string
	}{
		{"guard's directory renamed, file made again", "echo planted >> state/audit.jsonl; true", func() {
			if err := os.Rename(state, state+"-moved"); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(state, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(logf, []byte("new\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, logf},
		{"guard added", "echo planted > .git/info/x; true", func() {
			if err := os.Mkdir(filepath.Join(w.ws, ".git", "info"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, filepath.Join(w.ws, ".git", "info", "x")},
	}
	for _, c := range cases {
		req := Request{Command: c.cmd}
		if s.Prestart(req) == 0 {
			t.Fatalf("%s: no box made ahead", c.name)
		}
		c.change()
		if _, err := s.Run(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if warmCount(s) != 0 {
			t.Fatalf("%s: the stale box was kept", c.name)
		}
		if b, _ := os.ReadFile(c.guarded); regexp.MustCompile("planted").Match(b) {
			t.Errorf("%s: %s was written: %q", c.name, c.guarded, b)
		}
	}
}

// The workspace is staged only where the directory at its path is the one
// the host has there: another one (a mount the host made later that did
// not reach toolgate's namespace) stages nothing, and nothing is left.
func TestStageRefusesAnotherDirectory(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("staging needs root: mounts")
	}
	ws := t.TempDir()
	dir := filepath.Join(t.TempDir(), "staged")
	if err := stageWS(dir, ws, nil, -1, [2]uint64{1, 2}); err == nil {
		unstage(dir)
		t.Fatal("a directory that is not the host's was staged")
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("a refused staging left its directory")
	}
}
