package main

import (
	"crypto/ed25519"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/toolgate/toolgate/audit"
)

func newAuditCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Verify, repair, read and export the audit log",
		Long: `The audit log is JSON lines, one record per decision and per outcome, each
carrying the SHA-256 of the previous one from a genesis record; signed
checkpoints (with --audit-key) let a holder of the public key prove that nobody
rewrote the whole chain.`,
	}
	cmd.AddCommand(newAuditVerifyCmd(), newAuditRepairCmd(), newAuditKeygenCmd())
	cmd.AddCommand(auditReadCmds()...)
	return cmd
}

func newAuditVerifyCmd() *cobra.Command {
	var pubPath string
	cmd := &cobra.Command{
		Use:   "verify FILE...",
		Short: "Check the chain and the checkpoints; name the first bad record",
		Long: `Streams the files, in order (rotated files first), as one chain. Exits 0 and
prints the counts when the log is intact; exits 2 and names the first bad
record (file, line, sequence) and what is wrong: edited, removed, reordered,
duplicated, foreign line, torn tail, genesis missing, broken chain, bad
signature, unsigned. With --public-key every checkpoint's signature is
checked and a log that no checkpoint proves fails.`,
		Example: `  $ toolgate audit verify ~/.local/state/toolgate/audit.jsonl
  $ toolgate audit verify --public-key audit.pub audit.jsonl.20261101T000000Z audit.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var o audit.VerifyOptions
			if pubPath != "" {
				pub, err := audit.LoadPublicKey(pubPath)
				if err != nil {
					return err
				}
				o.PublicKey = pub
			}
			o.Progress = progress(cmd.ErrOrStderr(), args)
			res := audit.Verify(args, o)
			if o.Progress != nil {
				fmt.Fprint(cmd.ErrOrStderr(), "\r\033[K")
			}
			out := cmd.OutOrStdout()
			if res.Problem != nil {
				fmt.Fprintf(out, "DAMAGED %s\n", res.Problem)
				if res.Repairable {
					fmt.Fprintf(out, "hint: this is what a crashed writer leaves; 'toolgate audit repair %s' cuts it off and records that it did\n", res.Problem.File)
				}
				return errFailure
			}
			fmt.Fprintf(out, "intact: %d records in %d file(s): %d decisions, %d outcomes, %d checkpoints", res.Records, res.Files, res.Decisions, res.Outcomes, res.Checkpoints)
			if o.PublicKey != nil {
				fmt.Fprintf(out, " (%d verified with %s; %d records after the last one)", res.Verified, audit.KeyID(o.PublicKey), res.UnsignedTail)
			} else if res.Checkpoints > 0 {
				fmt.Fprint(out, " (signatures not checked: pass --public-key)")
			}
			fmt.Fprintf(out, "\nlast seq %d, head %s\n", res.LastSeq, res.Head)
			return nil
		},
	}
	cmd.Flags().StringVar(&pubPath, "public-key", "", "check checkpoint signatures with the Ed25519 public key `FILE`")
	return cmd
}

// progress returns a progress printer when stderr is a terminal and the
// files are big enough to wait for.
func progress(w io.Writer, paths []string) func(int64) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if _, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err != nil {
		return nil
	}
	var total int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			total += st.Size()
		}
	}
	if total < 16<<20 {
		return nil
	}
	last := time.Now()
	return func(read int64) {
		if time.Since(last) < 200*time.Millisecond {
			return
		}
		last = time.Now()
		fmt.Fprintf(w, "\rverifying: %d / %d MiB (%d%%)", read>>20, total>>20, read*100/total)
	}
}

func newAuditRepairCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "repair FILE",
		Short: "Cut off a torn final line (a crashed writer's) and record that it did",
		Long: `A writer killed in the middle of a write can leave a partial last line; writers
refuse to append after it. repair cuts that line off and appends a repair
record with its size and SHA-256. It refuses every other kind of damage:
that is evidence and stays as it is.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := audit.Repair(args[0], audit.Options{Program: "toolgate audit repair"})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "repaired %s: cut a torn line of %d bytes and recorded it\n", args[0], n)
			return nil
		},
	}
}

func newAuditKeygenCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "keygen",
		Short: "Make an Ed25519 key pair for signed checkpoints",
		Long: `Writes the private key to FILE (mode 0600) and the public key to FILE.pub, both
PEM. Give the private key to the writers (--audit-key or TOOLGATE_AUDIT_KEY)
and the public key to whoever verifies (toolgate audit verify --public-key).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pub, err := audit.GenerateKey(out, out+".pub")
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "private key: %s\npublic key:  %s.pub\nkey id:      %s\n", out, out, audit.KeyID(ed25519.PublicKey(pub)))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "toolgate-audit.key", "write the private key to `FILE` and the public key to FILE.pub")
	return cmd
}
