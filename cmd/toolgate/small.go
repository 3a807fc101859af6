//go:build toolgate_small

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// The small build (-tags toolgate_small; make build installs it as
// toolgate) starts in a third of the time of the full one: it leaves out
// OPA's compiler and evaluator and the MCP SDK, and runs the embedded
// default policy from the plan made when it was built, without net/http.
// It serves check, run, hook, audit (but audit report and ship) and tools
// on that policy; anything else — another policy, --data, a bundle,
// policy, explain, serve, mcp, the command list — is handed, before
// anything is read or written, to toolgate-full, the full build beside
// it, which does everything (exec, same arguments).

func fullCommands() map[string]func() *cobra.Command { return nil }

func fullAuditCmds() []*cobra.Command { return nil }

// profiled runs the command: TOOLGATE_CPUPROFILE was handed to the full
// build.
func profiled(run func() int) int { return run() }

// smallAudit are the audit commands the small build serves; report and
// ship (and the audit command's own help) are the full build's.
var smallAudit = map[string]bool{"verify": true, "repair": true, "keygen": true, "show": true, "export": true}

// smallCommands are the commands the small build serves itself.
var smallCommands = map[string]bool{"check": true, "run": true, "hook": true, "audit": true, "tools": true}

// needsFull says whether the full build must serve args.
func needsFull(args []string) bool {
	if os.Getenv("TOOLGATE_EVALUATOR") == "topdown" || os.Getenv("TOOLGATE_CPUPROFILE") != "" {
		return true // the evaluator and the profiler are the full build's
	}
	if len(args) == 0 || !smallCommands[args[0]] {
		return true // flags first (--help), the command list, other commands
	}
	if args[0] == "audit" && (len(args) < 2 || !smallAudit[args[1]]) {
		return true
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch name {
		case "--data", "--bundle", "--bundle-verification-key":
			return true
		case "--policy":
			if !hasVal {
				if i+1 >= len(args) {
					return true
				}
				i++
				val = args[i]
			}
			if val != "builtin" {
				return true
			}
		}
	}
	return false
}

// handOff execs toolgate-full with the same arguments when the small
// build cannot serve them; it returns only when the small build serves
// them itself.
func handOff(args []string) {
	if !needsFull(args) {
		return
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolgate: cannot find this binary's directory to start toolgate-full: %v\n", err)
		os.Exit(exitError)
	}
	full := filepath.Join(filepath.Dir(exe), "toolgate-full")
	err = syscall.Exec(full, append([]string{full}, args...), os.Environ())
	fmt.Fprintf(os.Stderr, "toolgate: this is the small build, which runs the embedded default policy for check, run, hook, audit and tools; %q needs the full build, %s, which cannot be started: %v\nhint: make build installs both\n", strings.Join(args, " "), full, err)
	os.Exit(exitError)
}
