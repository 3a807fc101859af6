package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// hookAnswer checks a Claude Code hook answer and returns its decision.
func hookAnswer(b []byte) (string, error) {
	var a struct {
		HookSpecificOutput struct {
			HookEventName      string `json:"hookEventName"`
			PermissionDecision string `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return "", fmt.Errorf("the hook's answer is not JSON: %v: %q", err, lastBytes(b, 300))
	}
	h := a.HookSpecificOutput
	if h.HookEventName != "PreToolUse" {
		return "", fmt.Errorf("the hook's answer has hookEventName %q: %q", h.HookEventName, lastBytes(b, 300))
	}
	switch h.PermissionDecision {
	case "allow", "deny", "ask":
		return h.PermissionDecision, nil
	}
	return "", fmt.Errorf("the hook's answer has permissionDecision %q", h.PermissionDecision)
}

// daemon is a running `toolgate serve --socket`.
type daemon struct {
	cmd    *exec.Cmd
	socket string
}

func (d *daemon) stop() {
	if d == nil || d.cmd == nil || d.cmd.Process == nil {
		return
	}
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = d.cmd.Process.Kill()
		<-done
	}
}

// startDaemon starts `toolgate serve --socket` for the fixture workspace
// and waits until it accepts connections.
func (b *bench) startDaemon(tg, dir string) (*daemon, error) {
	d := &daemon{socket: filepath.Join(dir, "toolgate.sock")}
	errf, err := os.Create(filepath.Join(dir, "serve.err"))
	if err != nil {
		return nil, err
	}
	defer errf.Close()
	d.cmd = exec.Command(tg, "serve", "--socket", d.socket, "--workspace", b.ws, "--sandbox", "none",
		"--audit", filepath.Join(dir, "serve-audit.jsonl"))
	d.cmd.Dir, d.cmd.Env, d.cmd.Stderr = b.ws, b.env(), errf
	// Gone with us even if we are killed before stop runs.
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := d.cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("unix", d.socket); err == nil {
			c.Close()
			return d, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	d.stop()
	msg, _ := os.ReadFile(errf.Name())
	return nil, fmt.Errorf("toolgate serve --socket did not come up within 30 s: %s", strings.TrimSpace(string(msg)))
}

// rowHook: row 4. One `toolgate hook claude-code` process per call, cold
// and with a warm daemon, against the spawn of trivial processes.
func (b *bench) rowHook(s *section) error {
	tg, err := b.toolgate()
	if err != nil {
		return skip{fmt.Sprintf("no toolgate binary: %v", err)}
	}
	dir := filepath.Join(b.tmp, "hook")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	event, err := json.Marshal(map[string]any{
		"session_id": "s", "transcript_path": "/tmp/t", "cwd": b.ws, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "ls -la"},
	})
	if err != nil {
		return err
	}
	eventFile := filepath.Join(dir, "event.json")
	if err := os.WriteFile(eventFile, event, 0o644); err != nil {
		return err
	}
	d, err := b.startDaemon(tg, dir)
	if err != nil {
		return err
	}
	defer d.stop()

	out, errf := filepath.Join(dir, "out.json"), filepath.Join(dir, "err.txt")
	env := b.env("CLAUDE_PROJECT_DIR=" + b.ws)
	coldAudit := filepath.Join(dir, "hook-audit.jsonl")
	client, clientErr := b.hookClient()
	hook := func(daemon bool) proc {
		args := []string{"hook", "claude-code"}
		if daemon {
			args = append(args, "--socket", d.socket)
		} else {
			args = append(args, "--audit", coldAudit)
		}
		return proc{path: tg, args: args, dir: b.ws, env: env, stdin: eventFile, stdout: out, stderr: errf}
	}
	decisions := map[string]int{}
	var runProc func(p proc, daemon bool) (time.Duration, error)
	runHook := func(daemon bool) (time.Duration, error) {
		return runProc(hook(daemon), daemon)
	}
	runClient := func() (time.Duration, error) {
		return runProc(proc{path: client, args: []string{"claude-code", "--socket", d.socket}, dir: b.ws, env: env, stdin: eventFile, stdout: out, stderr: errf}, true)
	}
	runProc = func(p proc, daemon bool) (time.Duration, error) {
		o, err := p.mustSucceed(p.run())
		if err != nil {
			return 0, err
		}
		ans, err := os.ReadFile(out)
		if err != nil {
			return 0, err
		}
		dec, err := hookAnswer(ans)
		if err != nil {
			return 0, err
		}
		decisions[dec]++
		if daemon {
			if msg, _ := os.ReadFile(errf); strings.Contains(string(msg), "did not decide") {
				return 0, fmt.Errorf("the daemon did not answer the hook: %s", strings.TrimSpace(string(msg)))
			}
		}
		return o.wall, nil
	}
	// One of each first (not timed): the daemon's first request, the page
	// cache, the audit file.
	for _, warm := range []bool{true, false} {
		if _, err := runHook(warm); err != nil {
			return err
		}
	}
	if clientErr == nil {
		if _, err := runClient(); err != nil {
			return err
		}
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		truePath = "/bin/true"
	}
	var spawn, help, cold, warm, thin []float64
	timed := func(p proc, dst *[]float64) func(int) error {
		return func(int) error {
			o, err := p.mustSucceed(p.run())
			*dst = append(*dst, ms(o.wall))
			return err
		}
	}
	err = interleave(b.sz.HookReps,
		timed(proc{path: truePath, dir: b.ws, env: env}, &spawn),
		timed(proc{path: tg, args: []string{"hook", "--help"}, dir: b.ws, env: env, stdout: filepath.Join(dir, "help.txt")}, &help),
		func(int) error {
			d, err := runHook(false)
			cold = append(cold, ms(d))
			return err
		},
		func(int) error {
			d, err := runHook(true)
			warm = append(warm, ms(d))
			return err
		},
		func(int) error {
			if clientErr != nil {
				return nil
			}
			d, err := runClient()
			thin = append(thin, ms(d))
			return err
		})
	if err != nil {
		return err
	}
	served, _ := countLines(filepath.Join(dir, "serve-audit.jsonl"))
	s.add("spawn + wait of `true` (machine floor)", "ms", spawn)
	s.add("`toolgate hook --help` (binary start floor)", "ms", help).vs("true", ratios(help, spawn))
	s.add("`toolgate hook --socket` with a warm `serve --socket` daemon", "ms", warm).vs("true", ratios(warm, spawn))
	if clientErr == nil {
		s.add("`toolgate-hook` with the warm daemon", "ms", thin).vs("true", ratios(thin, spawn)).atMost(5)
	} else {
		s.note("toolgate-hook not measured: %v", clientErr)
	}
	s.add("hook cold (no daemon: loads the policy)", "ms", cold).vs("daemon", ratios(cold, warm)).atMost(30)
	s.note("event: Bash `ls -la` in the fixture workspace, CLAUDE_PROJECT_DIR set; answers checked each time (%s)", fmtDecisions(decisions))
	s.note("cold: --audit FILE (default --fsync always); daemon: toolgate serve --socket --sandbox none --audit FILE (fsync always), %d records written by it", served)
	s.note("`toolgate hook --help` starts the same binary (Go runtime and package init) and exits without loading a policy (plain --help is handed to toolgate-full by the small build)")
	s.note("toolgate-hook: the small client (cmd/toolgate-hook) that hands the event to the daemon's /v1/hook/claude-code")
	return nil
}

func fmtDecisions(m map[string]int) string {
	var parts []string
	for _, k := range []string{"allow", "ask", "deny"} {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	return strings.Join(parts, ", ")
}
