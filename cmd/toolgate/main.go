package main

import (
	"os"
	"os/user"
	"runtime/debug"

	"github.com/toolgate/toolgate/internal/homedir"
	"github.com/toolgate/toolgate/internal/hugeheap"
)

func main() {
	handOff(os.Args[1:])
	// With HOME unset, ~ is the account's home: ask the whole user
	// database (NSS), not /etc/passwd alone.
	homedir.Account = func() string {
		if u, err := user.Current(); err == nil {
			return u.HomeDir
		}
		return ""
	}
	// A hook decides one call and exits: it collects only near the memory
	// limit below (a collection cost a cold hook a fifth of its time) and
	// reserves no huge-page heap (freed by a collection, never reused).
	// Other commands get a larger target than Go's default (unless GOGC
	// says otherwise): a decision allocates a few hundred short-lived
	// objects and keeps almost none (a stream's live heap is 3-5 MiB):
	// over the corpus's distinct calls, 400 took 0.73x the time of Go's
	// default and 800 another 6% less, for a heap of a few tens of MiB.
	//
	// The huge-page heap is for the commands that decide a stream of calls
	// in microseconds each; `run` pays a box of milliseconds for each call,
	// and the reservation (with the collection it brings) cost a one-call
	// run 3 ms for nothing.
	var cmd string
	if len(os.Args) > 1 {
		cmd = os.Args[1]
	}
	oneCall := cmd == "hook"
	if cmd == "check" || cmd == "serve" || cmd == "mcp" {
		hugeheap.Reserve()
	}
	if os.Getenv("GOGC") == "" {
		if oneCall {
			debug.SetGCPercent(-1)
		} else {
			debug.SetGCPercent(800)
		}
	}
	// ... but a burst of large calls must not let that multiply into
	// hundreds of MiB: past the limit the collector runs as often as it
	// must (a soft limit; the live heap can still exceed it).
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(256 << 20)
	}
	os.Exit(profiled(func() int {
		return executeContext(withSignals(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	}))
}
