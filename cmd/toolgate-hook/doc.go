// Command toolgate-hook is a small Claude Code PreToolUse hook for people who
// run `toolgate serve --socket`: it hands the event to the service's
// /v1/hook/claude-code and prints the service's answer, without loading a
// policy or starting OPA (toolgate's own binary takes ~35 ms to start
// before any work; this one a few). It is toolgate's hook, answered by the
// service: the service maps the event, decides, audits and writes the
// reply exactly as `toolgate hook claude-code` would.
//
//	toolgate-hook claude-code [--socket PATH] [--workspace DIR] [toolgate hook flags...]
//
// The socket is --socket, else $TOOLGATE_SOCKET; the workspace --workspace,
// else $CLAUDE_PROJECT_DIR. When there is no socket or workspace, the
// service is not there, does not answer within 2 s, answers for another
// workspace or answers anything but a well-formed reply, the event goes to
// `toolgate hook claude-code` (the toolgate next to this binary, else the
// one on PATH) with the other flags, which decides in-process; so a
// missing service costs time, never a decision. If that cannot be started
// either, the call is blocked (exit 2, the reason on stderr), as the hook
// blocks on any failure.
//
// Not covered: any decision logic of its own. It trusts the socket as
// `toolgate hook --socket` does: whoever can replace the socket can answer
// for the service, so keep it where only its user can write.
package main
