package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/policies"
)

func newPolicyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Test and print Rego policies",
	}
	cmd.AddCommand(newPolicyTestCmd(), newPolicyPrintCmd())
	return cmd
}

type policyTestOptions struct {
	noBuiltin bool
	data      []string
	run       string
	verbose   bool
}

func newPolicyTestCmd() *cobra.Command {
	o := &policyTestOptions{}
	cmd := &cobra.Command{
		Use:   "test [DIR]...",
		Short: "Run the Rego unit tests of the embedded default and of each DIR",
		Example: `  $ toolgate policy test
  $ toolgate policy test ./team-rules`,
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if !o.noBuiltin {
				dirs = append([]string{gate.Builtin}, dirs...)
			}
			p, err := gate.LoadPolicy(dirs, o.data)
			if err != nil {
				return err
			}
			results, err := p.Test(cmd.Context(), o.run)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			pass, fail := 0, 0
			for _, r := range results {
				if r.Pass {
					pass++
					if o.verbose {
						fmt.Fprintf(out, "PASS %s\n", r.Name)
					}
					continue
				}
				fail++
				fmt.Fprintf(out, "FAIL %s (%s): %s\n", r.Name, r.File, r.Detail)
			}
			fmt.Fprintf(out, "%d passed, %d failed\n", pass, fail)
			if fail > 0 {
				return errFailure
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.noBuiltin, "no-builtin", false, "test only the given directories, without the embedded default")
	cmd.Flags().StringArrayVar(&o.data, "data", nil, "extra data `FILE`; repeatable")
	cmd.Flags().StringVar(&o.run, "run", "", "run only tests whose name matches `REGEX`")
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "print passing tests too")
	return cmd
}

func newPolicyPrintCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "print",
		Short: "Print the embedded default policy, or write it to a directory to start from",
		Example: `  $ toolgate policy print
  $ toolgate policy print --out ./team-rules && toolgate policy test --no-builtin ./team-rules`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir != "" {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return err
				}
			}
			return fs.WalkDir(policies.FS, ".", func(name string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := policies.FS.ReadFile(name)
				if err != nil {
					return err
				}
				if dir == "" {
					fmt.Fprintf(cmd.OutOrStdout(), "# ---- %s ----\n%s\n", name, b)
					return nil
				}
				dst := filepath.Join(dir, name)
				if _, err := os.Stat(dst); err == nil {
					return fmt.Errorf("%s exists; refusing to overwrite it", dst)
				}
				if err := os.WriteFile(dst, b, 0o644); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", dst)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&dir, "out", "", "write the files into `DIR` instead of printing them")
	return cmd
}
