package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// world is a throwaway host layout: a workspace, a fake home holding canary
// secrets, and a directory outside both.
type world struct {
	ws, home, outside string
	canary            string
}

func newWorld(t *testing.T) world {
	t.Helper()
	root := t.TempDir()
	w := world{
		ws:      filepath.Join(root, "ws"),
		home:    filepath.Join(root, "home"),
		outside: filepath.Join(root, "outside"),
		canary:  "CANARY-" + strconv.FormatInt(time.Now().UnixNano(), 36),
	}
	for _, d := range []string{w.ws, filepath.Join(w.home, ".ssh"), w.outside, filepath.Join(w.ws, ".git", "hooks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(w.home, ".ssh", "id_rsa"), w.canary+"\n")
	write(filepath.Join(w.home, ".aws_credentials"), w.canary+"\n")
	write(filepath.Join(w.outside, "keep.txt"), "keep\n")
	write(filepath.Join(w.ws, ".git", "config"), "[core]\n\tbare = false\n")
	write(filepath.Join(w.ws, "hello.txt"), "hello\n")
	return w
}

// box makes a sandbox for w, skipping the test (with the reason) only when
// bubblewrap cannot run on this machine.
func box(t *testing.T, w world, mod func(*Config)) *Sandbox {
	t.Helper()
	cfg := Config{Workspace: w.ws, Home: w.home, Timeout: 20 * time.Second,
		Mask: []string{"/etc/shadow*", "/etc/gshadow*", "/etc/ssl/private", "/etc/ssh/ssh_host_*_key"}}
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Check(context.Background()); err != nil {
		var u *Unavailable
		if errors.As(err, &u) && cfg.Mode != ModeNone {
			t.Skipf("bubblewrap cannot run here: %v (%s)", u, u.Hint)
		}
		t.Fatal(err)
	}
	return s
}

func run(t *testing.T, s *Sandbox, cmd string) Result {
	t.Helper()
	res, err := s.Run(context.Background(), Request{Command: cmd})
	if err != nil {
		t.Fatalf("%q: %v", cmd, err)
	}
	return res
}

func output(r Result) string { return r.Stdout.String() + r.Stderr.String() }

func TestCanarySecretsStayHidden(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, nil)
	cmds := []string{
		"cat ~/.ssh/id_rsa",
		"cat " + filepath.Join(w.home, ".ssh", "id_rsa"),
		"cat " + filepath.Join(w.home, ".aws_credentials"),
		"grep -rs CANARY /etc /tmp /var /run ~ " + w.home + " 2>/dev/null | head",
		"ls -la ~ " + w.home,
		"cat /etc/shadow /etc/gshadow",
		"find / -name id_rsa 2>/dev/null",
		"cat /proc/1/environ /proc/self/environ | tr '\\0' '\\n'",
	}
	for _, c := range cmds {
		res := run(t, s, c)
		if strings.Contains(output(res), w.canary) {
			t.Errorf("%q revealed the canary:\n%s", c, output(res))
		}
	}
	// /etc/shadow exists on the host but is masked (reads nothing or fail).
	if _, err := os.Stat("/etc/shadow"); err == nil {
		res := run(t, s, "cat /etc/shadow")
		if strings.Contains(res.Stdout.String(), "root:") {
			t.Errorf("/etc/shadow readable in the box:\n%s", res.Stdout.String())
		}
	}
}

func TestWritesOutsideWorkspaceFail(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, nil)
	keep := filepath.Join(w.outside, "keep.txt")
	probe := "/etc/toolgate-probe-" + strconv.Itoa(os.Getpid())
	cmds := []string{
		"rm -f " + keep,
		"echo pwned > " + keep,
		"echo new > " + filepath.Join(w.outside, "new.txt"),
		"rm -rf " + w.outside,
		"touch " + probe,
		"echo x >> ~/.bashrc",
		"mv " + keep + " /tmp/",
	}
	for _, c := range cmds {
		run(t, s, c)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "keep\n" {
		t.Errorf("file outside the workspace changed: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(w.outside, "new.txt")); err == nil {
		t.Error("a file was created outside the workspace")
	}
	if _, err := os.Stat(probe); err == nil {
		os.Remove(probe)
		t.Error("a file was created in /etc")
	}
	if _, err := os.Stat(filepath.Join(w.home, ".bashrc")); err == nil {
		t.Error("the home directory was written")
	}
	// The workspace itself is writable, and what is written there stays.
	res := run(t, s, "echo made > made.txt && rm hello.txt && echo ok")
	if strings.TrimSpace(res.Stdout.String()) != "ok" {
		t.Fatalf("workspace not writable: %s", output(res))
	}
	if b, _ := os.ReadFile(filepath.Join(w.ws, "made.txt")); string(b) != "made\n" {
		t.Errorf("workspace write lost: %q", b)
	}
}

func TestNoNetworkUnlessGranted(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	got := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			got <- struct{}{}
			c.Close()
		}
	}()
	cmd := fmt.Sprintf("echo hi > /dev/tcp/127.0.0.1/%d && echo connected", port)
	res := run(t, s, cmd)
	if strings.Contains(res.Stdout.String(), "connected") {
		t.Errorf("the box reached the host's loopback: %s", output(res))
	}
	select {
	case <-got:
		t.Fatal("the host listener got a connection from the box")
	case <-time.After(200 * time.Millisecond):
	}
	// Granted: the same command reaches the listener.
	res, err = s.Run(context.Background(), Request{Command: cmd, Network: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Stdout.String(), "connected") {
		t.Errorf("network granted but no connection: %s", output(res))
	}
}

func TestHostProcessesAndEnvironmentInvisible(t *testing.T) {
	w := newWorld(t)
	t.Setenv("TOOLGATE_TEST_SECRET", w.canary)
	s := box(t, w, nil)
	res := run(t, s, "env; ls /proc | grep -c '^[0-9]'; cat /proc/1/cmdline | tr '\\0' ' '; echo; id -u")
	out := res.Stdout.String()
	if strings.Contains(out, w.canary) {
		t.Errorf("host environment visible:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 3 {
		t.Fatalf("short output: %q", out)
	}
	uid := lines[len(lines)-1]
	if uid == "0" {
		t.Error("id -u is 0 in the box")
	}
	n, err := strconv.Atoi(lines[len(lines)-3])
	if err != nil || n > 8 {
		t.Errorf("the box sees %s processes; want only its own", lines[len(lines)-3])
	}
	if !strings.Contains(out, "GIT_TERMINAL_PROMPT=0") || !strings.Contains(out, "DEBIAN_FRONTEND=noninteractive") {
		t.Errorf("fixed variables missing:\n%s", out)
	}
}

func TestPathAppend(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, func(c *Config) { c.PathAppend = []string{"/opt/extra/bin"} })
	res := run(t, s, "echo $PATH")
	if !strings.HasSuffix(strings.TrimSpace(res.Stdout.String()), ":/opt/extra/bin") {
		t.Errorf("PATH = %q", res.Stdout.String())
	}
}

func TestGitHooksAndConfigReadOnly(t *testing.T) { bothWays(t, testGitHooksAndConfigReadOnly) }

func testGitHooksAndConfigReadOnly(t *testing.T, seq func(*Config)) {
	w := newWorld(t)
	s := box(t, w, seq)
	for _, c := range []string{
		"echo 'touch /tmp/pwned' > .git/hooks/pre-commit",
		"printf '[core]\\n\\tfsmonitor = touch x\\n' >> .git/config",
		"rm -rf .git/hooks",
		"mv .git/hooks .git/hooks.old",
		"mv .git .git-old && mkdir -p .git/hooks && echo x > .git/hooks/post-checkout",
	} {
		run(t, s, c)
	}
	if _, err := os.Stat(filepath.Join(w.ws, ".git", "hooks", "pre-commit")); err == nil {
		t.Error(".git/hooks/pre-commit was written")
	}
	if _, err := os.Stat(filepath.Join(w.ws, ".git", "hooks", "post-checkout")); err == nil {
		t.Error(".git was replaced and a hook written")
	}
	if b, _ := os.ReadFile(filepath.Join(w.ws, ".git", "config")); strings.Contains(string(b), "fsmonitor") {
		t.Error(".git/config was changed")
	}
	// A repository without a hooks directory gets one it cannot write.
	w2 := newWorld(t)
	os.RemoveAll(filepath.Join(w2.ws, ".git", "hooks"))
	s2 := box(t, w2, seq)
	run(t, s2, "mkdir -p .git/hooks; echo x > .git/hooks/pre-push")
	if _, err := os.Stat(filepath.Join(w2.ws, ".git", "hooks", "pre-push")); err == nil {
		t.Error("a hook was written into a new hooks directory")
	}
}

// hostProcesses counts processes on the host whose command line contains
// marker.
func hostProcesses(marker string) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(bytes.ReplaceAll(b, []byte{0}, []byte{' '}), []byte(marker)) {
			n++
		}
	}
	return n
}

func TestTimeoutKillsTheWholeBox(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, func(c *Config) { c.Timeout = time.Second })
	marker := "sleep 987." + strconv.Itoa(os.Getpid()%1000)
	cmd := fmt.Sprintf("%s & setsid %s & nohup %s >/dev/null 2>&1 & (%s &) ; %s", marker, marker, marker, marker, marker)
	start := time.Now()
	res := run(t, s, cmd)
	if !res.TimedOut {
		t.Fatalf("not timed out: %+v", res)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("timeout took %v", d)
	}
	deadline := time.Now().Add(3 * time.Second)
	for hostProcesses(marker) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := hostProcesses(marker); n > 0 {
		t.Errorf("%d processes of the box outlived the timeout", n)
	}
}

func TestBackgroundChildrenDieWithTheCommand(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, nil)
	marker := "sleep 876." + strconv.Itoa(os.Getpid()%1000)
	start := time.Now()
	res := run(t, s, fmt.Sprintf("setsid %s & %s & echo started", marker, marker))
	if strings.TrimSpace(res.Stdout.String()) != "started" || time.Since(start) > 5*time.Second {
		t.Fatalf("res %+v after %v", res, time.Since(start))
	}
	time.Sleep(100 * time.Millisecond)
	if n := hostProcesses(marker); n > 0 {
		t.Errorf("%d background processes outlived the command", n)
	}
}

func TestOutputFloodIsStopped(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, func(c *Config) { c.Limits.OutputBytes = 4 << 20 })
	start := time.Now()
	res := run(t, s, "yes")
	if !res.OutputLimited {
		t.Fatalf("yes was not stopped for output: %+v", res)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("stopping yes took %v", d)
	}
	if len(res.Stdout.Head) > captureHead || len(res.Stdout.Tail) > captureTail {
		t.Error("capture kept more than its bound")
	}
	if !strings.HasPrefix(res.Stdout.Head, "y\ny\n") || res.Stdout.Gap == 0 {
		t.Errorf("head/gap wrong: %q… gap %d", res.Stdout.Head[:10], res.Stdout.Gap)
	}
}

func TestForkBombIsContained(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, func(c *Config) { c.Timeout = 3 * time.Second; c.Limits.Procs = 64 })
	start := time.Now()
	res := run(t, s, ":(){ :|:& };:; sleep 30")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("fork bomb ran %v", d)
	}
	// The pids cgroup stops it (before RLIMIT_NPROC, which would not be
	// reported), and the result says so.
	if s.cg != nil && !res.PidsLimited {
		t.Errorf("pids limit never reached: %+v", res)
	}
	// The host still forks, and nothing of the bomb is left.
	if err := exec_true(); err != nil {
		t.Errorf("host cannot fork after the bomb: %v", err)
	}
	// The next box takes the emptied cgroup without the bomb's events.
	if res := run(t, s, "true"); res.ExitCode != 0 || res.PidsLimited {
		t.Errorf("the box after the bomb: %+v %s", res, output(res))
	}
}

// A box's cgroup is emptied and kept for later boxes, not made and removed
// for each: two take turns, so the next box need not wait for the last
// one's to empty. Close removes the ones kept.
func TestCgroupIsReused(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, nil)
	if s.cg == nil {
		t.Skip("no cgroups here")
	}
	spares := func() [][]string {
		s.pending.Wait()
		s.spareMu.Lock()
		defer s.spareMu.Unlock()
		var out [][]string
		for _, cg := range s.spares {
			out = append(out, append([]string(nil), cg.dirs...))
		}
		return out
	}
	seen := map[string]bool{}
	for i := 0; i < 6; i++ {
		if res := run(t, s, "sleep 0.05 & echo $$"); res.ExitCode != 0 {
			t.Fatalf("box %d: %+v %s", i, res, output(res))
		}
		kept := spares()
		if len(kept) == 0 || len(kept) > maxSpares {
			t.Fatalf("after box %d: %d cgroups kept, want 1 to %d", i, len(kept), maxSpares)
		}
		for _, dirs := range kept {
			seen[dirs[0]] = true
			for _, d := range dirs {
				if b, err := os.ReadFile(filepath.Join(d, "cgroup.procs")); err != nil || len(b) != 0 {
					t.Errorf("kept cgroup %s: %q, %v", d, b, err)
				}
			}
		}
	}
	if len(seen) > maxSpares {
		t.Errorf("%d cgroups made for 6 boxes run one after the other, want at most %d", len(seen), maxSpares)
	}
	kept := spares()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, dirs := range kept {
		for _, d := range dirs {
			if _, err := os.Stat(d); !os.IsNotExist(err) {
				t.Errorf("%s outlives Close: %v", d, err)
			}
		}
	}
}

// bwrap is started in the box's cgroup (bornIn), so neither it nor the
// box's pid 1 is moved there, and toolgate's own threads all stay where
// toolgate is.
func TestBoxIsBornInItsCgroup(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, nil)
	if s.cg == nil {
		t.Skip("no cgroups here")
	}
	args, err := s.args(Request{Command: "sleep 30"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.startBox(args)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		s.reap(b)
	}()
	if !b.bornIn {
		t.Fatal("bwrap was not born in its cgroup")
	}
	if err := s.confine(b); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{b.cmd.Process.Pid, b.child} {
		if !b.cg.holds(pid) {
			t.Errorf("pid %d is not in the box's cgroups %v", pid, b.cg.dirs)
		}
	}
	// Every thread of this process is in the cgroups it started in.
	want, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	tasks, _ := filepath.Glob("/proc/self/task/*/cgroup")
	for _, f := range tasks {
		if got, err := os.ReadFile(f); err == nil && !bytes.Equal(got, want) {
			t.Errorf("%s:\n%s\nwant\n%s", f, got, want)
		}
	}
}

func TestMemoryBombIsContained(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, func(c *Config) { c.Timeout = 20 * time.Second; c.Limits.MemoryBytes = 128 << 20 })
	start := time.Now()
	// tail keeps a line without end in memory: it grows until stopped.
	res := run(t, s, "head -c 2000000000 /dev/zero | tail -c 1500000000 | wc -c")
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("memory bomb ran %v", d)
	}
	if res.ExitCode == 0 && strings.TrimSpace(res.Stdout.String()) == "1500000000" {
		t.Fatalf("1.5 GB held in a box limited to 128 MiB: %+v", res)
	}
	if s.cg.hasMemory() && !res.OOM {
		t.Errorf("no OOM kill recorded: %+v %s", res, output(res))
	}
	if res := run(t, s, "true"); res.ExitCode != 0 || res.OOM {
		t.Errorf("the box after the bomb: %+v %s", res, output(res))
	}
}

func TestDiskFillerIsBounded(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, func(c *Config) { c.Limits.FileSizeBytes = 8 << 20 })
	res := run(t, s, "head -c 100000000 /dev/zero > big; echo $?")
	fi, err := os.Stat(filepath.Join(w.ws, "big"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 8<<20 {
		t.Errorf("file grew to %d bytes past the 8 MiB limit", fi.Size())
	}
	if strings.TrimSpace(res.Stdout.String()) == "0" {
		t.Errorf("the write did not fail: %s", output(res))
	}
	// The private /tmp has a size too.
	res = run(t, s, "cat /dev/zero > /tmp/fill; df -k /tmp | tail -1")
	if !strings.Contains(output(res), "No space left") && !strings.Contains(output(res), "File size limit") {
		t.Errorf("filling /tmp did not stop: %s", output(res))
	}
}

func TestExitCodesAndStreams(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, nil)
	res := run(t, s, "echo out; echo err >&2; exit 7")
	if res.ExitCode != 7 || res.Stdout.String() != "out\n" || res.Stderr.String() != "err\n" {
		t.Errorf("got %+v", res)
	}
	// A process of the box killed by a signal reports 128+n.
	res = run(t, s, `sh -c 'kill -9 $$'; exit $?`)
	if res.ExitCode != 137 {
		t.Errorf("killed by SIGKILL: exit %d: %s", res.ExitCode, output(res))
	}
	// The command is the box's pid 1: its own signals without a handler
	// are ignored (doc.go), and it goes on.
	res = run(t, s, "kill -9 $$; echo survived")
	if res.ExitCode != 0 || res.Stdout.String() != "survived\n" {
		t.Errorf("pid 1 killing itself: %s", output(res))
	}
	sub := filepath.Join(w.ws, "sub")
	os.Mkdir(sub, 0o755)
	res, err := s.Run(context.Background(), Request{Command: "pwd", Dir: sub})
	if err != nil || strings.TrimSpace(res.Stdout.String()) != sub {
		t.Errorf("working dir: %q %v", res.Stdout.String(), err)
	}
}

func TestMissingBubblewrapRefuses(t *testing.T) {
	w := newWorld(t)
	s, err := New(Config{Workspace: w.ws, Bwrap: "/nonexistent/bwrap"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), Request{Command: "touch " + filepath.Join(w.ws, "ran")})
	var u *Unavailable
	if !errors.As(err, &u) || u.Hint == "" || !strings.Contains(u.Reason, "not installed") {
		t.Fatalf("want Unavailable with a hint, got %v (%+v)", err, res)
	}
	if _, err := os.Stat(filepath.Join(w.ws, "ran")); err == nil {
		t.Fatal("the command ran without a sandbox")
	}
}

// TestBrokenBubblewrapRefuses: a bwrap that cannot make the box (here one
// that fails the way a kernel without user namespaces makes it fail) is
// found out by the first command, which does not run; later commands are
// refused without another try, and Check says the same.
func TestBrokenBubblewrapRefuses(t *testing.T) {
	w := newWorld(t)
	fake := filepath.Join(t.TempDir(), "bwrap")
	count := filepath.Join(t.TempDir(), "count")
	script := "#!/bin/sh\necho x >> " + count + "\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Workspace: w.ws, Bwrap: fake})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		res, err := s.Run(context.Background(), Request{Command: "touch " + filepath.Join(w.ws, "ran")})
		var u *Unavailable
		if !errors.As(err, &u) || u.Hint == "" || !strings.Contains(u.Reason, "No permissions") {
			t.Fatalf("run %d: want Unavailable naming bwrap's reason, got %v (%+v)", i, err, res)
		}
	}
	if err := s.Check(context.Background()); err == nil {
		t.Fatal("Check says a broken bwrap works")
	}
	if b, _ := os.ReadFile(count); strings.Count(string(b), "x") != 1 {
		t.Fatalf("bwrap started %d times, want once", strings.Count(string(b), "x"))
	}
	if _, err := os.Stat(filepath.Join(w.ws, "ran")); err == nil {
		t.Fatal("the command ran without a sandbox")
	}
}

func TestModeNoneRunsOnTheHost(t *testing.T) {
	w := newWorld(t)
	t.Setenv("TOOLGATE_TEST_SECRET", w.canary)
	s := box(t, w, func(c *Config) { c.Mode = ModeNone; c.Timeout = time.Second })
	res := run(t, s, "env; pwd")
	if res.Mode != ModeNone || strings.Contains(res.Stdout.String(), w.canary) || !strings.Contains(res.Stdout.String(), w.ws) {
		t.Errorf("none mode: %+v", res)
	}
	res = run(t, s, "sleep 5")
	if !res.TimedOut {
		t.Error("timeout not applied in none mode")
	}
}

func exec_true() error {
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		return err
	}
	_, err = p.Wait()
	return err
}

func TestHardeningAgainstAHostUID(t *testing.T) {
	w := newWorld(t)
	// A descriptor toolgate inherited without close-on-exec stays outside.
	fd, err := syscall.Open("/", syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Dup2(fd, 57); err != nil {
		t.Fatal(err)
	}
	syscall.Close(fd)
	defer syscall.Close(57)
	var canary, userCanary string
	if os.Getuid() == 0 {
		canary = fmt.Sprintf("/opt/toolgate-test-%d", os.Getpid())
		if err := os.WriteFile(canary, []byte(w.canary), 0o600); err == nil {
			defer os.Remove(canary)
		} else {
			canary = ""
		}
		// Root's secret in a directory some user owns is root's all the
		// same (the walk once skipped such directories).
		userDir := fmt.Sprintf("/opt/toolgate-test-%d-user", os.Getpid())
		if err := os.Mkdir(userDir, 0o755); err == nil {
			defer os.RemoveAll(userDir)
			userCanary = filepath.Join(userDir, "key")
			if os.Chown(userDir, 1000, 1000) != nil || os.WriteFile(userCanary, []byte(w.canary), 0o600) != nil {
				userCanary = ""
			}
		}
	}
	s := box(t, w, nil)
	before, _ := os.ReadFile("/proc/sys/kernel/core_pattern")
	cmds := map[string]string{
		"fd":       "ls /proc/self/fd | tr '\\n' ' '",
		"sysctl":   "echo '|/bin/true' > /proc/sys/kernel/core_pattern && echo WROTE",
		"setuid":   "cp /bin/true ./t && chmod u+s ./t && echo WROTE; chmod 4755 ./t && echo WROTE; install -m 4755 /bin/true ./t2 && echo WROTE",
		"keyctl":   `perl -e '$r = syscall(` + keyctlNr() + `, 0, -3, 0); print "keyctl=$r\n"'`,
		"proc":     "cat /proc/keys /proc/kcore 2>&1 | head -c 200",
		"rootonly": "cat " + canary + " " + userCanary + " /etc/ssl/private/* 2>&1",
	}
	for name, c := range cmds {
		res := run(t, s, c)
		out := output(res)
		switch {
		case strings.Contains(out, "WROTE"):
			t.Errorf("%s: the box did it: %s", name, out)
		case strings.Contains(out, w.canary):
			t.Errorf("%s: the canary leaked: %s", name, out)
		case name == "fd" && strings.Contains(" "+res.Stdout.String(), " 57 "):
			t.Errorf("inherited fd 57 is open in the box: %s", out)
		case name == "keyctl" && !strings.Contains(out, "keyctl=-1"):
			t.Errorf("keyctl was not refused: %s", out)
		}
	}
	for _, f := range []string{"t", "t2"} {
		if fi, err := os.Stat(filepath.Join(w.ws, f)); err == nil && fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
			t.Errorf("%s is set-ID on the host: %v", f, fi.Mode())
		}
	}
	if after, _ := os.ReadFile("/proc/sys/kernel/core_pattern"); !bytes.Equal(before, after) {
		t.Fatalf("core_pattern changed to %q", after)
	}
	// A working directory outside the workspace is refused, not attempted.
	if _, err := s.Run(context.Background(), Request{Command: "pwd", Dir: w.outside}); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("working dir outside: %v", err)
	}
}

func keyctlNr() string {
	switch runtime.GOARCH {
	case "arm64":
		return "219"
	}
	return "250"
}

func TestPlantedGitStateIsQuarantined(t *testing.T) { bothWays(t, testPlantedGitStateIsQuarantined) }

func testPlantedGitStateIsQuarantined(t *testing.T, seq func(*Config)) {
	w := newWorld(t)
	os.RemoveAll(filepath.Join(w.ws, ".git"))
	s := box(t, w, seq)
	// A plain new repository is left alone.
	res := run(t, s, "git init -q . && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x && echo ok")
	if !strings.Contains(res.Stdout.String(), "ok") || len(res.Notes) != 0 {
		t.Fatalf("plain git init: %s %v", output(res), res.Notes)
	}
	os.RemoveAll(filepath.Join(w.ws, ".git"))
	res = run(t, s, "git init -q . && git config core.fsmonitor 'touch /tmp/x' && printf '#!/bin/sh\\n' > .git/hooks/pre-commit")
	if len(res.Notes) != 2 {
		t.Fatalf("planted state not caught: %v", res.Notes)
	}
	if exists(filepath.Join(w.ws, ".git", "hooks")) || exists(filepath.Join(w.ws, ".git", "config")) {
		t.Error("hooks or config still in place")
	}
	// commondir in an existing repository.
	w2 := newWorld(t)
	s2 := box(t, w2, seq)
	res = run(t, s2, "mkdir evil && echo ../evil > .git/commondir")
	if len(res.Notes) != 1 || exists(filepath.Join(w2.ws, ".git", "commondir")) {
		t.Errorf("commondir: %v", res.Notes)
	}
}

func TestWorkspaceOwnerRunsTheBox(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root hands the box to the workspace's owner")
	}
	root := filepath.Join("/tmp", fmt.Sprintf("toolgate-owner-%d", os.Getpid()))
	ws := filepath.Join(root, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	if err := os.Chown(ws, 1000, 1000); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Workspace: ws, Home: filepath.Join(root, "home"), Timeout: 10 * time.Second, Limits: Limits{FileSizeBytes: 4 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.HostRoot() || s.cred == nil {
		t.Fatalf("box not handed to the owner: hostRoot=%v", s.HostRoot())
	}
	// Root with CAP_SYS_RESOURCE sets the rlimits with prlimit, as for its
	// own boxes; the bash prologue is for a root without it.
	if capable(unix.CAP_SYS_RESOURCE) && s.prologue != "" {
		t.Errorf("root with CAP_SYS_RESOURCE still uses the ulimit prologue")
	}
	if err := s.Check(context.Background()); err != nil {
		t.Skipf("bubblewrap cannot run as uid 1000 here: %v", err)
	}
	// Both ways of setting the limits: prlimit from here, and the prologue
	// a root without CAP_SYS_RESOURCE uses.
	for _, prologue := range []string{s.prologue, s.limitsPrologue()} {
		s.prologue = prologue
		res, err := s.Run(context.Background(), Request{Command: "id -u; echo hi > f; ulimit -f; head -c 10000000 /dev/zero > big; echo $?"})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Fields(res.Stdout.String())
		if len(lines) < 3 || lines[0] != "1000" || lines[1] != "4096" || lines[2] == "0" {
			t.Errorf("owner box (prologue %v): %q %q", prologue != "", res.Stdout.String(), res.Stderr.String())
		}
		// A program started without bash -c has the limits too.
		req := Request{Command: "bash -c 'ulimit -f'"}
		if s.directRun(req.Command, ws) == nil {
			t.Fatalf("%q is not started directly", req.Command)
		}
		res, err = s.Run(context.Background(), req)
		if err != nil || strings.TrimSpace(res.Stdout.String()) != "4096" {
			t.Errorf("direct start in an owner box (prologue %v): %q %q %v", prologue != "", res.Stdout.String(), res.Stderr.String(), err)
		}
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(ws, "f"), &st); err != nil || st.Uid != 1000 {
		t.Errorf("file written as uid %d (%v), want 1000", st.Uid, err)
	}
}

func TestMoreGitPlantsAreQuarantined(t *testing.T) { bothWays(t, testMoreGitPlantsAreQuarantined) }

func testMoreGitPlantsAreQuarantined(t *testing.T, seq func(*Config)) {
	cases := []struct {
		name, cmd string
		noGit     bool
	}{
		{"broken HEAD and a repository at the root", "rm .git/HEAD; git init -q --bare . 2>/dev/null || (mkdir -p objects refs && echo 'ref: refs/heads/main' > HEAD)", false},
		{"symlinked .git", "git init -q --bare ../x 2>/dev/null; git init -q --bare evil.git && ln -s evil.git .git", true},
		{"continuation line", "git init -q . && printf '[core]\\n\\tx = y\\\\\\n[user]\\n\\tfsmonitor = touch /tmp/p\\n' >> .git/config", true},
		{"ssh signing key command", "git init -q . && git config gpg.format ssh && git config gpg.ssh.defaultKeyCommand 'touch /tmp/p'", true},
		{"new module repository", "mkdir -p .git/modules && git init -q --separate-git-dir=.git/modules/m m && git -C m config core.fsmonitor 'touch /tmp/p'", false},
		{"submodule with fsmonitor", "git init -q sub && git -C sub config core.fsmonitor 'touch /tmp/p' && printf '[submodule \"sub\"]\\n\\tpath = sub\\n\\turl = ./sub\\n' > .gitmodules", false},
	}
	for _, c := range cases {
		w := newWorld(t)
		if c.noGit {
			os.RemoveAll(filepath.Join(w.ws, ".git"))
		} else {
			os.RemoveAll(filepath.Join(w.ws, ".git"))
			cmd := exec.Command("git", "init", "-q", w.ws)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
		}
		s := box(t, w, seq)
		res := run(t, s, c.cmd)
		if len(res.Notes) == 0 {
			t.Errorf("%s: nothing quarantined: %s", c.name, output(res))
		}
	}
}

func TestOrdinaryGitWorkIsLeftAlone(t *testing.T) { bothWays(t, testOrdinaryGitWorkIsLeftAlone) }

func testOrdinaryGitWorkIsLeftAlone(t *testing.T, seq func(*Config)) {
	w := newWorld(t)
	os.RemoveAll(filepath.Join(w.ws, ".git"))
	if out, err := exec.Command("git", "init", "-q", w.ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	s := box(t, w, seq)
	res := run(t, s, "echo a > a && git add a && git -c user.email=a@b -c user.name=a commit -qm a && git checkout -qb feat && git branch -q -D master 2>/dev/null; git stash list; git log --oneline | wc -l")
	if len(res.Notes) != 0 || strings.TrimSpace(res.Stdout.String()) != "1" {
		t.Errorf("ordinary git work: %s notes %v", output(res), res.Notes)
	}
}

// A relative $HOME is made absolute from toolgate's working directory, as
// the gate does, before it becomes the box's empty home: bwrap is never
// handed a relative mount point.
func TestRelativeHomeIsAbsolute(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(root, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	t.Setenv("HOME", "home")
	s, err := New(Config{Workspace: ws, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "home"); s.home != want {
		t.Fatalf("home %q, want %q", s.home, want)
	}
	if s.cfg.Mode == ModeBwrap {
		args, err := s.args(Request{Command: "true"})
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range args {
			if a == "--tmpfs" && i+1 < len(args) && !filepath.IsAbs(args[i+1]) {
				t.Fatalf("relative mount point %q in %v", args[i+1], args)
			}
		}
	}
}

// toolgate's own files kept in the workspace (Config.ReadOnly) cannot be
// changed by what a command runs, whatever the policy saw; Config.Hidden
// cannot be read. The rest of the workspace stays writable.
func TestOwnFilesInTheWorkspace(t *testing.T) { bothWays(t, testOwnFilesInTheWorkspace) }

func testOwnFilesInTheWorkspace(t *testing.T, seq func(*Config)) {
	w := newWorld(t)
	for _, d := range []string{"pol", "state", "keys"} {
		if err := os.MkdirAll(filepath.Join(w.ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for f, body := range map[string]string{"pol/toolgate.rego": "package toolgate\n", "state/audit.jsonl": "{}\n", "keys/audit.key": w.canary + "\n"} {
		if err := os.WriteFile(filepath.Join(w.ws, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// a link to the policy: the mount follows it to the directory itself
	if err := os.Symlink("pol", filepath.Join(w.ws, "pol_link")); err != nil {
		t.Fatal(err)
	}
	s := box(t, w, func(c *Config) {
		seq(c)
		c.ReadOnly = []string{filepath.Join(w.ws, "pol_link"), filepath.Join(w.ws, "state/audit.jsonl"), filepath.Join(w.ws, "missing"), w.outside}
		c.Hidden = []string{filepath.Join(w.ws, "keys/audit.key")}
	})
	res := run(t, s, `echo x > pol/zz.rego; echo x >> pol/toolgate.rego; rm -f pol/toolgate.rego; : > state/audit.jsonl; rm -f state/audit.jsonl; mv pol gone; cat keys/audit.key; echo ok > new.txt; echo ok >> state/other.txt; echo DONE`)
	out := output(res)
	if !strings.Contains(out, "DONE") {
		t.Fatalf("the command did not finish: %s", out)
	}
	if strings.Contains(out, w.canary) {
		t.Errorf("the hidden key was read: %s", out)
	}
	for f, want := range map[string]string{"pol/toolgate.rego": "package toolgate\n", "state/audit.jsonl": "{}\n", "new.txt": "ok\n", "state/other.txt": "ok\n"} {
		if b, err := os.ReadFile(filepath.Join(w.ws, f)); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", f, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(w.ws, "pol/zz.rego")); err == nil {
		t.Error("a module was added to the read-only policy directory")
	}
	if b, err := os.ReadFile(filepath.Join(w.ws, "keys/audit.key")); err != nil || string(b) != w.canary+"\n" {
		t.Errorf("the key changed on the host: %q, %v", b, err)
	}
}

// TestPlantedAgentConfigIsUndone: a command in the box that writes the
// agent's config (Claude Code settings and hooks, .mcp.json) has the change
// moved aside and the previous content written back; other files under
// .claude are left alone.
func TestPlantedAgentConfigIsUndone(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, nil)
	claude := filepath.Join(w.ws, ".claude")
	if err := os.MkdirAll(claude, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(claude, "settings.json")
	if err := os.WriteFile(settings, []byte(`{"model":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, s, `echo '{"hooks":{"PreToolUse":[]}}' > .claude/settings.json && echo '{"mcpServers":{}}' > .mcp.json && mkdir -p .claude/commands && echo hi > .claude/commands/x.md`)
	if len(res.Notes) != 2 {
		t.Fatalf("want two notes, got %q", res.Notes)
	}
	if b, _ := os.ReadFile(settings); string(b) != `{"model":"x"}` {
		t.Errorf("settings.json not restored: %q", b)
	}
	if exists(filepath.Join(w.ws, ".mcp.json")) {
		t.Error(".mcp.json planted by the box is still in place")
	}
	if !exists(filepath.Join(claude, "commands", "x.md")) {
		t.Error("an unrelated file under .claude was touched")
	}
	// A .claude directory swapped for a link elsewhere is moved aside and
	// made again with the saved settings.
	res = run(t, s, `mkdir other && mv .claude old && ln -s other .claude && echo x > other/settings.json`)
	if fi, err := os.Lstat(claude); err != nil || !fi.IsDir() {
		t.Fatalf(".claude not made again: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(settings); string(b) != `{"model":"x"}` {
		t.Errorf("settings.json not restored after the swap: %q (%q)", b, res.Notes)
	}
	// Ordinary work leaves no note.
	if res = run(t, s, "echo ok > notes.txt"); len(res.Notes) != 0 {
		t.Errorf("ordinary command: %q", res.Notes)
	}
	// A skill planted deep in .claude/skills (its frontmatter may hold
	// hooks) and another agent's MCP servers are moved aside too.
	if err := os.MkdirAll(filepath.Join(claude, "skills", "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(claude, "skills", "old", "SKILL.md"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = run(t, s, `echo x > .claude/skills/old/SKILL.md && mkdir -p .cursor && echo '{"mcpServers":{}}' > .cursor/mcp.json`)
	if len(res.Notes) != 2 || exists(filepath.Join(w.ws, ".cursor", "mcp.json")) || exists(filepath.Join(claude, "skills", "old", "SKILL.md")) {
		t.Errorf("skill and .cursor/mcp.json not moved aside: %q", res.Notes)
	}
}

// On cgroup v2 bwrap is cloned into the cgroup. This host's controllers
// may all be on v1: the v2 hierarchy is mounted here on its own, which is
// enough to see where a process is born.
func TestBornInCgroupV2(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounting a cgroup2 hierarchy needs root")
	}
	mnt := t.TempDir()
	if err := syscall.Mount("none", mnt, "cgroup2", 0, ""); err != nil {
		t.Skipf("no cgroup2 here: %v", err)
	}
	defer syscall.Unmount(mnt, syscall.MNT_DETACH)
	dir := filepath.Join(mnt, fmt.Sprintf("toolgate-test-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(dir)
	cg := &boxCgroup{v2: true, dirs: []string{dir}}
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	started, born, err := cg.bornIn(cmd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = started.Process.Kill()
		_ = started.Wait()
	}()
	if !born {
		t.Fatal("not born in the cgroup")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs")); err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(started.Process.Pid) {
		t.Errorf("cgroup.procs: %q %v, want %d", b, err, started.Process.Pid)
	}
	if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", started.Process.Pid)); !strings.Contains(string(b), "(sleep)") {
		t.Errorf("the started command is not sleep: %q", b)
	}
}

// No process in a box makes a user namespace: inside one it would hold
// every capability over what it makes there.
func TestNoUserNamespaceInTheBox(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, nil)
	cmds := map[string]string{
		"unshare(1)": "unshare -U true && echo MADE",
		"unshare -r": "unshare -r id && echo MADE",
		"python":     `python3 -c 'import os; os.unshare(os.CLONE_NEWUSER); print("MADE")' 2>&1 || true`,
		"clone3":     `perl -e '$r = syscall(435, 0, 0); print "clone3=", $r, " ", $!+0, "\n"'`,
		"clone":      `perl -e '$r = syscall(56, 0x10000000|17, 0, 0, 0, 0); if ($r == 0) { exit 0 } print "clone=", $r, "\n"'`,
	}
	if runtime.GOARCH != "amd64" {
		delete(cmds, "clone3")
		delete(cmds, "clone")
	}
	for name, c := range cmds {
		out := output(run(t, s, c))
		switch {
		case strings.Contains(out, "MADE"):
			t.Errorf("%s: a user namespace was made: %s", name, out)
		case name == "clone3" && !strings.Contains(out, "clone3=-1 38"):
			t.Errorf("clone3 is not refused with ENOSYS: %s", out)
		case name == "clone" && !strings.Contains(out, "clone=-1"):
			t.Errorf("clone with CLONE_NEWUSER is not refused: %s", out)
		}
	}
	// Threads and processes are still made (libc falls back to clone).
	if out := output(run(t, s, `python3 -c 'import threading, subprocess; t = threading.Thread(target=print, args=("thread",)); t.start(); t.join(); subprocess.run(["echo", "child"])'`)); !strings.Contains(out, "thread") || !strings.Contains(out, "child") {
		t.Errorf("threads or children fail in the box: %s", out)
	}
}

// bothWays runs a test of the workspace's guards on a sandbox of the
// services (each box mounts them) and on a run's (Sequential: a host-root
// box binds the workspace staged with them, stage.go).
func bothWays(t *testing.T, test func(*testing.T, func(*Config))) {
	t.Run("each box", func(t *testing.T) { test(t, func(*Config) {}) })
	t.Run("sequential", func(t *testing.T) { test(t, func(c *Config) { c.Sequential = true }) })
}

// A run's sandbox on a view binds the workspace staged with its guards:
// one mount in the box, none of them on the host's workspace, and a new
// tree (so another command line) when the files they guard change.
func TestStagedWorkspace(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, func(c *Config) { c.Sequential = true })
	<-s.fixedDone
	if s.hostFS.view == nil {
		t.Skip("no view here: boxes mount their guards themselves")
	}
	source := func() string {
		t.Helper()
		args, err := s.args(Request{Command: "true"})
		if err != nil {
			t.Fatal(err)
		}
		src := ""
		for i := 0; i+2 < len(args); i++ {
			if args[i] == "--ro-bind" && within(args[i+2], w.ws) {
				t.Errorf("a guard on the command line: %q", args[i:i+3])
			}
			if args[i] == "--bind" && args[i+2] == w.ws {
				src = args[i+1]
			}
		}
		if !within(src, s.hostFS.view.dir) {
			t.Fatalf("the workspace is bound from %q, not from the staging directory", src)
		}
		return src
	}
	first := source()
	if again := source(); again != first {
		t.Errorf("staged again with nothing changed: %s, then %s", first, again)
	}
	for _, p := range mountPoints(t, nil) {
		if within(p, w.ws) {
			t.Errorf("a mount on the host's workspace: %s", p)
		}
	}
	// The hooks directory replaced on the host: staged anew, and guarded.
	hooks := filepath.Join(w.ws, ".git", "hooks")
	if err := os.RemoveAll(hooks); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	if next := source(); next == first {
		t.Error("the same tree after the hooks directory was replaced")
	}
	run(t, s, "echo x > .git/hooks/pre-commit; echo x > made.txt")
	if _, err := os.Stat(filepath.Join(hooks, "pre-commit")); err == nil {
		t.Error("a hook was written into the new hooks directory")
	}
	if _, err := os.Stat(filepath.Join(w.ws, "made.txt")); err != nil {
		t.Errorf("the box did not write the workspace: %v", err)
	}
	// Old trees are let go.
	for range stagedKept + 1 {
		cfg := filepath.Join(w.ws, ".git", "config")
		if err := os.Rename(cfg, cfg+".x"); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(cfg+".x", cfg); err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(w.ws, ".git", "config.new"), nil, 0o644)
		_ = os.Rename(filepath.Join(w.ws, ".git", "config.new"), cfg)
		source()
	}
	if n := len(s.stage.dirs); n != stagedKept {
		t.Errorf("%d staged trees attached, want %d", n, stagedKept)
	}
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("the first tree is still there: %v", err)
	}
}

// A root toolgate on a root-owned workspace runs the box as viewID, an id
// no one has (mappedBox): root's files in the workspace are its own there
// and what it makes is root's on disk, while on the host it gets no more
// than any user: no keys or timers of root's in /proc, no kernel settings,
// another user's workspace files only by their others' bits. None of
// that takes a mask: its command line has none in /proc.
func TestMappedBoxIsNoOnesOnTheHost(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, nil)
	<-s.fixedDone
	if !s.mapped {
		t.Skip("no mapped box here (toolgate is not root, or no idmapped mounts)")
	}
	theirs := filepath.Join(w.ws, "theirs.txt")
	if err := os.WriteFile(theirs, []byte("THEIRS\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 4321, 4321); err != nil {
		t.Fatal(err)
	}
	// Other owners' and groups' entries keep what their modes give: a
	// shared group's directory, another user's open one.
	shared, open := filepath.Join(w.ws, "shared"), filepath.Join(w.ws, "open")
	for d, ids := range map[string][3]int{shared: {0, 1000, 0o2775}, open: {1000, 1000, 0o777}} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, ids[0], ids[1]); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, os.FileMode(ids[2]&0o777)|os.ModeSetgid*os.FileMode(ids[2]>>10&1)); err != nil {
			t.Fatal(err)
		}
	}
	res := run(t, s, `id -u; touch made.txt && echo MADE; cat theirs.txt; echo x >> theirs.txt || echo NOWRITE
touch shared/a && echo SHARED; touch open/b && echo OPEN
cat /proc/keys /proc/key-users; cat /proc/timer_list >/dev/null 2>&1 || echo NOTIMERS
echo '|/bin/false' > /proc/sys/kernel/core_pattern 2>/dev/null || echo NOSYSCTL
touch .git/hooks/x 2>/dev/null || echo NOHOOK; ulimit -u`)
	procs := s.lim.Procs
	if s.cg != nil {
		procs *= 2 // the pids cgroup bounds it first
	}
	out := output(res)
	for _, want := range []string{"1000\n", "MADE", "THEIRS", "NOWRITE", "SHARED", "OPEN", "NOTIMERS", "NOSYSCTL", "NOHOOK", strconv.Itoa(procs)} {
		if !strings.Contains(out, want) {
			t.Errorf("box output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "_uid") || strings.Contains(out, "keyring") {
		t.Errorf("the box lists keys:\n%s", out)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(w.ws, "made.txt"), &st); err != nil || st.Uid != 0 || st.Gid != 0 {
		t.Errorf("a file the box made is %d:%d on disk (%v), want root's", st.Uid, st.Gid, err)
	}
	args, err := s.args(Request{Command: "true"})
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range args {
		if i > 0 && strings.HasPrefix(a, "/proc/") && args[i-1] != "--proc" {
			t.Errorf("the command line mounts over %s", a)
		}
	}
}

// The thread that sets a mapped box's rlimits holds viewID's ids, and the
// process (its main thread, what /proc/self shows) stays root.
func TestViewIDThreadKeepsItsIDsToItself(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("toolgate is not root")
	}
	th, err := viewIDThread()
	if err != nil {
		t.Skipf("no id thread here: %v", err)
	}
	var uid, euid int
	if !th.do(func() { uid, euid = syscall.Getuid(), syscall.Geteuid() }) {
		t.Fatal("the thread is gone")
	}
	if uid != viewID || euid != viewID {
		t.Errorf("the thread runs as %d/%d, want %d", uid, euid, viewID)
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\nUid:\t0\t0\t0\t0\n") {
		t.Errorf("the process is no longer root:\n%s", b)
	}
}
