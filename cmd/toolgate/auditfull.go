//go:build !toolgate_small

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolgate/toolgate/audit"
)

// fullAuditCmds are the audit commands only the full build has: the
// report (html/template) and shipping to a collector (net/http). The small
// build hands them to toolgate-full.
func fullAuditCmds() []*cobra.Command {
	return []*cobra.Command{newAuditReportCmd(), newAuditShipCmd()}
}

func newAuditReportCmd() *cobra.Command {
	var format, out, pubPath, title string
	cmd := &cobra.Command{
		Use:   "report FILE...",
		Short: "Write a summary a reviewer can read (Markdown or HTML with a chart)",
		Long: `Counts by decision, tool and rule over time, the denied calls, calls run without
the sandbox, failures, the writers, and the chain's status (as 'audit verify'
finds it).`,
		Example: `  $ toolgate audit report --format html -o report.html audit.jsonl`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "md" && format != "html" {
				return fmt.Errorf("--format %q: want md or html", format)
			}
			o := audit.ReportOptions{Format: format, Title: title}
			if pubPath != "" {
				pub, err := audit.LoadPublicKey(pubPath)
				if err != nil {
					return err
				}
				o.PublicKey = pub
			}
			return writeTo(out, cmd.OutOrStdout(), func(w io.Writer) error { return audit.Report(w, args, o) })
		},
	}
	cmd.Flags().StringVar(&format, "format", "md", "md or html")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to `FILE` instead of standard output")
	cmd.Flags().StringVar(&pubPath, "public-key", "", "check checkpoint signatures with the Ed25519 public key `FILE`")
	cmd.Flags().StringVar(&title, "title", "toolgate audit report", "the report's title")
	return cmd
}

func newAuditShipCmd() *cobra.Command {
	var (
		o      audit.ShipOptions
		tries  int
		follow bool
	)
	cmd := &cobra.Command{
		Use:   "ship FILE --to URL",
		Short: "Send the log's records to an HTTP collector, in order, at least once",
		Long: `Reads the log (without locking it: the gate is never held up) and POSTs its
records, in order, to URL as gzip'd JSON arrays (Content-Type application/json,
Content-Encoding gzip) of the lines exactly as they are on disk, checkpoints
included, so the collector side can check the hash chain. Rotated files are
shipped first, found through the genesis records.

A batch is delivered when the collector answers 2xx; until then it is posted
again with exponential backoff (up to 30s), never skipped. With --cursor, what
was delivered (the file, by its genesis hash, the offset, and the seq and hash of
the last record) is written atomically after each batch, and the next run goes
on from there, so a crash loses nothing (a batch may be sent twice). A cursor
that does not match the log is an error, never a reason to start over. Without
--cursor every run starts at the oldest file.

Without --follow, ship exits 0 at the end of the log, or 1 when a batch fails
--tries times. With --follow it waits for new records (and rotations) and
retries forever. A partial last line is never sent.`,
		Example: `  $ toolgate audit ship ~/.local/state/toolgate/audit.jsonl --to http://collector:8080/toolgate --cursor ship.cursor --follow`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.URL == "" {
				return errors.New("audit ship: --to URL is required")
			}
			o.Path, o.Follow = args[0], follow
			if !follow {
				o.MaxTries = tries
			}
			stderr := cmd.ErrOrStderr()
			o.Logf = func(format string, a ...any) {
				fmt.Fprintf(stderr, "toolgate: audit ship: "+format+"\n", a...)
			}
			s, err := audit.NewShipper(o)
			if err != nil {
				return err
			}
			err = s.Run(cmd.Context())
			c := s.Cursor()
			fmt.Fprintf(cmd.OutOrStdout(), "shipped %d records in %d batches to %s", s.Records, s.Batches, o.URL)
			if c.Hash != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "; delivered up to seq %d (%s, offset %d)", c.Seq, c.File, c.Offset)
			}
			fmt.Fprintln(cmd.OutOrStdout())
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.URL, "to", "", "POST the batches to the collector at `URL`")
	f.BoolVar(&follow, "follow", false, "keep tailing the log (across rotations) after its end; retry forever")
	f.StringVar(&o.Cursor, "cursor", "", "remember what was delivered in `FILE` and go on from it")
	f.IntVar(&o.Batch, "batch", 500, "send at most `N` records per batch")
	f.DurationVar(&o.Interval, "interval", 200*time.Millisecond, "with --follow, look for new records this often")
	f.IntVar(&tries, "tries", 10, "without --follow, give up (exit 1) after `N` failed posts of one batch")
	f.DurationVar(&o.Timeout, "timeout", 30*time.Second, "give up on one post after this long (it is then retried)")
	return cmd
}
