package main

import (
	"os"
	"runtime/debug"
)

func main() {
	// A decision allocates a few hundred short-lived objects; a larger GC
	// target trades a few MiB of heap for a quarter less time per call.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(executeContext(withSignals(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
