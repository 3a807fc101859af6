//go:build !toolgate_small

package main

import "github.com/spf13/cobra"

// fullCommands are the commands that need OPA (policies other than the
// embedded one, policy tests, traces, bundles) or the MCP SDK; the small
// build hands them to toolgate-full (small.go).
func fullCommands() map[string]func() *cobra.Command {
	return map[string]func() *cobra.Command{"mcp": newMCPCmd, "explain": newExplainCmd, "policy": newPolicyCmd, "serve": newServeCmd}
}

// handOff is the small build's (small.go); the full build serves
// everything.
func handOff([]string) {}
