// Command toolgate is a policy-driven security gateway between an AI agent
// and the tools it calls.
//
// Each command lives in its own file with an options struct and a
// constructor (check.go, explain.go, policy.go, tools.go); root.go wires them
// to cobra, prints errors as "toolgate: …" with a "hint:" line, and maps
// outcomes to exit codes (0 ok, 1 error, 2 failures found). The commands only
// parse flags and call the gate package: no policy logic lives here.
//
// Two builds come from this package (scripts/build.sh). The full build
// (plain go build) has every command. The small build (-tags
// toolgate_small, installed as toolgate) leaves out OPA's compiler and
// the MCP SDK and starts in about half the time, which a hook pays on
// every tool call: it serves check, run, hook, audit and tools on the
// embedded default policy, and small.go hands anything else (another
// policy, --data, a bundle, policy, explain, serve, mcp, --help) to
// toolgate-full beside it with exec, before reading or writing anything.
// TestSmallBuild holds the two builds' decisions equal over the corpus.
package main
