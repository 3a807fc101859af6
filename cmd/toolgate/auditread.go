package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/audit"
)

// filterFlags select records for show and export.
type filterFlags struct {
	decision, tool, rule, since, until string
}

func (f *filterFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.decision, "decision", "", "only calls with this decision (allow, deny or ask)")
	fl.StringVar(&f.tool, "tool", "", "only calls of this tool")
	fl.StringVar(&f.rule, "rule", "", "only calls one of whose reasons has this rule id")
	fl.StringVar(&f.since, "since", "", "only records at or after this time (RFC 3339, or a date 2006-01-02)")
	fl.StringVar(&f.until, "until", "", "only records at or before this time (RFC 3339, or a date: the whole day)")
}

func (f *filterFlags) filter() (audit.Filter, error) {
	out := audit.Filter{Decision: f.decision, Tool: f.tool, Rule: f.rule}
	switch f.decision {
	case "", "allow", "deny", "ask":
	default:
		return out, fmt.Errorf("--decision %q: want allow, deny or ask", f.decision)
	}
	var err error
	if out.Since, err = parseWhen(f.since, false); err != nil {
		return out, fmt.Errorf("--since: %w", err)
	}
	if out.Until, err = parseWhen(f.until, true); err != nil {
		return out, fmt.Errorf("--until: %w", err)
	}
	return out, nil
}

func parseWhen(s string, endOfDay bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither RFC 3339 nor a date like 2006-01-02", s)
	}
	if endOfDay {
		t = t.Add(24*time.Hour - time.Nanosecond)
	}
	return t, nil
}

func auditReadCmds() []*cobra.Command {
	return append([]*cobra.Command{newAuditShowCmd(), newAuditExportCmd()}, fullAuditCmds()...)
}

func newAuditShowCmd() *cobra.Command {
	var f filterFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show FILE...",
		Short: "Print the records as a table (or raw with --json), filtered",
		Example: `  $ toolgate audit show --decision deny audit.jsonl
  $ toolgate audit show --tool exec --since 2026-11-01 --json audit.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			flt, err := f.filter()
			if err != nil {
				return err
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			defer w.Flush()
			return audit.Show(w, args, flt, asJSON)
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the raw record lines instead of a table")
	return cmd
}

func newAuditExportCmd() *cobra.Command {
	var f filterFlags
	var format, out string
	cmd := &cobra.Command{
		Use:     "export FILE...",
		Short:   "Write the records as OCSF events (JSON lines) for a SIEM",
		Example: `  $ toolgate audit export --format ocsf audit.jsonl > events.jsonl`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "ocsf" {
				return fmt.Errorf("--format %q: only ocsf is supported", format)
			}
			flt, err := f.filter()
			if err != nil {
				return err
			}
			return writeTo(out, cmd.OutOrStdout(), func(w io.Writer) error { return audit.ExportOCSF(w, args, flt) })
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&format, "format", "ocsf", "the event format (ocsf)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to `FILE` instead of standard output")
	return cmd
}

// writeTo runs fn on a buffered writer to path (or stdout when empty); a
// file is written completely or not left behind.
func writeTo(path string, stdout io.Writer, fn func(io.Writer) error) error {
	if path == "" {
		w := bufio.NewWriter(stdout)
		if err := fn(w); err != nil {
			return err
		}
		return w.Flush()
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := fn(w); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}
