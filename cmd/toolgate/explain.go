//go:build !toolgate_small

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/gate"
)

type explainOptions struct {
	common
}

func newExplainCmd() *cobra.Command {
	o := &explainOptions{}
	o.oneShot = true // traces need topdown
	cmd := &cobra.Command{
		Use:   "explain",
		Short: "Show the input document, the rules that fired and why, for each call on stdin",
		Example: `  $ echo '{"name":"exec","arguments":{"command":"cat ~/.ssh/id_rsa"}}' | toolgate explain
  $ toolgate explain --policy builtin --policy ./team-rules < call.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			g, err := o.gate(ctx)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			return eachLine(cmd.InOrStdin(), gate.DefaultLimits().MaxLineBytes, func(line []byte, n int, tooLong, _ bool) error {
				if tooLong {
					fmt.Fprintf(out, "== line %d: deny (%s: line exceeds the size limit)\n", n, gate.CodeDecodeTooLarge)
					return nil
				}
				for _, d := range gate.DecodeLine(line, gate.DefaultLimits()) {
					if d.Err != nil {
						fmt.Fprintf(out, "== line %d: deny\nreason: %s: %s\n\n", n, d.Err.Code, d.Err.Message)
						continue
					}
					var trace bytes.Buffer
					res := g.Explain(ctx, d.Call, &trace)
					fmt.Fprintf(out, "== call %q (%s): %s\n", d.Call.ID, d.Call.Tool, strings.ToUpper(res.Decision))
					if res.Input != nil {
						b, _ := json.MarshalIndent(res.Input, "", "  ")
						fmt.Fprintf(out, "input document:\n%s\n", b)
					} else {
						fmt.Fprintln(out, "input document: none (the call was refused before the policy)")
					}
					fmt.Fprintln(out, "reasons:")
					if len(res.Reasons) == 0 {
						fmt.Fprintln(out, "  (none: no deny or ask rule fired, so the call is allowed)")
					}
					for _, r := range res.Reasons {
						fmt.Fprintf(out, "  %s: %s\n", r.Rule, r.Message)
					}
					if trace.Len() > 0 {
						fmt.Fprintf(out, "trace (rules whose bodies held):\n%s", trace.String())
					}
					fmt.Fprintln(out)
				}
				return nil
			})
		},
	}
	o.register(cmd)
	return cmd
}
