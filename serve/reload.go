package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/gate"
)

// Rule ids of the audit records a reload writes (decision records with id
// ReloadID and tool ReloadTool: allow when the new policy was swapped in,
// deny when it was rejected; their policy is the digest kept in force).
const (
	RuleReloaded     = "policy.reloaded"
	RuleReloadFailed = "policy.reload_failed"
	ReloadID         = "policy-reload"
	ReloadTool       = "toolgate.policy"
)

// reloadTimeout bounds building a gate and running the policy's tests.
const reloadTimeout = 2 * time.Minute

// Reload builds a new gate with Options.Load, runs the policy's own Rego
// unit tests (as `toolgate policy test` does; a policy without tests skips
// this step), and swaps the gate in only when both succeed. Otherwise the
// policy in force stays, the rejection is logged and audited, and the error
// says why. trigger says what asked for the reload (for the log and audit
// record): "SIGHUP", "file change", ….
func (s *Server) Reload(ctx context.Context, trigger string) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, reloadTimeout)
	defer cancel()
	old := s.o.Runner.Gate()
	g, tests, err := s.candidate(ctx, old)
	candidate := ""
	if g != nil {
		candidate = g.PolicyDigest()
	}
	if err != nil {
		s.m.reload("rejected")
		msg := "the new policy was rejected and the one in force is kept: " + err.Error()
		s.logf("policy reload (%s) rejected; keeping %s: %v", trigger, old.PolicyDigest(), err)
		s.auditReload("deny", RuleReloadFailed, msg, old.PolicyDigest(), candidate, trigger)
		return err
	}
	s.o.Runner.SetGate(g)
	s.m.reload("ok")
	note := fmt.Sprintf("%d Rego tests passed", tests)
	if tests == 0 {
		note = "the policy has no Rego tests"
	}
	msg := fmt.Sprintf("policy %s replaced %s (%s)", g.PolicyDigest(), old.PolicyDigest(), note)
	if rev := g.PolicyRevision(); rev != "" {
		msg = fmt.Sprintf("policy %s (bundle revision %s) replaced %s (%s)", g.PolicyDigest(), rev, old.PolicyDigest(), note)
	}
	s.logf("policy reload (%s): %s", trigger, msg)
	s.auditReload("allow", RuleReloaded, msg, g.PolicyDigest(), candidate, trigger)
	return nil
}

// candidate builds and tests the gate a reload would swap in.
func (s *Server) candidate(ctx context.Context, old *gate.Gate) (*gate.Gate, int, error) {
	if s.o.Load == nil {
		return nil, 0, errors.New("this service cannot reload its policy")
	}
	g, err := s.o.Load(ctx)
	if err != nil {
		return nil, 0, err
	}
	if g.Workspace() != old.Workspace() {
		return g, 0, fmt.Errorf("the workspace now resolves to %s, not %s; restart the service to change it", g.Workspace(), old.Workspace())
	}
	n, err := testPolicy(ctx, g.Policy())
	return g, n, err
}

// testPolicy runs the policy's Rego unit tests and returns how many passed.
func testPolicy(ctx context.Context, p *gate.Policy) (int, error) {
	if len(p.Tests) == 0 {
		return 0, nil
	}
	results, err := p.Test(ctx, "")
	if err != nil {
		return 0, fmt.Errorf("running the policy's Rego tests: %w", err)
	}
	var fails []string
	for _, r := range results {
		if !r.Pass {
			fails = append(fails, fmt.Sprintf("%s (%s): %s", r.Name, r.File, r.Detail))
		}
	}
	if len(fails) > 0 {
		shown := fails
		if len(shown) > 5 {
			shown = shown[:5]
		}
		more := ""
		if len(fails) > len(shown) {
			more = fmt.Sprintf("; and %d more", len(fails)-len(shown))
		}
		return 0, fmt.Errorf("%d of %d Rego tests fail (see 'toolgate policy test'): %s%s", len(fails), len(results), strings.Join(shown, "; "), more)
	}
	return len(results), nil
}

// auditReload writes a reload as a decision record.
func (s *Server) auditReload(decision, rule, msg, digest, candidate, trigger string) {
	if s.o.Audit == nil || s.o.Audit.Log == nil {
		return
	}
	args := map[string]string{"trigger": trigger}
	if candidate != "" {
		args["candidate"] = candidate
	}
	raw, _ := json.Marshal(args)
	if len(msg) > 4000 {
		msg = msg[:4000] + "…"
	}
	_, err := s.o.Audit.Log.Append(audit.Record{
		Kind: audit.KindDecision, ID: ReloadID, Tool: ReloadTool, Source: s.o.Audit.Source, Args: raw,
		Decision: decision, Reasons: []audit.Reason{{Rule: rule, Message: audit.Redact(msg)}}, Policy: digest,
	})
	if err != nil {
		s.logf("warning: the policy reload could not be written to the audit log: %v", err)
	}
}

// DefaultWatchInterval is how often Watch looks at the policy files.
const DefaultWatchInterval = 2 * time.Second

// maxWatched bounds the files looked at in one poll.
const maxWatched = 10000

// Watch polls the files of Options.Watch (the .rego, .json, .yaml and .yml
// files of its directories, hidden ones skipped as the policy loader does,
// and the data files themselves) every interval, and reloads when their
// names, sizes, modification times or inodes change. A change is acted on
// once the files have been still for a moment, so an editor's save in
// several writes gives one reload. It returns when ctx ends or the server
// has shut down.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	var dirs []string
	for _, p := range s.o.Watch {
		if p != gate.Builtin {
			dirs = append(dirs, p)
		}
	}
	if len(dirs) == 0 {
		return
	}
	last := fingerprint(dirs)
	t := time.NewTicker(interval)
	defer t.Stop()
	settle := min(interval/4, 250*time.Millisecond)
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-t.C:
		}
		now := fingerprint(dirs)
		if now == last {
			continue
		}
		time.Sleep(settle)
		if fingerprint(dirs) != now {
			continue // still being written; look again next tick
		}
		last = now
		if ctx.Err() != nil {
			return
		}
		s.Reload(ctx, "file change")
	}
}

// fingerprint describes the watched files: one line per file.
func fingerprint(paths []string) string {
	var b strings.Builder
	n := 0
	stamp := func(p string) {
		st, err := os.Stat(p) // through symlinks: a swapped link target is a change
		if err != nil {
			fmt.Fprintf(&b, "%s !%v\n", p, err)
			return
		}
		var ino uint64
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			ino = sys.Ino
		}
		fmt.Fprintf(&b, "%s %d %d %d %v\n", p, st.Size(), st.ModTime().UnixNano(), ino, st.Mode())
	}
	for _, root := range paths {
		st, err := os.Stat(root)
		if err != nil || !st.IsDir() {
			stamp(root)
			continue
		}
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				fmt.Fprintf(&b, "%s !%v\n", p, err)
				return nil
			}
			if p != root && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() || !policyFile(d.Name()) {
				return nil
			}
			if n++; n > maxWatched {
				return filepath.SkipAll
			}
			stamp(p)
			return nil
		})
	}
	return b.String()
}

func policyFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".rego", ".json", ".yaml", ".yml":
		return true
	}
	return false
}
