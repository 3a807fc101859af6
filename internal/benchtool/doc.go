// Command benchtool is `make bench`: it measures toolgate and prints one
// plain table in which every figure stands beside its baseline, measured in
// the same run.
//
//	go run ./internal/benchtool [-quick] [-rows 1,2,...] [-json FILE] [-toolgate BIN] [-keep]
//
// scripts/bench.sh (and `make bench`) installs bubblewrap where it can,
// builds bin/toolgate and runs this with -toolgate bin/toolgate. Without
// -toolgate it builds ./cmd/toolgate into its scratch directory itself.
//
// # How it measures
//
// The machine is small (2 cores) and shared, so absolute times drift with
// other people's load. Every figure is therefore taken in rounds, and each
// round runs the figure and its baseline one after the other, in an order
// that rotates from round to round. The table gives the median over the
// rounds and the range (min–max) across them; a ratio is the median of the
// ratios taken round by round, so a burst of load hits both sides of it
// alike. The machine (CPU model, cores, kernel, Go, bubblewrap, the
// commit) and the load average at the start and the end are printed too.
// Targets are checked against the medians (PASS/FAIL); a missed target is
// reported, not an error. The exit code is 1 only when a row could not be
// measured, and a row whose prerequisite is missing (bubblewrap for row 3)
// is skipped with the reason.
//
// # The rows
//
//  1. Decision latency in-process: every line of the attack corpus
//     (testdata/attacks, all seven tools, benign and hostile, malformed
//     included), shuffled once, through gate.New + DecideLine with the
//     decision cache off (each decision analysed and evaluated), against the
//     cache on with each line decided twice in a row and the second call,
//     a hit, timed (cycling the mix would not do: it is larger than the
//     cache, which keeps two generations of 1,024 entries). Median, p99 and mean µs per
//     decision, the median of benign lines alone, allocations and bytes per
//     decision (runtime.MemStats deltas), and the slowest lines. The
//     process runs as a `toolgate check` process does (runtimecfg.Apply:
//     GOGC=800, the memory limit, the huge-page heap); a third pass per
//     round, the baseline, sets Go's default GOGC=100 for its round.
//  2. A stream through one `toolgate check` process: the distinct corpus
//     lines once each, and the corpus cycled to 100,000 lines, each with
//     --audit none and with --audit FILE --fsync batch (a fresh file per
//     run), beside a check with empty stdin (the process start). Wall time
//     from start to exit over the decisions written (start included), the
//     same with that round's start taken out, CPU per call and peak RSS
//     (the child's VmHWM, read every millisecond once its program runs:
//     its ru_maxrss would carry the bench's own memory, from which it is
//     forked). Stdin and stdout are files.
//  3. `toolgate run --audit none` of exec `true`: 50 calls in one process
//     (per call, and with the process start taken out by pairing it with a
//     one-call process of the same round; also in a workspace that is no
//     repository, which a box mounts four fewer times for; and the 50 calls
//     with the audit log, --fsync always, the default) and one call per
//     process, against
//     a bare `bwrap --unshare-all --die-with-parent --new-session --ro-bind /
//     / true` and against bwrap given toolgate's own command line. That
//     command line is recorded by a stand-in `bwrap` script put first on
//     toolgate's PATH (toolgate looks bwrap up on PATH; the scratch
//     directory lets others pass, since a root toolgate runs bwrap as an
//     unprivileged id for a root-owned workspace), which saves its
//     arguments and the seccomp filter and executes the real bwrap; the
//     replay drops --info-fd/--block-fd/--sync-fd, passes the filter on
//     fd 3 and binds a root made as a view's is (sandbox.ReplayRoot) where
//     the command line binds the view's, as sandbox/bench_test.go does
//     in-package.
//  4. `toolgate hook claude-code`, one process per call, for a Bash `ls -la`
//     PreToolUse event: cold (the process loads the policy; --audit FILE)
//     and with a warm `toolgate serve --socket` daemon for the same
//     workspace, beside the spawn of `true` (the machine's process floor)
//     and `toolgate hook --help` (the binary's own start floor). Every answer is
//     checked to be a PreToolUse decision, and the daemon to have answered.
//  5. The audit log, in-process: µs per Append with --fsync always, batch
//     and never (a fresh log per round; Close not timed), then verify
//     throughput on a generated ~50 MB log with audit.Verify and with
//     `toolgate audit verify`, against reading and SHA-256-hashing the file.
//  6. Policy data growth: row 1's mix, cache off, with the default data,
//     with 10,000 allowed_commands (common prefixes first, then entries like
//     "tool123 sub") and with 10,000 more sensitive_paths (the default ones
//     first, then "/srv/data123/secret" and "~/.cache/x123"), passed as
//     gate.Options.DataFiles; median per decision, ratios, and the time of
//     gate.New for each.
//
// -quick shrinks every size and round count for a smoke run (its figures
// mean nothing); the tests (benchtool_test.go) use smaller sizes still.
//
// # What it does not measure
//
//   - Real agent traffic: the corpus is mostly attacks and edge cases (about
//     a quarter benign), with deliberately expensive lines (brace expansions,
//     globs over the fixture); everyday traffic is more benign and more
//     repetitive, and so cheaper. Row 1's benign-only median is the nearer
//     figure for that.
//   - A cold disk: the fixture, inputs and audit logs live under /var/tmp and
//     are read from the page cache; fsync costs are this machine's disk.
//   - The tools' own work: exec runs `true`, the file tools are not run; the
//     sandbox row times the box, not what runs in it.
//   - MCP (toolgate mcp), the HTTP service beyond the hook's /v1/check, and
//     signed checkpoints (--audit-key).
//   - Anything below one process of each kind: there is no concurrency
//     test, and the numbers are for this machine's two cores under whatever
//     else was running (see the load average in the header).
package main
