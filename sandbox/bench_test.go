package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
		t := time.Now()
		if err := cmd.Run(); err != nil {
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

// withoutFds drops toolgate's --info-fd and --block-fd and moves the
// seccomp filter to fd 3.
func withoutFds(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--info-fd", "--block-fd":
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
