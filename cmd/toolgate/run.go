package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/runner"
	"github.com/toolgate/toolgate/sandbox"
	"github.com/toolgate/toolgate/tools"
)

type runOptions struct {
	common
	execFlags
}

func newRunCmd() *cobra.Command {
	o := &runOptions{}
	o.common.audit = &o.execFlags.audit
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
	o.common.register(cmd)
	o.execFlags.register(cmd, string(runner.ApprovePrompt), "what to do with ask decisions: prompt (on the terminal; deny without one), deny or allow")
	return cmd
}

func runRun(ctx context.Context, o *runOptions, in io.Reader, out, errOut io.Writer) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	mode, approve, err := o.settings()
	if err != nil {
		return err
	}
	if mode == sandbox.ModeBwrap {
		defer sandbox.Prepare(o.workspace)() // overlaps the policy's loading
	}
	g, err := o.gate(ctx)
	if err != nil {
		return err
	}
	st, err := o.openStack(ctx, g, mode, approve, "run", execOnDemand, errOut)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := st.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	r, au := st.r, st.au
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
