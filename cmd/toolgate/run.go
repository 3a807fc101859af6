package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/runner"
	"github.com/toolgate/toolgate/sandbox"
	"github.com/toolgate/toolgate/tools"
)

type runOptions struct {
	common
	audit      auditFlags
	timeout    int
	sandbox    string
	approve    string
	pathAppend []string
	env        []string
}

func newRunCmd() *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Decide each tool call read from stdin and execute the allowed ones",
		Long: `Reads the same input as 'check' and executes every allowed call: exec inside a
bubblewrap sandbox, the file tools in-process and confined to the workspace.
Writes one JSON line per call:
  {"id","tool","decision","reasons","output","exit_code","duration_ms","truncated"}
where output is exactly the text the model should see (refusals included),
exit_code is null when nothing ran, and exec calls also carry "sandbox".

A call the policy answers with "ask" is shown on the terminal (y / n / e to edit
the arguments in $EDITOR and decide again) and denied when there is no terminal,
unless --approve says otherwise. A line holding several calls is a batch:
concurrency-safe tools run in parallel, the others one at a time in order, and
the records come out in input order.

If bubblewrap is missing or cannot make namespaces, exec calls are refused with
the reason and a hint; --sandbox=none runs them on the host, for trusted
machines only, and every exec record says "sandbox":"none".`,
		Example: `  $ echo '{"id":"1","name":"exec","arguments":{"command":"ls -la"}}' | toolgate run
  $ toolgate run --workspace ./repo --timeout 120 --approve deny < calls.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRun(cmd.Context(), o, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.register(cmd)
	o.audit.register(cmd)
	f := cmd.Flags()
	f.IntVar(&o.timeout, "timeout", int(tools.ExecTimeout/time.Second), "seconds an exec command may run before its sandbox is killed")
	f.StringVar(&o.sandbox, "sandbox", string(sandbox.ModeBwrap), "how exec runs: bwrap, or none (unsandboxed, trusted machines only)")
	f.StringVar(&o.approve, "approve", string(runner.ApprovePrompt), "what to do with ask decisions: prompt (on the terminal; deny without one), deny or allow")
	f.StringArrayVar(&o.pathAppend, "path-append", nil, "append `DIR` to PATH inside the sandbox; repeatable")
	f.StringArrayVar(&o.env, "env", nil, "pass the host variable `NAME` into the sandbox besides the default allow-list; repeatable")
	return cmd
}

func runRun(ctx context.Context, o *runOptions, in io.Reader, out, errOut io.Writer) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.timeout <= 0 || o.timeout > 24*3600 {
		return fmt.Errorf("--timeout must be between 1 and 86400 seconds, got %d", o.timeout)
	}
	mode, err := sandbox.ParseMode(o.sandbox)
	if err != nil {
		return err
	}
	approve, err := runner.ParseApprove(o.approve)
	if err != nil {
		return err
	}
	g, err := o.gate(ctx)
	if err != nil {
		return err
	}
	env := append(append([]string{}, sandbox.DefaultEnv...), o.env...)
	sb, err := sandbox.New(sandbox.Config{
		Mode:       mode,
		Workspace:  g.Workspace(),
		Timeout:    time.Duration(o.timeout) * time.Second,
		Env:        env,
		PathAppend: o.pathAppend,
		Mask:       runner.SandboxMasks(g.Policy().Config()),
	})
	if err != nil {
		return err
	}
	if mode == sandbox.ModeNone {
		fmt.Fprintln(errOut, "toolgate: warning: --sandbox=none: exec commands run on this host without a sandbox")
	} else if err := sb.Check(ctx); err != nil {
		fmt.Fprintf(errOut, "toolgate: warning: %v; exec calls will be refused\n", err)
		var u *sandbox.Unavailable
		if errors.As(err, &u) {
			fmt.Fprintf(errOut, "hint: %s\n", u.Hint)
		}
	}
	defer atExit(func() { sb.Close() })()
	defer sb.Close()
	files, err := tools.OpenWorkspace(g.Workspace())
	if err != nil {
		return err
	}
	defer files.Close()
	au, closeLog, err := o.audit.open("run", g, errOut)
	if err != nil {
		return err
	}
	defer atExit(func() { closeLog() })()
	defer func() {
		if cerr := closeLog(); cerr != nil && err == nil {
			err = fmt.Errorf("closing the audit log: %w", cerr)
		}
	}()
	warn := func(msg string) { fmt.Fprintln(errOut, "toolgate: warning: "+msg) }
	r, err := runner.New(runner.Options{Gate: g, Sandbox: sb, Files: files, Approve: approve, Audit: au, Warn: warn})
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 64<<10)
	defer w.Flush()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return eachLine(in, gate.DefaultLimits().MaxLineBytes, func(line []byte, n int, tooLong bool, _ bool) error {
		var recs []runner.Record
		if tooLong {
			res := gate.Result{ID: lineID(n), Decision: "deny", Reasons: []gate.Reason{{Rule: gate.CodeDecodeTooLarge, Message: "line exceeds the size limit; send smaller calls"}}}
			logged(au, gate.Call{ID: res.ID}, &res)
			var msgs []string
			for _, rs := range res.Reasons {
				msgs = append(msgs, rs.Message)
			}
			recs = []runner.Record{{ID: res.ID, Decision: "deny", Reasons: res.Reasons, Output: tools.Blocked("", msgs)}}
		} else {
			recs = r.Line(ctx, line, n)
		}
		for _, rec := range recs {
			if err := enc.Encode(rec); err != nil {
				return err
			}
		}
		// Each answer goes out at once: an agent waits for it.
		return w.Flush()
	})
}
