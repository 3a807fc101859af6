package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSandboxVsBare runs `true` through Sandbox.Run and through a bare
// bwrap with the very same command line (minus toolgate's --info-fd and
// --block-fd), alternating the two in one loop so both see the same machine
// load. It reports each one's median and the overhead of toolgate's
// plumbing: cgroup set-up, rlimits, the blocked start, bounded capture.
//
//	go test ./sandbox -run x -bench SandboxVsBare -benchtime 200x
func BenchmarkSandboxVsBare(b *testing.B) {
	ws := b.TempDir()
	s, err := New(Config{Workspace: ws, Home: filepath.Join(ws, "home"), Timeout: 20 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Check(context.Background()); err != nil {
		b.Skipf("bubblewrap cannot run here: %v", err)
	}
	args, err := s.args(Request{Command: "true"})
	if err != nil {
		b.Fatal(err)
	}
	bare := withoutFds(args)
	minimal := []string{"--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", s.bash, "-c", "true"}
	runBare := func(a []string) time.Duration {
		cmd := exec.Command(s.bwrap, a...)
		cmd.Env = []string{}
		if slices.Contains(a, "--seccomp") {
			// The same filter, on fd 3, so the baseline pays for it too.
			r, w, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			w.Write(s.seccomp)
			w.Close()
			defer r.Close()
			cmd.ExtraFiles = []*os.File{r}
		}
		// As a box: in toolgate's mount namespace, where the command
		// line's view paths are, and as the box's host user.
		if s.cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
		}
		var err error
		t := time.Now()
		if !s.hostFS.view.mountNS().do(func() { err = cmd.Start() }) {
			err = errGone
		}
		if err == nil {
			err = cmd.Wait()
		}
		if err != nil {
			b.Fatalf("bare bwrap: %v", err)
		}
		return time.Since(t)
	}
	ctx := context.Background()
	var tg, bw, min []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		res, err := s.Run(ctx, Request{Command: "true"})
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("sandbox: %v %+v", err, res)
		}
		tg = append(tg, time.Since(t))
		bw = append(bw, runBare(bare))
		min = append(min, runBare(minimal))
	}
	b.StopTimer()
	mt, mb, mm := median(tg), median(bw), median(min)
	b.ReportMetric(float64(mt.Microseconds())/1000, "toolgate-ms")
	b.ReportMetric(float64(mb.Microseconds())/1000, "bare-ms")
	b.ReportMetric(float64(mm.Microseconds())/1000, "minimal-ms")
	b.ReportMetric(100*(float64(mt)/float64(mb)-1), "overhead-%")
}

// withoutFds drops toolgate's --info-fd, --block-fd and --sync-fd and
// moves the seccomp filter to fd 3.
func withoutFds(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--info-fd", "--block-fd", "--sync-fd":
			i++
			continue
		case "--seccomp":
			out = append(out, "--seccomp", "3")
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkSandboxAhead runs `true` one command after another as `toolgate
// run` does with a stream, the next two boxes made ahead while each one
// runs, in batches alternating with batches of a bare bwrap `true`: the
// regression benchmark of row 3's 50-call figure.
//
//	go test ./sandbox -run x -bench SandboxAhead -benchtime 200x
func BenchmarkSandboxAhead(b *testing.B) {
	ws := b.TempDir()
	s, err := New(Config{Workspace: ws, Home: filepath.Join(ws, "home"), Timeout: 20 * time.Second, Sequential: true, Mask: benchMasks})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Check(context.Background()); err != nil {
		b.Skipf("bubblewrap cannot run here: %v", err)
	}
	req := Request{Command: "true"}
	bare := []string{"--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "true"}
	ctx := context.Background()
	const batch = 10
	var tg, bw []time.Duration
	warm := 0
	b.ResetTimer()
	for done := 0; done < b.N; done += batch {
		t := time.Now()
		for k := 0; k < batch; k++ {
			for warmCount(s) < maxWarm && s.Prestart(req) != 0 {
			}
			if warmCount(s) > 0 {
				warm++
			}
			if res, err := s.Run(ctx, req); err != nil || res.ExitCode != 0 {
				b.Fatalf("sandbox: %v %+v", err, res)
			}
		}
		tg = append(tg, time.Since(t)/batch)
		t = time.Now()
		for k := 0; k < batch; k++ {
			cmd := exec.Command(s.bwrap, bare...)
			cmd.Env = []string{}
			if err := cmd.Run(); err != nil {
				b.Fatalf("bare bwrap: %v", err)
			}
		}
		bw = append(bw, time.Since(t)/batch)
	}
	b.StopTimer()
	s.DiscardPrestarted()
	if warm == 0 {
		b.Fatal("no box was made ahead")
	}
	mt, mb := median(tg), median(bw)
	b.ReportMetric(float64(mt.Microseconds())/1000, "toolgate-ms")
	b.ReportMetric(float64(mb.Microseconds())/1000, "bare-ms")
	b.ReportMetric(float64(mt)/float64(mb), "x-bare")
}

// benchMasks are secret paths under the system directories, as a policy
// lists them (the default policy's sensitive paths there).
var benchMasks = []string{"/etc/shadow*", "/etc/gshadow*", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh/ssh_host_*_key", "/etc/ssl/private", "/etc/apt/auth.conf.d", "/etc/security/opasswd"}
