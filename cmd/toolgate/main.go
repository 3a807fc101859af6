package main

import (
	"fmt"
	"os"
	"os/user"
	"runtime/debug"
	"runtime/pprof"

	"github.com/toolgate/toolgate/internal/homedir"
	_ "github.com/toolgate/toolgate/internal/hugeheap"
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
	// A decision allocates a few hundred short-lived objects; a larger GC
	// target trades a few MiB of heap for a quarter less time per call.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	// ... but a burst of large calls must not let that multiply into
	// hundreds of MiB: past the limit the collector runs as often as it
	// must (a soft limit; the live heap can still exceed it).
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(256 << 20)
	}
	// TOOLGATE_CPUPROFILE=FILE writes a CPU profile of the whole command,
	// for `go tool pprof` (README, "Performance").
	if p := os.Getenv("TOOLGATE_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "toolgate: TOOLGATE_CPUPROFILE: %v\n", err)
			os.Exit(2)
		}
		code := executeContext(withSignals(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		pprof.StopCPUProfile()
		f.Close()
		os.Exit(code)
	}
	os.Exit(executeContext(withSignals(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
