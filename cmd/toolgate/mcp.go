//go:build !toolgate_small

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/mcpgate"
	"github.com/toolgate/toolgate/runner"
	"github.com/toolgate/toolgate/sandbox"
)

// version names this build to MCP peers.
const version = "0.4.0"

type mcpOptions struct {
	common
	execFlags
	upstream bool
}

func newMCPCmd() *cobra.Command {
	o := &mcpOptions{}
	o.common.audit = &o.execFlags.audit
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
	o.common.register(cmd)
	o.execFlags.register(cmd, string(runner.ApprovePrompt), "ask decisions: an elicitation when the client supports it, else prompt (on /dev/tty; deny without one), deny or allow")
	cmd.Flags().BoolVar(&o.upstream, "upstream", false, "gate the MCP server started by the command after --")
	return cmd
}

func runMCP(ctx context.Context, o *mcpOptions, upstream []string, errOut io.Writer) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	mode, approve, err := o.settings()
	if err != nil {
		return err
	}
	if mode == sandbox.ModeBwrap {
		defer sandbox.Prepare(o.workspace)() // overlaps the policy's loading
	}
	g, err := o.gate(ctx)
	if err != nil {
		return err
	}
	use := execProbeAtStart
	if len(upstream) > 0 {
		use = noExec // calls are forwarded, not run
	}
	st, err := o.openStack(ctx, g, mode, approve, "mcp", use, errOut)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := st.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	r := st.r
	var server *mcp.Server
	if len(upstream) == 0 {
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
