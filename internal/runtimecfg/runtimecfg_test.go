package runtimecfg

import (
	"runtime/debug"
	"testing"
)

func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestApply: each command gets its collector target and the memory limit,
// and GOGC and GOMEMLIMIT in the environment win.
func TestApply(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("TOOLGATE_HUGEPAGES", "0")
	for cmd, want := range map[string]int{"hook": -1, "check": StreamGCPercent, "serve": StreamGCPercent, "run": StreamGCPercent, "": StreamGCPercent} {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(1 << 62)
		Apply(cmd)
		if got := gcPercent(); got != want {
			t.Errorf("%q: GOGC %d, want %d", cmd, got, want)
		}
		if got := debug.SetMemoryLimit(-1); got != MemoryLimit {
			t.Errorf("%q: memory limit %d, want %d", cmd, got, MemoryLimit)
		}
	}
	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetGCPercent(150)
	debug.SetMemoryLimit(1 << 30)
	Apply("check")
	if got := gcPercent(); got != 150 {
		t.Errorf("with GOGC=150 set: GOGC %d", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Errorf("with GOMEMLIMIT set: limit %d", got)
	}
}
