// Package policies embeds toolgate's default Rego policy so the binary works
// with no files beside it.
//
// The policy lives in package toolgate and answers data.toolgate.decision:
// {"decision": "allow"|"deny"|"ask", "reasons": [{"rule","message"}],
// "sandbox": {...}}. Each file holds one category of rules from the design
// (destruction, privilege, workspace, secrets, remote, unanalysable,
// persistence, ask, config, self: toolgate's own files) and has a
// *_test.rego file beside it; data.json holds the tunables under
// data.toolgate.config.
//
// Source gives a file without copying it (sources_gen.go, generated, lists
// them). This package holds no other Go: loading, compiling and evaluating the
// policy is the gate's job, and the facts the rules read (resolved paths,
// zones, sensitivity) are computed by the parser.
package policies
