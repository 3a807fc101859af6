package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/parser"
)

// Exit codes.
const (
	exitOK      = 0
	exitError   = 1 // the command could not do its job (bad flags, broken policy)
	exitFailure = 2 // the job ran and found failures (policy tests failed)
)

// errFailure marks a run that completed but found failures.
var errFailure = errors.New("failures found")

// common holds the flags shared by the commands that decide calls.
type common struct {
	workspace string
	policies  []string
	data      []string
	bundle    string
	bundleKey string
	// audit is the command's audit flags (nil: the command keeps no log;
	// the default log is protected all the same)
	audit *auditFlags
	// oneShot marks a command that decides one call per process (hook)
	// or traces its evaluations (explain): irvm serves it only with the
	// plan made at build time (gate.Options.OneShot), topdown otherwise.
	oneShot bool
	// background compiles the policy while the first calls are read and
	// analysed (gate.Options.Background); the command must call
	// gate.Ready before it answers.
	background bool
}

// options are the gate options the flags name, for the workspace ws.
func (c *common) options(ws string) gate.Options {
	return gate.Options{Workspace: ws, PolicyDirs: c.policies, DataFiles: c.data, Bundle: c.bundle, BundleKey: c.bundleKey, Protected: c.protected(), Topdown: evaluator() == "topdown", OneShot: c.oneShot && evaluator() != "irvm", Background: c.background}
}

// evaluator is TOOLGATE_EVALUATOR: "topdown" or "irvm" makes every
// command use that one (for measuring one against the other).
func evaluator() string { return os.Getenv("TOOLGATE_EVALUATOR") }

// protected are toolgate's own files the gate marks for the policy besides
// the policy's sources (which the gate adds itself): this binary, the
// audit log with its rotated files, and the audit signing key.
func (c *common) protected() []parser.Protected {
	var out []parser.Protected
	if exe, err := os.Executable(); err == nil {
		out = append(out, parser.Protected{Path: exe})
		// the builds installed beside it hand work to each other
		for _, name := range []string{"toolgate", "toolgate-full", "toolgate-hook"} {
			if p := filepath.Join(filepath.Dir(exe), name); p != exe && fileExists(p) {
				out = append(out, parser.Protected{Path: p})
			}
		}
	}
	a := c.audit
	if a == nil {
		a = &auditFlags{key: os.Getenv("TOOLGATE_AUDIT_KEY")}
	}
	if p := a.logPath(); p != "" {
		out = append(out, parser.Protected{Path: p, Family: true})
	}
	if a.key != "" {
		// the public key keygen wrote beside it is what checkpoints are
		// verified with: replacing it would bless forged ones
		out = append(out, parser.Protected{Path: a.key, Secret: true}, parser.Protected{Path: a.key + ".pub"})
	}
	return out
}

func (c *common) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.workspace, "workspace", "", "workspace root (default: the current directory)")
	cmd.Flags().StringArrayVar(&c.policies, "policy", nil, "load Rego from `DIR` instead of the embedded default; repeatable; \"builtin\" names the default")
	cmd.Flags().StringArrayVar(&c.data, "data", nil, "load JSON/YAML data from `FILE` (e.g. data.toolgate.config overrides); repeatable")
	cmd.Flags().StringVar(&c.bundle, "bundle", "", "load the policy from the OPA bundle `PATH|URL` (see 'toolgate policy build') instead of --policy/--data")
	cmd.Flags().StringVar(&c.bundleKey, "bundle-verification-key", "", "require the bundle to be signed with the key whose PEM public key is in `PUB` (see 'toolgate policy keygen')")
}

// newRoot makes the command tree for args: every command, or only the one
// args run when they name one (building every command's flags costs a
// cold start a few hundred KiB of fresh memory, which a hook pays on
// every tool call).
func newRoot(stdin io.Reader, stdout, stderr io.Writer, args []string) *cobra.Command {
	root := &cobra.Command{
		Use:           "toolgate",
		Short:         "Policy-driven security gateway for AI agent tool calls",
		Long:          "toolgate decodes an agent's tool calls, analyses them, and decides with Rego policies whether they may run.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmds := map[string]func() *cobra.Command{"check": newCheckCmd, "run": newRunCmd, "audit": newAuditCmd, "tools": newToolsCmd, "hook": newHookCmd}
	for name, f := range fullCommands() {
		cmds[name] = f
	}
	if len(args) > 0 {
		if f, ok := cmds[args[0]]; ok {
			root.AddCommand(f())
			return root
		}
	}
	names := make([]string, 0, len(cmds))
	for name := range cmds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		root.AddCommand(cmds[name]())
	}
	return root
}

func execute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return executeContext(context.Background(), args, stdin, stdout, stderr)
}

func executeContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(stdin, stdout, stderr, args)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFailure):
		return exitFailure
	}
	msg := err.Error()
	fmt.Fprintf(stderr, "toolgate: %s\n", strings.TrimSuffix(msg, "."))
	if h := hint(msg); h != "" {
		fmt.Fprintf(stderr, "hint: %s\n", h)
	}
	return exitError
}

// hint suggests a next step for common errors.
func hint(msg string) string {
	switch {
	case strings.Contains(msg, "is signed, and no key"), strings.Contains(msg, "is not signed"),
		strings.Contains(msg, "failed signature verification"):
		return "build and sign the bundle with 'toolgate policy build --signing-key KEY', and pass the matching public key with --bundle-verification-key"
	case strings.Contains(msg, "policy directory"):
		return "pass a directory holding .rego files, or --policy builtin for the embedded default"
	case strings.Contains(msg, "compiling policy"), strings.Contains(msg, "rego_"):
		return "run 'toolgate policy test DIR' to see the errors with their locations"
	case strings.Contains(msg, "workspace"):
		return "pass an existing directory with --workspace"
	case strings.Contains(msg, "unknown flag"), strings.Contains(msg, "unknown command"):
		return "run 'toolgate --help' for the list of commands and flags"
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
