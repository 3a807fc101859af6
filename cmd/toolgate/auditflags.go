package main

import (
	"crypto/ed25519"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/runner"
)

// auditFlags are the audit log settings of the commands that decide calls.
type auditFlags struct {
	path     string
	fsync    string
	key      string
	every    int64
	maxBytes int64
}

func (a *auditFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&a.path, "audit", "", "append every decision to the audit log `FILE` (default $TOOLGATE_AUDIT, else $XDG_STATE_HOME/toolgate/audit.jsonl or ~/.local/state/toolgate/audit.jsonl; \"none\" turns the log off)")
	f.StringVar(&a.fsync, "fsync", string(audit.FsyncAlways), "when audit records reach the disk: always (before the call goes on), batch, or never")
	f.StringVar(&a.key, "audit-key", os.Getenv("TOOLGATE_AUDIT_KEY"), "sign checkpoints with the Ed25519 private key `FILE` (default $TOOLGATE_AUDIT_KEY; see 'toolgate audit keygen')")
	f.Int64Var(&a.every, "checkpoint-every", 1000, "with --audit-key, append a signed checkpoint every `N` records (and on exit)")
	f.Int64Var(&a.maxBytes, "audit-max-bytes", 0, "rotate the audit log when it reaches `BYTES` (0: never); the new file's genesis continues the chain")
}

// logPath is the log the flags name: "" when it is turned off or no path
// can be found (open then says why).
func (a *auditFlags) logPath() string {
	switch a.path {
	case "none":
		return ""
	case "":
		p, err := audit.DefaultPath()
		if err != nil {
			return ""
		}
		return p
	}
	return a.path
}

// open opens the log (nil when turned off) and returns an Auditor for the
// front end source.
func (a *auditFlags) open(source string, g *gate.Gate, warn io.Writer) (*runner.Auditor, func() error, error) {
	path := a.path
	if path == "none" {
		fmt.Fprintln(warn, "toolgate: warning: --audit none: decisions are not recorded")
		return nil, func() error { return nil }, nil
	}
	if path == "" {
		p, err := audit.DefaultPath()
		if err != nil {
			return nil, nil, err
		}
		path = p
	}
	fs, err := audit.ParseFsync(a.fsync)
	if err != nil {
		return nil, nil, err
	}
	var key ed25519.PrivateKey
	if a.key != "" {
		if key, err = audit.LoadPrivateKey(a.key); err != nil {
			return nil, nil, fmt.Errorf("audit key: %w", err)
		}
	}
	l, err := audit.Open(audit.Options{Path: path, Fsync: fs, Key: key, CheckpointEvery: a.every, MaxBytes: a.maxBytes, Program: "toolgate " + source})
	if err != nil {
		return nil, nil, fmt.Errorf("audit log %s: %w", path, err)
	}
	au := &runner.Auditor{Log: l, Source: source, Policy: g.PolicyDigest(), Mask: runner.AuditMask(g.Policy().Config())}
	return au, l.Close, nil
}
