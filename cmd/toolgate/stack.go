package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/runner"
	"github.com/toolgate/toolgate/sandbox"
	"github.com/toolgate/toolgate/tools"
)

// execFlags are the flags of the commands that execute calls (run, mcp,
// serve).
type execFlags struct {
	audit      auditFlags
	timeout    int
	sandbox    string
	approve    string
	pathAppend []string
	env        []string
}

func (x *execFlags) register(cmd *cobra.Command, approveDefault, approveHelp string) {
	x.audit.register(cmd)
	f := cmd.Flags()
	f.IntVar(&x.timeout, "timeout", int(tools.ExecTimeout/time.Second), "seconds an exec command may run before its sandbox is killed")
	f.StringVar(&x.sandbox, "sandbox", string(sandbox.ModeBwrap), "how exec runs: bwrap, or none (unsandboxed, trusted machines only)")
	f.StringVar(&x.approve, "approve", approveDefault, approveHelp)
	f.StringArrayVar(&x.pathAppend, "path-append", nil, "append `DIR` to PATH inside the sandbox; repeatable")
	f.StringArrayVar(&x.env, "env", nil, "pass the host variable `NAME` into the sandbox besides the default allow-list; repeatable")
}

// settings checks the flags before anything is opened.
func (x *execFlags) settings() (sandbox.Mode, runner.Approve, error) {
	if x.timeout <= 0 || x.timeout > 24*3600 {
		return "", "", fmt.Errorf("--timeout must be between 1 and 86400 seconds, got %d", x.timeout)
	}
	mode, err := sandbox.ParseMode(x.sandbox)
	if err != nil {
		return "", "", err
	}
	approve, err := runner.ParseApprove(x.approve)
	if err != nil {
		return "", "", err
	}
	return mode, approve, nil
}

// stack is what a command that executes calls holds: the sandbox, the file
// tools, the audit log and the runner over them and the gate.
type stack struct {
	sb    *sandbox.Sandbox
	files *tools.Workspace
	au    *runner.Auditor
	r     *runner.Runner
	// close releases everything (the audit log's closing checkpoint
	// included) and says whether the log closed cleanly. A signal runs it
	// too.
	close func() error
}

// execUse says whether a front end runs exec calls, and when the sandbox
// is first tried.
type execUse int

const (
	noExec execUse = iota // nothing runs in the sandbox (mcp --upstream, the hook)
	// execOnDemand: the first command finds out whether boxes can be made
	// (and a refusal says why): a run is often one call, and a probe box
	// first would double its cost. Its exec calls run one at a time.
	execOnDemand
	execProbeAtStart // a service probes at start, to warn early
)

// openSandbox makes the sandbox exec calls run in and warns on errOut if
// they will be refused or run unsandboxed.
func (x *execFlags) openSandbox(ctx context.Context, g *gate.Gate, mode sandbox.Mode, use execUse, errOut io.Writer) (*sandbox.Sandbox, error) {
	// toolgate's own files are read-only in the box, the signing key
	// hidden: the policy judges what a command says, the box what it does
	var readOnly, hidden []string
	for _, p := range g.Protected() {
		switch {
		case p.Secret:
			hidden = append(hidden, p.Path)
		case p.Family:
			// the log's directory, when it is not the workspace itself:
			// files rotated while the box runs are read-only too
			if dir, err := filepath.EvalSymlinks(filepath.Dir(p.Path)); err == nil && strings.HasPrefix(dir, g.Workspace()+"/") {
				readOnly = append(readOnly, dir)
				continue
			}
			rotated, _ := filepath.Glob(globEscape(p.Path) + ".*")
			readOnly = append(append(readOnly, p.Path), rotated...)
		default:
			readOnly = append(readOnly, p.Path)
		}
	}
	sb, err := sandbox.New(sandbox.Config{
		Mode:       mode,
		Workspace:  g.Workspace(),
		Timeout:    time.Duration(x.timeout) * time.Second,
		Env:        append(append([]string{}, sandbox.DefaultEnv...), x.env...),
		PathAppend: x.pathAppend,
		Mask:       runner.SandboxMasks(g.Policy().Config()),
		ReadOnly:   readOnly,
		Hidden:     hidden,
		// run runs one exec call at a time; the services may run several.
		Sequential: use == execOnDemand,
	})
	if err != nil {
		return nil, err
	}
	switch {
	case mode == sandbox.ModeNone:
		fmt.Fprintln(errOut, "toolgate: warning: --sandbox=none: exec commands run on this host without a sandbox")
	default:
		if use == execProbeAtStart {
			if err := sb.Check(ctx); err != nil {
				fmt.Fprintf(errOut, "toolgate: warning: %v; exec calls will be refused\n", err)
				var u *sandbox.Unavailable
				if errors.As(err, &u) {
					fmt.Fprintf(errOut, "hint: %s\n", u.Hint)
				}
				break
			}
		}
		if sb.CgroupError() != nil && sb.HostRoot() {
			// Root ignores RLIMIT_NPROC: without a pids cgroup only the
			// timeout bounds a fork bomb.
			fmt.Fprintf(errOut, "toolgate: warning: boxes are host root and get no cgroup (%v): nothing but the timeout bounds their processes; run toolgate as an ordinary user or let it create cgroups\n", sb.CgroupError())
		}
	}
	return sb, nil
}

// openStack builds the stack for g. When exec is offered it warns on errOut
// if exec calls will be refused or run unsandboxed. On error nothing is
// left open.
func (x *execFlags) openStack(ctx context.Context, g *gate.Gate, mode sandbox.Mode, approve runner.Approve, source string, use execUse, errOut io.Writer) (*stack, error) {
	var sb *sandbox.Sandbox
	if use != noExec {
		var err error
		if sb, err = x.openSandbox(ctx, g, mode, use, errOut); err != nil {
			return nil, err
		}
	}
	files, err := tools.OpenWorkspace(g.Workspace())
	if err != nil {
		sb.Close() // nil-safe
		return nil, err
	}
	au, closeLog, err := x.audit.open(source, g, errOut)
	if err != nil {
		files.Close()
		sb.Close()
		return nil, err
	}
	warn := func(msg string) { fmt.Fprintln(errOut, "toolgate: warning: "+msg) }
	r, err := runner.New(runner.Options{Gate: g, Sandbox: sb, Files: files, Approve: approve, Audit: au, Warn: warn})
	if err != nil {
		closeLog()
		files.Close()
		sb.Close()
		return nil, err
	}
	s := &stack{sb: sb, files: files, au: au, r: r}
	var (
		once     sync.Once
		closeErr error
	)
	s.close = func() error {
		once.Do(func() {
			// The sandbox first: it waits for a run being stopped, whose
			// outcome may still be written to the log.
			sb.Close()
			files.Close()
			if err := closeLog(); err != nil {
				closeErr = fmt.Errorf("closing the audit log: %w", err)
			}
		})
		return closeErr
	}
	unregister := atExit(func() { s.close() })
	inner := s.close
	s.close = func() error {
		unregister()
		return inner()
	}
	return s, nil
}

// globEscape quotes the pattern characters of a path for filepath.Glob.
func globEscape(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[\\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
