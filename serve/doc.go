// Package serve is toolgate's HTTP/1.1 JSON service: the gate, the sandbox
// and the file tools behind a small API, for agents and hooks that would
// rather ask a running process than start toolgate for every call.
//
// Endpoints (see docs/agents.md):
//
//	POST /v1/check  one input line (any shape gate.Calls accepts) → {"results":[…]}; nothing runs
//	POST /v1/run    the same → {"records":[…runner.Record…]}; allowed calls run
//	POST /v1/hook/claude-code       a Claude Code PreToolUse event → the hook's answer (toolgate-hook)
//	POST /v1/hook/claude-code/http  the same for Claude Code's http hooks: every failure is a 200 deny
//	GET  /v1/tools  the tool definitions
//	GET  /healthz   {"status":"ok","policy":"<digest>","workspace":"…"}
//	GET  /metrics   Prometheus text format
//
// What it covers: body and concurrency limits, a per-request deadline,
// method and media-type checks, refusal of browser requests (an Origin
// header) and, on loopback, of foreign Host names (DNS rebinding), listeners
// on loopback TCP or on a private unix socket, policy reloads that must
// compile and pass the policy's own Rego tests before they replace the
// policy in force (on request or when a watched file changes), metrics with
// bounded label sets, and a graceful shutdown.
//
// Claude Code runs the tool when an http hook answers anything but 2xx, so
// the http hook endpoint answers a failure it can see with a deny (and
// audits it); it cannot answer for a service that is down or a URL that
// is wrong (Claude Code's onFailure setting must block those).
//
// What it does not cover: authentication and TLS (there are none; bind to
// loopback or a unix socket, or put an authenticating proxy in front with
// --allow-remote), rate limiting per client, approval prompts (an ask is
// returned as an ask by /v1/check and settled by the runner's fixed
// --approve mode in /v1/run), and a reload of what the sandbox and the audit
// mask took from the policy at start (sensitive_paths, audit_mask): those
// stay as they were until the service restarts.
package serve
