package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/sandbox"
)

// bareArgs is the minimal bubblewrap baseline of row 3.
var bareArgs = []string{"--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "true"}

// captured is the command line toolgate gave bwrap for one run, and the
// seccomp filter it passed on a descriptor.
type captured struct {
	args    []string
	seccomp []byte
}

// recorder is a shell script that stands in for bwrap on PATH: it saves
// its arguments (and the seccomp filter toolgate passes on a descriptor)
// and then executes the real bwrap with the same descriptors. toolgate
// finds bwrap on PATH, so this is how the benchmark learns the exact
// command line toolgate builds without reaching into the sandbox package.
const recorder = `#!/bin/sh
n=$$
printf '%%s\0' "$@" > %[1]s/args.$n
prev=
fd=
for a in "$@"; do
	[ "$prev" = --seccomp ] && fd=$a
	prev=$a
done
if [ -n "$fd" ]; then
	eval "cat <&$fd" > %[1]s/seccomp.$n
	eval "exec $fd< %[1]s/seccomp.$n"
fi
exec %[2]s "$@"
`

// captureCommandLine runs `toolgate run` once with the recorder first on
// PATH and returns the command line of the run of `true`.
func (b *bench) captureCommandLine(tg, bwrap, input string) (captured, error) {
	dir := filepath.Join(b.tmp, "recorder")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return captured{}, err
	}
	// bwrap may run as another id than the bench's (sandbox's mapped box).
	if err := os.Chmod(dir, 0o1777); err != nil {
		return captured{}, err
	}
	script := fmt.Sprintf(recorder, shellQuote(dir), shellQuote(bwrap))
	if err := os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755); err != nil {
		return captured{}, err
	}
	env := b.env()
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + dir + ":" + v
		}
	}
	p := proc{path: tg, args: []string{"run", "--audit", "none", "--workspace", b.ws}, dir: b.ws, env: env, stdin: input,
		stdout: filepath.Join(dir, "out.jsonl"), stderr: filepath.Join(dir, "err.txt")}
	if _, err := p.mustSucceed(p.run()); err != nil {
		return captured{}, err
	}
	names, _ := filepath.Glob(filepath.Join(dir, "args.*"))
	for _, name := range names {
		raw, err := os.ReadFile(name)
		if err != nil {
			return captured{}, err
		}
		args := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
		if len(args) == 0 || args[len(args)-1] != "true" {
			continue // the start-up check's "exit 0"
		}
		c := captured{args: args}
		if sc, err := os.ReadFile(filepath.Join(dir, "seccomp."+strings.TrimPrefix(filepath.Ext(name), "."))); err == nil {
			c.seccomp = sc
		}
		return c, nil
	}
	return captured{}, fmt.Errorf("the recorder saw no bwrap run of `true` (%d runs)", len(names))
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// replayArgs drops toolgate's --info-fd, --block-fd and --sync-fd
// (nothing outside waits on the box) and moves the seccomp filter to fd 3. A host-root
// box's idmapped views of the system directories and its staged
// workspace are gone with the toolgate that made them; the replay binds
// the directories themselves, and a workspace staged the same way (the
// same number of mounts).
func replayArgs(args []string, root, ws string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--bind" && i+2 < len(args) && strings.Contains(args[i+1], "/toolgate/view-") && ws != "" {
			// the workspace staged with its guards (sandbox/stage.go)
			out = append(out, "--bind", ws, args[i+2])
			i += 2
			continue
		}
		if args[i] == "--dev-bind" && i+2 < len(args) && strings.Contains(args[i+1], "/toolgate/view-") && args[i+2] == "/" && root != "" {
			out = append(out, "--dev-bind", root, "/")
			i += 2
			continue
		}
		if args[i] == "--ro-bind" && i+2 < len(args) && strings.Contains(args[i+1], "/toolgate/view-") {
			out = append(out, "--ro-bind", args[i+2], args[i+2])
			i += 2
			continue
		}
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

// runRecords parses `toolgate run` output and checks every call ran in
// the box and succeeded; it returns the boxes' own durations (ms).
func runRecords(path string, want int) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var durs []float64
	for sc.Scan() {
		var r struct {
			Decision   string   `json:"decision"`
			ExitCode   *int     `json:"exit_code"`
			Sandbox    string   `json:"sandbox"`
			DurationMS *float64 `json:"duration_ms"`
			Output     string   `json:"output"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("run output is not JSON: %v", err)
		}
		if r.Decision != "allow" || r.ExitCode == nil || *r.ExitCode != 0 || r.Sandbox != "bwrap" {
			return nil, fmt.Errorf("exec true did not run in the box: %s", sc.Text())
		}
		if r.DurationMS != nil {
			durs = append(durs, *r.DurationMS)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(durs) != want {
		return nil, fmt.Errorf("toolgate run wrote %d records for %d calls", len(durs), want)
	}
	return durs, nil
}

// rowSandbox: row 3. exec `true` through `toolgate run` (N calls in one
// process, and one call per process) against bare bubblewrap and against
// bubblewrap given toolgate's own command line.
func (b *bench) rowSandbox(s *section) error {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return skip{"bubblewrap (bwrap) is not installed (scripts/ensure-bwrap.sh installs it as root)"}
	}
	if out, err := exec.Command(bwrap, bareArgs...).CombinedOutput(); err != nil {
		return skip{fmt.Sprintf("bwrap cannot make a sandbox here: %v: %s", err, strings.TrimSpace(string(out)))}
	}
	tg, err := b.toolgate()
	if err != nil {
		return skip{fmt.Sprintf("no toolgate binary: %v", err)}
	}
	dir := filepath.Join(b.tmp, "sandbox")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	n := b.sz.SandboxCalls
	var many, one bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&many, `{"id":"t%d","name":"exec","arguments":{"command":"true"}}`+"\n", i)
	}
	one.WriteString(`{"id":"t0","name":"exec","arguments":{"command":"true"}}` + "\n")
	manyIn, oneIn := filepath.Join(dir, "many.jsonl"), filepath.Join(dir, "one.jsonl")
	if err := os.WriteFile(manyIn, many.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(oneIn, one.Bytes(), 0o644); err != nil {
		return err
	}

	same, capErr := b.captureCommandLine(tg, bwrap, oneIn)
	var sameArgs []string
	if capErr == nil {
		// A host-root box binds its view's root, gone with the toolgate
		// that made it: the replay binds one made the same way.
		root := ""
		if os.Getuid() == 0 && slices.Contains(same.args, "--dev-bind") {
			root = filepath.Join(dir, "replay-root")
			if err := os.MkdirAll(root, 0o755); err == nil {
				if remove, err := sandbox.ReplayRoot(root); err == nil {
					defer remove()
				} else {
					root = ""
				}
			}
		}
		// So is the workspace it staged with its guards.
		ws := ""
		for i := 0; i+2 < len(same.args); i++ {
			if same.args[i] == "--bind" && strings.Contains(same.args[i+1], "/toolgate/view-") && os.Getuid() == 0 {
				ws = filepath.Join(dir, "replay-ws")
				if remove, err := sandbox.ReplayWorkspace(ws, same.args[i+2]); err == nil {
					defer remove()
				} else {
					ws = ""
				}
			}
		}
		sameArgs = replayArgs(same.args, root, ws)
	}
	runSame := func() (time.Duration, error) {
		p := proc{path: bwrap, args: sameArgs, dir: "/", env: []string{}}
		if same.seccomp != nil {
			r, w, err := os.Pipe()
			if err != nil {
				return 0, err
			}
			_, werr := w.Write(same.seccomp)
			w.Close()
			defer r.Close()
			if werr != nil {
				return 0, werr
			}
			p.extra = []*os.File{r}
		}
		p.stderr = filepath.Join(dir, "same.err")
		o, err := p.mustSucceed(p.run())
		return o.wall, err
	}
	if capErr == nil {
		if _, err := runSame(); err != nil {
			capErr = fmt.Errorf("replaying it failed: %v", err)
		}
	}
	bareEnv := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	runBare := func() (time.Duration, error) {
		p := proc{path: bwrap, args: bareArgs, dir: "/", env: bareEnv, stderr: filepath.Join(dir, "bare.err")}
		o, err := p.mustSucceed(p.run())
		return o.wall, err
	}
	// A workspace with nothing in it: no repository, so no git guards to
	// mount (the fixture's workspace is a repository).
	plain := filepath.Join(dir, "plain-ws")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		return err
	}
	runTGLog := func(ws, input string, calls int, audit string) (time.Duration, []float64, error) {
		out := filepath.Join(dir, "run.jsonl")
		if audit != "none" {
			_ = os.Remove(audit) // a fresh log each run
		}
		p := proc{path: tg, args: []string{"run", "--audit", audit, "--workspace", ws}, dir: ws, env: b.env(),
			stdin: input, stdout: out, stderr: filepath.Join(dir, "run.err")}
		o, err := p.mustSucceed(p.run())
		if err != nil {
			return 0, nil, err
		}
		durs, err := runRecords(out, calls)
		return o.wall, durs, err
	}
	runTGIn := func(ws, input string, calls int) (time.Duration, []float64, error) {
		return runTGLog(ws, input, calls, "none")
	}
	runTG := func(input string, calls int) (time.Duration, []float64, error) { return runTGIn(b.ws, input, calls) }
	auditLog := filepath.Join(dir, "run-audit.jsonl")
	// loop times k runs of f, one after the other, and returns ms per run.
	loop := func(k int, f func() (time.Duration, error)) (float64, error) {
		var total time.Duration
		for i := 0; i < k; i++ {
			d, err := f()
			if err != nil {
				return 0, err
			}
			total += d
		}
		return ms(total) / float64(k), nil
	}

	// Many calls per process, interleaved with as many bare runs.
	var tgMany, tgPlain, tgOne, tgAudit, bareMany, sameMany, boxMs []float64
	variants := []func(int) error{
		func(int) error {
			d, _, err := runTGLog(b.ws, manyIn, n, auditLog)
			tgAudit = append(tgAudit, ms(d)/float64(n))
			return err
		},
		func(int) error {
			d, durs, err := runTG(manyIn, n)
			tgMany = append(tgMany, ms(d)/float64(n))
			boxMs = append(boxMs, median(durs))
			return err
		},
		func(int) error {
			d, _, err := runTGIn(plain, manyIn, n)
			tgPlain = append(tgPlain, ms(d)/float64(n))
			return err
		},
		func(int) error {
			d, _, err := runTG(oneIn, 1)
			tgOne = append(tgOne, ms(d))
			return err
		},
		func(int) error {
			v, err := loop(n, runBare)
			bareMany = append(bareMany, v)
			return err
		},
	}
	if capErr == nil {
		variants = append(variants, func(int) error {
			v, err := loop(n, runSame)
			sameMany = append(sameMany, v)
			return err
		})
	}
	if err := interleave(b.sz.SandboxReps, variants...); err != nil {
		return err
	}
	// One call per process, interleaved one for one.
	var oneTG, oneBare, oneSame []float64
	variants = []func(int) error{
		func(int) error {
			d, _, err := runTG(oneIn, 1)
			oneTG = append(oneTG, ms(d))
			return err
		},
		func(int) error {
			d, err := runBare()
			oneBare = append(oneBare, ms(d))
			return err
		},
	}
	if capErr == nil {
		variants = append(variants, func(int) error {
			d, err := runSame()
			oneSame = append(oneSame, ms(d))
			return err
		})
	}
	if err := interleave(b.sz.SandboxOne, variants...); err != nil {
		return err
	}
	// The steady-state cost of a call: the N-call process less the
	// one-call process of the same round, over N-1 calls.
	marginal := make([]float64, len(tgMany))
	for i := range tgMany {
		marginal[i] = (tgMany[i]*float64(n) - tgOne[i]) / float64(n-1)
	}

	sn := strconv.Itoa(n)
	s.add("bare bwrap `true` (baseline), per run", "ms", bareMany)
	if capErr == nil {
		s.add("bwrap with toolgate's command line, per run", "ms", sameMany).vs("bare", ratios(sameMany, bareMany))
	}
	s.add("toolgate run, "+sn+" calls in 1 process, per call", "ms", tgMany).vs("bare", ratios(tgMany, bareMany)).ratioAtMost(1.15)
	if capErr == nil {
		s.add("  same, vs bwrap with toolgate's command line", "ms", tgMany).vs("same-cmd", ratios(tgMany, sameMany))
	}
	s.add("  same, in a workspace that is no repository", "ms", tgPlain).vs("bare", ratios(tgPlain, bareMany))
	s.add("  same, with the audit log (--fsync always, the default)", "ms", tgAudit).vs("bare", ratios(tgAudit, bareMany))
	s.add("toolgate run, per call, process start taken out", "ms", marginal).vs("bare", ratios(marginal, bareMany))
	if capErr == nil {
		s.add("  same, vs bwrap with toolgate's command line", "ms", marginal).vs("same-cmd", ratios(marginal, sameMany))
	}
	s.add("box time inside toolgate run (its duration_ms)", "ms", boxMs)
	s.add("toolgate run, 1 call per process", "ms", oneTG).vs("bare", ratios(oneTG, oneBare))
	if capErr == nil {
		s.add("  same, vs bwrap with toolgate's command line", "ms", oneTG).vs("same-cmd", ratios(oneTG, oneSame))
	}
	s.add("bare bwrap `true`, 1 run (paired with the above)", "ms", oneBare)
	if capErr == nil {
		s.add("bwrap with toolgate's command line, 1 run", "ms", oneSame)
	}
	s.note("bare = bwrap %s", strings.Join(bareArgs, " "))
	if capErr == nil {
		s.note("toolgate's command line (%d arguments, recorded by a bwrap stand-in on PATH; --info-fd/--block-fd/--sync-fd dropped, seccomp %d bytes on fd 3): bwrap %s",
			len(sameArgs), len(same.seccomp), strings.Join(abbreviate(sameArgs), " "))
	} else {
		s.note("no baseline with toolgate's command line: %v", capErr)
	}
	s.note("toolgate run --audit none --workspace FIXTURE; %s exec `true` calls per process (process start, policy load and the sandbox check amortized), %d rounds; 1-call processes %d rounds",
		sn, b.sz.SandboxReps, b.sz.SandboxOne)
	s.note("\"process start taken out\" = (time of the %s-call process - time of the 1-call process in the same round) / %d", sn, n-1)
	return nil
}

// abbreviate shortens toolgate's command line for a note: environment
// settings and mounts are counted, the rest is shown.
func abbreviate(args []string) []string {
	two := []string{"--setenv", "--ro-bind", "--bind", "--ro-bind-try", "--bind-try", "--dev-bind", "--symlink"}
	one := []string{"--tmpfs", "--dir", "--dev", "--proc", "--remount-ro", "--mqueue", "--perms", "--size"}
	var out, tail []string
	env, mounts := 0, 0
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--":
			tail = args[i:]
			i = len(args)
		case slices.Contains(two, args[i]):
			if args[i] == "--setenv" {
				env++
			} else {
				mounts++
			}
			i += 2
		case slices.Contains(one, args[i]):
			if args[i] != "--perms" && args[i] != "--size" {
				mounts++
			}
			i++
		default:
			out = append(out, args[i])
		}
	}
	out = append(out, fmt.Sprintf("[%d --setenv, %d mount options]", env, mounts))
	return append(out, tail...)
}
