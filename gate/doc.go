// Package gate runs toolgate's decision pipeline: decode a tool call in any
// of the accepted shapes (native, OpenAI, Anthropic, MCP; arrays and whole
// assistant messages), validate its arguments against the tool's JSON Schema,
// build the Rego input document (with the parser's facts), and evaluate one
// OPA query, data.toolgate.decision.
//
// OPA compiles the policy and plans the query; the plan runs on
// internal/irvm over toolgate's own values (internal/value), with the
// default policy's built-ins native. The embedded default policy is
// planned when toolgate is built (internal/irvm/default_plan.go, Go
// source made by defaultplan.go's go:generate), so a gate on it runs the
// plan instead of compiling; the same go:generate writes its data
// document, index and digest as Go literals (builtin_data.go), so a start
// on it reads no JSON. Options.Topdown
// keeps OPA's topdown evaluator; OneShot (the hook) uses the built plan
// or else topdown (which costs no planning); traced evaluations (explain)
// and a plan irvm refuses use topdown too. Options.Background compiles on
// a goroutine: Analyse (the policy-independent half of a decision) runs
// meanwhile and Judge waits.
//
// The small build (-tags toolgate_small, small.go) has no OPA: it runs
// the embedded plan only, and everything that needs OPA (other policies,
// data files, bundles, policy tests, traces) returns ErrNeedsFull. The
// files that use OPA are the ones tagged !toolgate_small (policy_opa.go,
// bundle.go, policytest.go, opaversion_opa.go).
//
// It fails closed: undecodable input, an unknown tool, invalid arguments, a
// script the parser could not analyse, a policy that fails to compile (New
// returns an error), fails to evaluate, or answers in the wrong shape, and a
// panic anywhere below Decide are all a deny with a stable code (codes in
// call.go and in parser/codes.go). Whatever a custom policy says, a call whose
// analysis failed is never allowed.
//
// Policies load from the embedded default (Builtin) and/or directories, with
// data files merged in; OPA's built-ins are restricted (no http.send, net.*,
// opa.runtime) and errors are strict. Named lists in data.toolgate.config are
// indexed once at load (data.toolgate.index) so rules look entries up.
// The policy's own sources, with the files the caller names (the audit log,
// its key, the binary), are handed to the parser as protected, so the
// policy can refuse calls that would change what judges and records them.
//
// Not covered here: running tools, the sandbox and the audit log (later
// packages), approval of "ask" decisions (the caller's job).
package gate
