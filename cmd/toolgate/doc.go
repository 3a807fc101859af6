// Command toolgate is a policy-driven security gateway between an AI agent
// and the tools it calls.
//
// Each command lives in its own file with an options struct and a
// constructor (check.go, explain.go, policy.go, tools.go); root.go wires them
// to cobra, prints errors as "toolgate: …" with a "hint:" line, and maps
// outcomes to exit codes (0 ok, 1 error, 2 failures found). The commands only
// parse flags and call the gate package: no policy logic lives here.
//
// Not here yet: run, audit, mcp, hook and serve arrive with later work.
package main
