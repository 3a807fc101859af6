package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/sync/semaphore"

	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/runner"
)

type checkOptions struct {
	common
	audit auditFlags
}

func newCheckCmd() *cobra.Command {
	o := &checkOptions{}
	o.common.audit = &o.audit
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
	return gate.New(ctx, c.options(c.workspace))
}

func runCheck(ctx context.Context, o *checkOptions, in io.Reader, out, errOut io.Writer) (err error) {
	// The policy compiles while the first calls are read and analysed; a
	// policy that fails to compile fails the command before any answer.
	o.background = true
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
	record := func(out []decided) []decided {
		if au != nil {
			// the records are built here, on the workers; only their
			// writing is in order
			for i := range out {
				out[i].rec = au.DecisionRecord(au.Policy, out[i].call, out[i].res, "", "")
			}
		}
		return out
	}
	analyse := func(line []byte, n int, tooLong bool) func() []decided {
		if tooLong {
			res := gate.Result{ID: lineID(n), Decision: "deny", Reasons: []gate.Reason{{Rule: gate.CodeDecodeTooLarge, Message: "line exceeds the size limit; send smaller calls"}}}
			return func() []decided { return record([]decided{{call: gate.Call{ID: res.ID}, res: res}}) }
		}
		calls := g.Calls(line, n)
		analysed := make([]*gate.Analysed, len(calls))
		for i, d := range calls {
			if d.Err == nil {
				analysed[i] = g.Analyse(ctx, d.Call)
			}
		}
		return func() []decided {
			out := make([]decided, len(calls))
			for i, d := range calls {
				out[i].call = d.Call
				if d.Err != nil {
					out[i].res = d.Denied()
				} else {
					out[i].res = g.Judge(ctx, analysed[i])
				}
			}
			return record(out)
		}
	}
	var recs []audit.Record
	var ress []*gate.Result
	ready := false
	emit := func(ds []decided, more bool) error {
		if !ready {
			if err := g.Ready(ctx); err != nil {
				return err
			}
			ready = true
		}
		// The decisions at hand are recorded as one group commit: with
		// --fsync always they are on disk before any of them is answered,
		// at the cost of one fsync for the group.
		recs, ress = recs[:0], ress[:0]
		for i := range ds {
			recs = append(recs, ds[i].rec)
			ress = append(ress, &ds[i].res)
		}
		au.AppendAll(recs, ress)
		for _, d := range ds {
			if d.res.Reasons == nil {
				d.res.Reasons = []gate.Reason{}
			}
			if err := enc.Encode(d.res); err != nil {
				return err
			}
		}
		if !more {
			return w.Flush()
		}
		return nil
	}
	if err := pipeline(ctx, in, runtime.GOMAXPROCS(0), analyse, emit); err != nil {
		return err
	}
	return g.Ready(ctx) // no input at all: the policy must still compile
}

// decided is one call and its decision, before it is recorded.
type decided struct {
	call gate.Call
	res  gate.Result
	rec  audit.Record // its decision record, when there is a log
}

// maxGroup bounds the decisions pipeline hands to emit at once.
const maxGroup = 256

// Read-ahead bounds: lines read but not yet answered, and their bytes.
// While the policy compiles (gate.Options.Background), the analysis of
// the first calls runs ahead of it up to these.
const (
	readAheadLines = 1024
	readAheadBytes = 64 << 20
)

// pipeline reads lines from in, decides them on workers goroutines at once
// and hands the decisions to emit strictly in input order, from one
// goroutine: the audit log and the output see the stream as it came, while
// the decisions (which are independent) use every core. A decision has
// two stages: analyse (which needs no policy) returns the judging that
// finishes it; each stage has its own workers, so calls are analysed while
// judging waits for the policy to compile. more is false for the last
// line of what was buffered when it was read, so an agent that writes one
// line and waits gets its answer at once.
func pipeline(ctx context.Context, in io.Reader, workers int, analyse func(line []byte, n int, tooLong bool) func() []decided, emit func(ds []decided, more bool) error) error {
	if workers < 1 {
		workers = 1
	}
	type job struct {
		line    []byte
		n       int
		tooLong bool
		more    bool
		weight  int64
		judge   func() []decided
		done    chan []decided
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan *job, workers*4)
	judging := make(chan *job, readAheadLines)
	order := make(chan *job, readAheadLines)
	budget := semaphore.NewWeighted(readAheadBytes)
	var wg, analysts sync.WaitGroup
	for range workers {
		wg.Add(2)
		analysts.Add(1)
		go func() {
			defer wg.Done()
			defer analysts.Done()
			for j := range jobs {
				j.judge = analyse(j.line, j.n, j.tooLong)
				j.line = nil
				judging <- j
			}
		}()
		go func() {
			defer wg.Done()
			for j := range judging {
				j.done <- j.judge()
			}
		}()
	}
	go func() {
		analysts.Wait()
		close(judging)
	}()
	readErr := make(chan error, 1)
	go func() {
		defer close(jobs)
		defer close(order)
		readErr <- eachLine(in, gate.DefaultLimits().MaxLineBytes, func(line []byte, n int, tooLong, more bool) error {
			j := &job{line: bytes.Clone(line), n: n, tooLong: tooLong, more: more, done: make(chan []decided, 1)}
			j.weight = min(int64(len(line))+1, readAheadBytes)
			if err := budget.Acquire(ctx, j.weight); err != nil {
				return err
			}
			select {
			case order <- j:
			case <-ctx.Done():
				return ctx.Err()
			}
			jobs <- j
			return nil
		})
	}()
	var err error
	var group []decided
	var pending *job
	for {
		j := pending
		pending = nil
		if j == nil {
			var ok bool
			if j, ok = <-order; !ok {
				break
			}
		}
		// Emit what is decided already as one group, in order: the jobs
		// after j whose decisions are done join it; the first that is
		// not done waits for the next group.
		group = append(group[:0], <-j.done...)
		budget.Release(j.weight)
		flush := !j.more
	gather:
		for len(group) < maxGroup {
			select {
			case next, ok := <-order:
				if !ok {
					break gather
				}
				select {
				case ds := <-next.done:
					group = append(group, ds...)
					budget.Release(next.weight)
					flush = flush || !next.more
				default:
					pending = next
					break gather
				}
			default:
				break gather
			}
		}
		if err == nil {
			err = emit(group, !flush)
			if err != nil {
				cancel()
			}
		}
	}
	wg.Wait()
	if rerr := <-readErr; err == nil && rerr != nil && !errors.Is(rerr, context.Canceled) {
		err = rerr
	}
	return err
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
