package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/runner"
)

type checkOptions struct {
	common
	audit auditFlags
}

func newCheckCmd() *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Decide each tool call read from stdin, running nothing",
		Long: `Reads one JSON value per line on stdin (a native, OpenAI, Anthropic or MCP tool
call, an array of them, or a whole assistant message) and writes one JSON line
per call: {"id","tool","decision","reasons"}. A malformed line gets its own deny
line; the stream never stops early.`,
		Example: `  $ echo '{"id":"1","name":"exec","arguments":{"command":"rm -rf ~"}}' | toolgate check
  $ toolgate check --workspace ./repo --policy builtin --policy ./team-rules < calls.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCheck(cmd.Context(), o, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.register(cmd)
	o.audit.register(cmd)
	return cmd
}

func (c *common) gate(ctx context.Context) (*gate.Gate, error) {
	return gate.New(ctx, gate.Options{Workspace: c.workspace, PolicyDirs: c.policies, DataFiles: c.data})
}

func runCheck(ctx context.Context, o *checkOptions, in io.Reader, out, errOut io.Writer) (err error) {
	g, err := o.gate(ctx)
	if err != nil {
		return err
	}
	au, closeLog, err := o.audit.open("check", g, errOut)
	if err != nil {
		return err
	}
	defer atExit(func() { closeLog() })()
	defer func() {
		if cerr := closeLog(); cerr != nil && err == nil {
			err = fmt.Errorf("closing the audit log: %w", cerr)
		}
	}()
	w := bufio.NewWriterSize(out, 64<<10)
	defer w.Flush()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return eachLine(in, gate.DefaultLimits().MaxLineBytes, func(line []byte, n int, tooLong bool, more bool) error {
		var results []gate.Result
		if tooLong {
			res := gate.Result{ID: lineID(n), Decision: "deny", Reasons: []gate.Reason{{Rule: gate.CodeDecodeTooLarge, Message: "line exceeds the size limit; send smaller calls"}}}
			logged(au, gate.Call{ID: res.ID}, &res)
			results = []gate.Result{res}
		} else {
			for _, d := range g.Calls(line, n) {
				var res gate.Result
				if d.Err != nil {
					res = d.Denied()
				} else {
					res = g.Decide(ctx, d.Call)
				}
				logged(au, d.Call, &res)
				results = append(results, res)
			}
		}
		for _, r := range results {
			if r.Reasons == nil {
				r.Reasons = []gate.Reason{}
			}
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		if !more {
			return w.Flush()
		}
		return nil
	})
}

// logged records a decision; a decision that cannot be recorded is a deny.
func logged(au *runner.Auditor, call gate.Call, res *gate.Result) {
	if au != nil {
		au.Record(au.Policy, call, res, "", "")
	}
}

func lineID(n int) string { return "line-" + itoa(n) }

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// eachLine calls fn for every non-blank line of r without ever holding more
// than max bytes of one line; a longer line is reported with tooLong and
// skipped. more says whether more input is already buffered (so output can
// be flushed when a writer waits for an answer).
func eachLine(r io.Reader, max int, fn func(line []byte, n int, tooLong, more bool) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(buf) <= max {
				buf = append(buf, chunk...)
			}
			continue
		}
		if len(chunk) > 0 || len(buf) > 0 {
			if len(buf) <= max {
				buf = append(buf, chunk...)
			}
			n++
			line := trimLine(buf)
			tooLong := len(buf) > max
			if len(line) > 0 || tooLong {
				if ferr := fn(line, n, tooLong, br.Buffered() > 0); ferr != nil {
					return ferr
				}
			}
			buf = buf[:0]
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func trimLine(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}
