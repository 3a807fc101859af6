package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/internal/sockhttp"
	"github.com/toolgate/toolgate/runner"
	"github.com/toolgate/toolgate/sandbox"
	"github.com/toolgate/toolgate/tools"
)

// maxHookEvent bounds the event read on stdin (a Write of a large file
// carries the whole content; calls over the decoder's 1 MiB are denied).
const maxHookEvent = 16 << 20

// A hook must never fail open. Claude Code treats exit code 2 as "block
// the call" (stderr goes to the model) and every other non-zero code as a
// non-blocking error after which the tool runs; so every failure of the
// hook command — bad flags, unreadable input, a policy that does not load —
// exits 2 with the reason on stderr (and a deny answer on stdout for any
// other reader), never 1.
func blockHook(out, errOut io.Writer, msg string) error {
	msg = strings.TrimSuffix(msg, ".")
	out.Write(hook.Deny("toolgate: " + msg + "; the call is blocked").JSON())
	fmt.Fprintf(errOut, "toolgate: %s; the call is blocked\n", msg)
	return errFailure // exit 2
}

func hookFlagError(c *cobra.Command, err error) error {
	return blockHook(c.OutOrStdout(), c.ErrOrStderr(), err.Error()+" ("+c.CommandPath()+")")
}

func newHookCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook AGENT",
		Short: "Answer an agent's pre-tool-use hook (claude-code)",
		Long: `Answers an agent's hook before each tool call. Agents: claude-code.
A hook that cannot answer blocks the call (exit 2).`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			what := "no agent given"
			if len(args) > 0 {
				what = fmt.Sprintf("unknown agent %q", args[0])
			}
			return blockHook(cmd.OutOrStdout(), cmd.ErrOrStderr(), what+" (want: toolgate hook claude-code)")
		},
	}
	cmd.SetFlagErrorFunc(hookFlagError)
	cmd.AddCommand(newHookClaudeCmd())
	return cmd
}

type hookOptions struct {
	common
	audit  auditFlags
	socket string
}

func newHookClaudeCmd() *cobra.Command {
	o := &hookOptions{}
	o.common.audit = &o.audit
	o.oneShot = true
	cmd := &cobra.Command{
		Use:   "claude-code",
		Short: "Answer a Claude Code PreToolUse hook event read on stdin",
		Long: `Reads one Claude Code PreToolUse event on stdin, maps the tool call onto
toolgate's tools (Bash → exec, Read → read_file, Write and NotebookEdit →
write_file, Edit → edit_file, MultiEdit → one edit_file per edit, Glob → glob,
Grep → search, LS → list_dir), decides it and writes the hook answer:
  {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow|deny|ask","permissionDecisionReason":"rule: message; …"}}
WebFetch, WebSearch, MCP tools and tools toolgate does not know are answered
with ask. The workspace is --workspace, else $CLAUDE_PROJECT_DIR (which Claude
Code sets to the project root), else the event's cwd; the event's cwd becomes
exec's working_dir.

When --socket (default $TOOLGATE_SOCKET) names a running 'toolgate serve
--socket' for the same workspace, it decides (with its policy and audit log);
when it is missing or silent for 2 s, the decision is made here, audited with
source "hook". Malformed input or any failure blocks the call: exit 2 with the
reason on stderr.

Install it in .claude/settings.json (or ~/.claude/settings.json):
  {"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"toolgate hook claude-code"}]}]}}`,
		Example: `  $ echo '{"hook_event_name":"PreToolUse","cwd":"'$PWD'","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}' | toolgate hook claude-code`,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return blockHook(cmd.OutOrStdout(), cmd.ErrOrStderr(), fmt.Sprintf("'toolgate hook claude-code' takes no arguments, got %q", args))
			}
			return runHookClaude(cmd.Context(), o, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.SetFlagErrorFunc(hookFlagError)
	o.register(cmd)
	o.audit.register(cmd)
	cmd.Flags().StringVar(&o.socket, "socket", os.Getenv("TOOLGATE_SOCKET"), "ask the 'toolgate serve --socket' listening at `PATH` first (default $TOOLGATE_SOCKET)")
	return cmd
}

func runHookClaude(ctx context.Context, o *hookOptions, in io.Reader, out, errOut io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	b, err := io.ReadAll(io.LimitReader(in, maxHookEvent+1))
	if err != nil {
		return blockHook(out, errOut, "reading the hook event: "+err.Error())
	}
	if len(b) > maxHookEvent {
		return blockHook(out, errOut, fmt.Sprintf("the hook event is larger than %d MiB", maxHookEvent>>20))
	}
	local := func(ctx context.Context, ws string, line []byte) (_ []gate.Result, err error) {
		g, err := gate.New(ctx, o.options(ws))
		if err != nil {
			return nil, err
		}
		warnOwnFilesUnboxed(g, errOut)
		// Nothing runs here (Claude Code runs the tool); the runner wants
		// a sandbox all the same.
		x := execFlags{audit: o.audit, timeout: int(tools.ExecTimeout.Seconds())}
		st, err := x.openStack(ctx, g, sandbox.ModeNone, runner.ApproveDeny, "hook", noExec, errOut)
		if err != nil {
			return nil, err
		}
		defer func() {
			// The decisions are on disk already; a failed close (its
			// checkpoint) is worth a warning, not a blocked call.
			if cerr := st.close(); cerr != nil {
				fmt.Fprintf(errOut, "toolgate: warning: %v\n", cerr)
			}
		}()
		return hook.DecideLocal(ctx, st.r, line), nil
	}
	ans, err := hook.Decide(ctx, b, hook.Options{
		Workspace: o.workspace,
		Socket:    o.socket,
		Local:     local,
		Note:      func(msg string) { fmt.Fprintln(errOut, "toolgate: note: "+msg) },
	})
	if err != nil {
		return blockHook(out, errOut, err.Error())
	}
	_, err = out.Write(ans.JSON())
	if err != nil {
		return blockHook(io.Discard, errOut, "writing the answer: "+err.Error())
	}
	return nil
}

// answerHookEvent answers a Claude Code hook event for serve's
// /v1/hook/claude-code (the toolgate-hook client): as `toolgate hook
// claude-code` would, with the service's runner, for the workspace the
// client named, which must be the service's.
func answerHookEvent(ctx context.Context, r *runner.Runner, ws string, event []byte) ([]byte, error) {
	if ws == "" {
		return nil, fmt.Errorf("no workspace: send it in %s", sockhttp.WorkspaceHeader)
	}
	if len(event) > maxHookEvent {
		return nil, fmt.Errorf("the hook event is larger than %d MiB", maxHookEvent>>20)
	}
	ans, err := hook.Decide(ctx, event, hook.Options{
		Workspace: ws,
		Local: func(ctx context.Context, ws string, line []byte) ([]gate.Result, error) {
			if g := r.Gate(); ws != g.Workspace() {
				return nil, fmt.Errorf("this service judges calls for the workspace %s, not %s", g.Workspace(), ws)
			}
			return hook.DecideLocal(ctx, r, line), nil
		},
	})
	if err != nil {
		return nil, err
	}
	return ans.JSON(), nil
}

// warnOwnFilesUnboxed warns about toolgate's own files inside the
// workspace when nothing runs in a sandbox (the hook): the policy refuses
// the calls it can see changing them, but commands whose writes the
// analyser does not follow (git checkout, patch, archive extraction,
// scripts) are held back only by a box.
func warnOwnFilesUnboxed(g *gate.Gate, errOut io.Writer) {
	ws := g.Workspace()
	for _, p := range g.Protected() {
		real, err := filepath.EvalSymlinks(p.Path)
		if err != nil {
			real = p.Path
		}
		if strings.HasPrefix(real, ws+"/") {
			fmt.Fprintf(errOut, "toolgate: warning: %s is toolgate's own and lies inside the workspace; without a sandbox, commands whose writes toolgate cannot follow (git checkout, patch, scripts) could change it: keep it outside the workspace\n", p.Path)
		}
	}
}
