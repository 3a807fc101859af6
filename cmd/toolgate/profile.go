//go:build !toolgate_small

package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// profiled runs the command; with TOOLGATE_CPUPROFILE=FILE it writes a CPU
// profile of the whole command for `go tool pprof` (README,
// "Performance"). The small build leaves runtime/pprof (and the gzip it
// writes with) out of every start and hands a profiled command to the
// full build.
func profiled(run func() int) int {
	p := os.Getenv("TOOLGATE_CPUPROFILE")
	if p == "" {
		return run()
	}
	f, err := os.Create(p)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolgate: TOOLGATE_CPUPROFILE: %v\n", err)
		return 2
	}
	code := run()
	pprof.StopCPUProfile()
	f.Close()
	return code
}
