package runtimecfg

import (
	"os"
	"runtime/debug"

	"github.com/toolgate/toolgate/internal/hugeheap"
)

// StreamGCPercent is the collector's target for the commands that decide
// calls in a stream (and every command but hook), unless GOGC is set.
const StreamGCPercent = 800

// MemoryLimit is the soft memory limit, unless GOMEMLIMIT is set.
const MemoryLimit = 256 << 20

// Apply sets the runtime up for the toolgate command cmd (its first
// argument: "check", "hook", …; "" for none). See the package doc.
func Apply(cmd string) {
	switch cmd {
	case "check", "serve", "mcp":
		hugeheap.Reserve()
	}
	if os.Getenv("GOGC") == "" {
		if cmd == "hook" {
			debug.SetGCPercent(-1)
		} else {
			debug.SetGCPercent(StreamGCPercent)
		}
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
}
