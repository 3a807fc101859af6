// Package mcpgate puts toolgate where agents talk MCP (the official Go SDK).
//
// NewServer exposes toolgate's own tools over MCP: each tools/call goes
// through the runner — arguments through the line decoder's checks, the
// gate, approval, the audit log, the sandbox — and comes back as a tool
// result; a refusal is a result with isError and the reasons as text, so
// the model can adapt. NewProxy stands in front of another MCP server: it
// starts it, lists its tools to the client (hiding those the policy denies
// whatever their arguments, and following tools/list_changed), decides each
// tools/call with gate.DecideExternal, audits it, and forwards allowed calls
// with their _meta; results of every content type, protocol errors,
// progress (by token) and log messages pass through, and cancelling a call
// cancels it upstream.
//
// An ask is put to the person behind the client by elicitation/create (a
// yes/no) when the client declares elicitation; otherwise, or with
// --approve deny/allow, it is settled as run settles it. Clients on the
// 2026-07-28 protocol expect multi-round-trip input requests instead, which
// toolgate does not send yet: their asks are denied with that reason.
//
// Not covered: the upstream's resources, prompts, sampling and elicitation
// are not proxied; the upstream process itself is not sandboxed (only its
// calls are judged); a path judged before the call can be swapped for a
// symlink before the upstream opens it; relative paths in upstream
// arguments are refused, since how the upstream resolves them is unknown.
package mcpgate
