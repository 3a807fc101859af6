package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
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
	// With --fsync always each exec call synced two records: its decision
	// before it ran and its outcome before its answer. When the next line
	// is already read, the answer waits instead for that line's decision
	// record, whose fsync covers the outcome too, and goes out before the
	// next call runs (BeforeRun) or once that line is settled: no one is
	// told of a record before it is on disk, with one fsync a call.
	if au != nil {
		au.DeferOutcomes = true
	}
	var held []runner.Record
	var heldErr error
	emit := func(recs []runner.Record) error {
		if err := au.Sync(); err != nil {
			fmt.Fprintf(errOut, "toolgate: warning: outcome records may not be on disk: %v\n", err)
		}
		for _, rec := range recs {
			if err := enc.Encode(rec); err != nil {
				return err
			}
		}
		// Each answer goes out at once: an agent waits for it.
		return w.Flush()
	}
	release := func() error {
		if held == nil {
			return nil
		}
		recs := held
		held = nil
		return emit(recs)
	}
	r.BeforeRun(func() error {
		if err := release(); err != nil && heldErr == nil {
			heldErr = err
		}
		return heldErr
	})
	defer func() {
		if rerr := release(); rerr != nil && err == nil {
			err = rerr
		}
	}()
	answer := func(line []byte, n int, tooLong, more bool) error {
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
		if err := release(); err != nil {
			return err
		}
		if heldErr != nil {
			return heldErr
		}
		if more {
			held = recs
			return nil
		}
		return emit(recs)
	}
	if mode != sandbox.ModeBwrap {
		return eachLine(in, gate.DefaultLimits().MaxLineBytes, func(line []byte, n int, tooLong bool, _ bool) error {
			return answer(line, n, tooLong, false)
		})
	}
	return runAhead(ctx, r, in, answer)
}

// aheadDepth is how many lines past the current one may have their box
// made ahead (sandbox.Prestart keeps at most two).
const aheadDepth = 2

// queued is a line read but not answered yet.
type queued struct {
	line    []byte
	n       int
	tooLong bool
	exec    bool      // one exec call and nothing else
	call    gate.Call // that call
	// asked is closed once the box made ahead for it (ahead) is settled;
	// nil when none was asked for.
	asked chan struct{}
	ahead runner.Ahead
}

// runAhead answers the lines of in in order, as eachLine does, while it
// has the boxes of the next exec calls made ahead (runner.Prestart) as the
// current one runs. It reads past the current line only what is already
// there: an agent that sends one call and waits is answered as before. A
// line that is not one exec call may change the workspace in ways boxes
// made before it do not see: every box made ahead is dropped before it
// runs.
func runAhead(ctx context.Context, r *runner.Runner, in io.Reader, answer func(line []byte, n int, tooLong, more bool) error) error {
	lines := make(chan *queued, aheadDepth+1)
	readErr := make(chan error, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(lines)
		readErr <- eachLine(in, gate.DefaultLimits().MaxLineBytes, func(line []byte, n int, tooLong bool, _ bool) error {
			q := &queued{line: append([]byte(nil), line...), n: n, tooLong: tooLong}
			select {
			case lines <- q:
				return nil
			case <-stop:
				return context.Canceled
			}
		})
	}()
	// One worker makes the boxes, in line order, so that the sandbox
	// holds them oldest first.
	work := make(chan *queued, aheadDepth)
	defer close(work)
	go func() {
		for q := range work {
			q.ahead = r.Prestart(ctx, q.call)
			close(q.asked)
		}
	}()
	markExec := func(q *queued) {
		if !q.tooLong {
			q.call, q.exec = r.SingleExec(q.line, q.n)
		}
	}
	var ahead []*queued
	for {
		var cur *queued
		if len(ahead) > 0 {
			cur, ahead = ahead[0], ahead[1:]
		} else {
			q, ok := <-lines
			if !ok {
				return <-readErr
			}
			cur = q
			markExec(cur)
		}
		if cur.exec && r.CanPrestart() {
		fill:
			for len(ahead) < aheadDepth {
				select {
				case q, ok := <-lines:
					if !ok {
						lines = nil
						break fill
					}
					markExec(q)
					ahead = append(ahead, q)
				default:
					break fill
				}
			}
			for _, q := range ahead {
				if !q.exec {
					break
				}
				if q.asked == nil {
					q.asked = make(chan struct{})
					work <- q
				}
			}
		} else if !cur.exec {
			for _, q := range ahead {
				if q.asked != nil {
					<-q.asked
				}
			}
			r.DiscardPrestarted()
		}
		if cur.asked != nil {
			<-cur.asked
		}
		// more: the next line is read already, so this answer may wait
		// for its decision record (see runRun).
		err := answer(cur.line, cur.n, cur.tooLong, len(ahead) > 0)
		r.Forget(cur.ahead)
		if err != nil {
			return err
		}
		if lines == nil && len(ahead) == 0 {
			return <-readErr
		}
	}
}
