package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// daemon is a running `toolgate serve`, on a unix socket or (url) on
// loopback TCP.
type daemon struct {
	cmd    *exec.Cmd
	socket string
	url    string // http://127.0.0.1:PORT for a --listen daemon
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

var servingOn = regexp.MustCompile(`serving on (http://127\.0\.0\.1:\d+)`)

// startDaemon starts `toolgate serve` for the fixture workspace, on a unix
// socket in dir or, with tcp, on a free loopback port, and waits until it
// accepts connections. name keeps two daemons' files apart.
func (b *bench) startDaemon(tg, dir, name string, tcp bool) (*daemon, error) {
	d := &daemon{}
	errf, err := os.Create(filepath.Join(dir, name+".err"))
	if err != nil {
		return nil, err
	}
	defer errf.Close()
	where := []string{"--listen", "127.0.0.1:0"}
	if !tcp {
		d.socket = filepath.Join(dir, name+".sock")
		where = []string{"--socket", d.socket}
	}
	d.cmd = exec.Command(tg, append(append([]string{"serve"}, where...), "--workspace", b.ws, "--sandbox", "none",
		"--audit", filepath.Join(dir, name+"-audit.jsonl"))...)
	d.cmd.Dir, d.cmd.Env, d.cmd.Stderr = b.ws, b.env(), errf
	// Gone with us even if we are killed before stop runs.
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := d.cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if tcp {
			if msg, _ := os.ReadFile(errf.Name()); servingOn.Match(msg) {
				d.url = string(servingOn.FindSubmatch(msg)[1])
				return d, nil
			}
		} else if c, err := net.Dial("unix", d.socket); err == nil {
			c.Close()
			return d, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	d.stop()
	msg, _ := os.ReadFile(errf.Name())
	return nil, fmt.Errorf("toolgate serve did not come up within 30 s: %s", strings.TrimSpace(string(msg)))
}

// postHook posts the event to a --listen daemon's endpoint for Claude
// Code's http hooks, on a new connection, as a hook of "type": "http"
// does, and returns the answer's decision.
func postHook(client *http.Client, url string, event []byte) (string, error) {
	resp, err := client.Post(url+"/v1/hook/claude-code/http", "application/json", bytes.NewReader(event))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	ans, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("the http hook endpoint answered %d: %s", resp.StatusCode, ans)
	}
	return hookAnswer(ans)
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
	d, err := b.startDaemon(tg, dir, "serve", false)
	if err != nil {
		return err
	}
	defer d.stop()
	hd, err := b.startDaemon(tg, dir, "serve-http", true)
	if err != nil {
		return err
	}
	defer hd.stop()
	httpClient := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}

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
	runHTTP := func() (time.Duration, error) {
		start := time.Now()
		dec, err := postHook(httpClient, hd.url, event)
		took := time.Since(start)
		if err != nil {
			return 0, err
		}
		decisions[dec]++
		return took, nil
	}
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
	if _, err := runHTTP(); err != nil {
		return err
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		truePath = "/bin/true"
	}
	var spawn, help, cold, warm, thin, viaHTTP []float64
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
		},
		func(int) error {
			d, err := runHTTP()
			viaHTTP = append(viaHTTP, ms(d))
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
	s.add("Claude Code http hook: POST to a warm `serve --listen` (no process)", "ms", viaHTTP).vs("true", ratios(viaHTTP, spawn))
	s.note("event: Bash `ls -la` in the fixture workspace, CLAUDE_PROJECT_DIR set; answers checked each time (%s)", fmtDecisions(decisions))
	s.note("cold: --audit FILE (default --fsync always); daemon: toolgate serve --socket --sandbox none --audit FILE (fsync always), %d records written by it", served)
	s.note("`toolgate hook --help` starts the same binary (Go runtime and package init) and exits without loading a policy (plain --help is handed to toolgate-full by the small build)")
	s.note("toolgate-hook: the small client (cmd/toolgate-hook) that hands the event to the daemon's /v1/hook/claude-code")
	s.note("http hook: what a hook of \"type\": \"http\" costs, with no process per call: the event posted on a new loopback connection to /v1/hook/claude-code/http of a second daemon (serve --listen, same flags), the answer checked; not the issue's process-per-call measure")
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
