// Package runtimecfg sets the Go runtime up for a toolgate command: the
// collector's target, the soft memory limit and the huge-page heap
// reservation (package hugeheap). toolgate's main calls Apply with the
// command it is about to run; the bench tool calls it with "check" so that
// its in-process decision figures are those of a decision in a `toolgate
// check` process, and can set the collector back to Go's default for the
// side-by-side baseline.
//
// The settings (GOGC and GOMEMLIMIT, when set, win):
//
//   - hook: no collection below the memory limit. A hook decides one call
//     and exits; a collection cost a cold hook a fifth of its time. No
//     huge-page reservation either (only a collection frees it for reuse).
//   - check, serve, mcp: GOGC=800 and the huge-page reservation. A decision
//     allocates a few hundred short-lived objects and keeps almost none (a
//     stream's live heap is 3-5 MiB), so a larger target makes collections
//     rare for a heap of a few tens of MiB: over the corpus's distinct calls
//     400 took 0.73x the time of Go's default, 800 another 6% less.
//   - every other command: GOGC=800 without the reservation (`run` pays a
//     box of milliseconds per call; the reservation cost a one-call run
//     3 ms for nothing).
//   - all: a soft memory limit of 256 MiB, so that a burst of large calls
//     cannot multiply the target into hundreds of MiB.
//
// What it does not cover: GOMAXPROCS (left to the runtime) and anything
// that changes behaviour; these settings change speed and memory only.
package runtimecfg
