//go:build !toolgate_small

package main

import (
	"errors"
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
		Short: "Test, print and bundle Rego policies",
	}
	cmd.AddCommand(newPolicyTestCmd(), newPolicyPrintCmd(), newPolicyKeygenCmd(), newPolicyBuildCmd())
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

func newPolicyKeygenCmd() *cobra.Command {
	var priv, pub string
	cmd := &cobra.Command{
		Use:   "keygen --private KEY --public PUB",
		Short: "Write a new ECDSA P-256 (ES256) key pair for signing policy bundles",
		Example: `  $ toolgate policy keygen --private bundle.key --public bundle.pub
  $ toolgate policy build --with-default --signing-key bundle.key -o bundle.tar.gz ./team-rules`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if priv == "" || pub == "" {
				return errors.New("policy keygen needs --private KEY and --public PUB")
			}
			if priv == pub {
				return errors.New("--private and --public name the same file")
			}
			for _, f := range []string{priv, pub} {
				if _, err := os.Lstat(f); err == nil {
					return fmt.Errorf("%s exists; refusing to overwrite it", f)
				}
			}
			privPEM, pubPEM, err := gate.GenerateBundleKey()
			if err != nil {
				return err
			}
			if err := writeNew(priv, privPEM, 0o600); err != nil {
				return err
			}
			if err := writeNew(pub, pubPEM, 0o644); err != nil {
				os.Remove(priv)
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (private, keep it secret) and %s (public, for --bundle-verification-key)\n", priv, pub)
			return nil
		},
	}
	cmd.Flags().StringVar(&priv, "private", "", "write the PEM private key to `KEY` (mode 0600)")
	cmd.Flags().StringVar(&pub, "public", "", "write the PEM public key to `PUB`")
	return cmd
}

// writeNew writes a file that must not exist yet.
func writeNew(name string, b []byte, mode os.FileMode) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s exists; refusing to overwrite it", name)
		}
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(name)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

func newPolicyBuildCmd() *cobra.Command {
	var o gate.BuildOptions
	var out string
	cmd := &cobra.Command{
		Use:   "build [DIR]... -o FILE",
		Short: "Build an OPA bundle (.tar.gz) of policy directories, optionally signed",
		Long: `Builds an OPA-compatible bundle: a .manifest (revision, roots "toolgate" and
"toolgate_test", Rego v1), the .rego files of each DIR (and of the embedded
default with --with-default), unit tests included, one data.json with the
merged data, and with --signing-key a .signatures.json that OPA's tooling
verifies (key id "default"). The policy is compiled first: a bundle that would
not load is not written. Load it with --bundle on check, run, mcp, hook and serve.`,
		Example: `  $ toolgate policy build --with-default --revision v42 -o bundle.tar.gz ./team-rules
  $ toolgate policy build --with-default --signing-key bundle.key -o bundle.tar.gz ./team-rules`,
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if out == "" {
				return errors.New("policy build needs -o FILE")
			}
			o.Dirs = dirs
			b, err := gate.BuildBundle(cmd.Context(), o)
			if err != nil {
				return err
			}
			tmp, err := os.CreateTemp(filepath.Dir(out), ".bundle-*")
			if err != nil {
				return err
			}
			defer os.Remove(tmp.Name())
			if _, err := tmp.Write(b); err != nil {
				tmp.Close()
				return err
			}
			if err := tmp.Chmod(0o644); err != nil {
				tmp.Close()
				return err
			}
			if err := tmp.Close(); err != nil {
				return err
			}
			if err := os.Rename(tmp.Name(), out); err != nil {
				return err
			}
			signed := "unsigned"
			if o.SigningKey != "" {
				signed = "signed"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (%s, revision %q, %d bytes)\n", out, signed, o.Revision, len(b))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the bundle to `FILE` (replaced atomically)")
	cmd.Flags().BoolVar(&o.WithDefault, "with-default", false, "include the embedded default policy")
	cmd.Flags().StringVar(&o.Revision, "revision", "", "the manifest revision `R` (recorded in audit records as policy_revision)")
	cmd.Flags().StringVar(&o.SigningKey, "signing-key", "", "sign the bundle with the PEM private key `KEY` (ECDSA or RSA)")
	cmd.Flags().StringArrayVar(&o.DataFiles, "data", nil, "merge JSON/YAML data `FILE` into the bundle's data.json; repeatable")
	return cmd
}
