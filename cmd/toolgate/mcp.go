package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/mcpgate"
	"github.com/toolgate/toolgate/runner"
	"github.com/toolgate/toolgate/sandbox"
	"github.com/toolgate/toolgate/tools"
)

// version names this build to MCP peers.
const version = "0.4.0"

type mcpOptions struct {
	common
	audit    auditFlags
	timeout  int
	sandbox  string
	approve  string
	upstream bool
}

func newMCPCmd() *cobra.Command {
	o := &mcpOptions{}
	cmd := &cobra.Command{
		Use:   "mcp [--upstream -- CMD ARGS...]",
		Short: "Serve toolgate's tools over MCP (stdio), or gate another MCP server",
		Long: `Without --upstream: an MCP server on stdin/stdout exposing toolgate's tools
(exec, read_file, write_file, edit_file, list_dir, search, glob) with their JSON
Schemas. Every tools/call is decided, audited and run (exec in the sandbox); a
refusal is a tool result with isError and the reasons as text.

With --upstream -- CMD ARGS...: starts CMD as an MCP server (stdio, in the
workspace directory) and stands in front of it. Its tools are listed to the
client except those the policy forbids whatever their arguments; every
tools/call is decided with the same policy (input.tool is the upstream name,
the path set comes from arguments that are paths, with the access guessed
from the tool's name) and audited, and allowed calls are forwarded; results,
errors, progress and log messages pass through.`,
		Example: `  $ toolgate mcp --workspace ./repo
  $ toolgate mcp --workspace ./repo --upstream -- npx -y @modelcontextprotocol/server-filesystem /`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.upstream && len(args) == 0 {
				return errors.New("--upstream needs the server's command after --, e.g. toolgate mcp --upstream -- npx -y @modelcontextprotocol/server-filesystem /")
			}
			if !o.upstream && len(args) > 0 {
				return fmt.Errorf("unexpected arguments %q (did you mean --upstream -- CMD ARGS?)", args)
			}
			return runMCP(cmd.Context(), o, args, cmd.ErrOrStderr())
		},
	}
	o.register(cmd)
	o.audit.register(cmd)
	f := cmd.Flags()
	f.IntVar(&o.timeout, "timeout", int(tools.ExecTimeout/time.Second), "seconds an exec command may run before its sandbox is killed")
	f.StringVar(&o.sandbox, "sandbox", string(sandbox.ModeBwrap), "how exec runs: bwrap, or none (unsandboxed, trusted machines only)")
	f.StringVar(&o.approve, "approve", string(runner.ApprovePrompt), "ask decisions: prompt (on /dev/tty; deny without one), deny or allow")
	f.BoolVar(&o.upstream, "upstream", false, "gate the MCP server started by the command after --")
	return cmd
}

func runMCP(ctx context.Context, o *mcpOptions, upstream []string, errOut io.Writer) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.timeout <= 0 || o.timeout > 24*3600 {
		return fmt.Errorf("--timeout must be between 1 and 86400 seconds, got %d", o.timeout)
	}
	mode, err := sandbox.ParseMode(o.sandbox)
	if err != nil {
		return err
	}
	approve, err := runner.ParseApprove(o.approve)
	if err != nil {
		return err
	}
	g, err := o.gate(ctx)
	if err != nil {
		return err
	}
	sb, err := sandbox.New(sandbox.Config{
		Mode: mode, Workspace: g.Workspace(), Timeout: time.Duration(o.timeout) * time.Second,
		Mask: runner.SandboxMasks(g.Policy().Config()),
	})
	if err != nil {
		return err
	}
	defer atExit(func() { sb.Close() })()
	defer sb.Close()
	files, err := tools.OpenWorkspace(g.Workspace())
	if err != nil {
		return err
	}
	defer files.Close()
	au, closeLog, err := o.audit.open("mcp", g, errOut)
	if err != nil {
		return err
	}
	defer atExit(func() { closeLog() })()
	defer func() {
		if cerr := closeLog(); cerr != nil && err == nil {
			err = fmt.Errorf("closing the audit log: %w", cerr)
		}
	}()
	warn := func(msg string) { fmt.Fprintln(errOut, "toolgate: warning: "+msg) }
	r, err := runner.New(runner.Options{Gate: g, Sandbox: sb, Files: files, Approve: approve, Audit: au, Warn: warn})
	if err != nil {
		return err
	}
	var server *mcp.Server
	if len(upstream) == 0 {
		if mode == sandbox.ModeBwrap {
			if cerr := sb.Check(ctx); cerr != nil {
				fmt.Fprintf(errOut, "toolgate: warning: %v; exec calls will be refused\n", cerr)
			}
		}
		server = mcpgate.NewServer(r, version)
	} else {
		cmd := exec.Command(upstream[0], upstream[1:]...)
		cmd.Dir = g.Workspace()
		cmd.Stderr = os.Stderr
		p, perr := mcpgate.NewProxy(ctx, r, cmd, version, errOut)
		if perr != nil {
			return perr
		}
		defer atExit(func() { p.Close() })()
		defer p.Close()
		server = p.Server()
	}
	if err := server.Run(ctx, &mcp.StdioTransport{}); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}
