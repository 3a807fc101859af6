package parser

import "strings"

// perf's subcommands that run a command: `perf stat [OPTIONS] CMD ARGS`.
// The command is judged as if run alone. perf's option parser takes a
// value either attached or as the next word, and the options differ from
// one subcommand to the next, so each runner lists the short options that
// take a value and those known to take none; an option in neither (a long
// flag, an option of a newer perf) leaves it open whether the next word is
// its value or the command, and both readings are judged.

// perfOpts is what one subcommand's options are.
type perfOpts struct {
	valued string          // short options that take a value
	flags  string          // short options that take none
	long   map[string]bool // long options that take a value
}

func perfLong(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

var (
	perfStat = perfOpts{valued: "eptbCGroxDIM", flags: "aAcdnqsTvB",
		long: perfLong("--event", "--filter", "--pid", "--tid", "--bpf-prog", "--bpf-attr-map", "--cpu", "--cgroup", "--for-each-cgroup",
			"--repeat", "--output", "--log-fd", "--field-separator", "--delay", "--interval-print", "--interval-count", "--timeout",
			"--metrics", "--pre", "--post", "--td-level", "--control", "--cputype", "--metric-groups")}
	perfRecord = perfOpts{valued: "eptrCcomFGujkD", flags: "agsnTdPqvBbiRNW",
		long: perfLong("--event", "--filter", "--pid", "--tid", "--realtime", "--cpu", "--count", "--output", "--mmap-pages", "--freq",
			"--cgroup", "--call-graph", "--uid", "--branch-filter", "--clockid", "--delay", "--affinity", "--mmap-flush", "--max-size",
			"--switch-output-event", "--switch-max-files", "--control", "--proc-map-timeout", "--synth", "--threads", "--debuginfod")}
	perfTrace = perfOpts{valued: "eoptCumGDi", flags: "asSTvf",
		long: perfLong("--event", "--expr", "--output", "--pid", "--tid", "--cpu", "--uid", "--mmap-pages", "--cgroup", "--delay", "--input",
			"--call-graph", "--max-events", "--duration", "--filter-pids", "--max-stack", "--min-stack", "--proc-map-timeout", "--map-dump",
			"--switch-on", "--switch-off")}
	perfFtrace = perfOpts{valued: "tpCTNGgDm", flags: "av",
		long: perfLong("--tracer", "--pid", "--cpu", "--trace-funcs", "--notrace-funcs", "--graph-funcs", "--nograph-funcs", "--graph-depth",
			"--buffer-size", "--func-opts", "--graph-opts", "--bucket-range", "--min-latency", "--max-latency")}
)

// perfRunners are the subcommands that run a command after their options.
var perfRunners = map[string]perfOpts{"stat": perfStat, "record": perfRecord, "trace": perfTrace, "ftrace": perfFtrace, "iostat": perfStat}

// perfRecorders are the subcommands whose own `record` runs a command with
// perf record's options: perf sched record CMD, perf kvm stat record CMD.
var perfRecorders = map[string]bool{"sched": true, "mem": true, "c2c": true, "lock": true, "kmem": true, "kwork": true,
	"timechart": true, "kvm": true}

// perf judges what `perf …` runs: the command of a runner, the --pre and
// --post command lines of perf stat (run by a shell), the script of perf
// script -s, the file of -o; whatever follows a "--" is a command too.
func (r *run) perf(idx int, args []field, st *state, sc scope, in stdin) error {
	k := 0
	// perf's own options (perf.c): all but these take no value, and an
	// unknown one is an error
	for k < len(args) && strings.HasPrefix(args[k].text, "-") && !args[k].dynamic {
		switch args[k].text {
		case "--debug", "--buildid-dir", "--debugfs-dir":
			k++
		}
		k++
	}
	if k >= len(args) {
		return nil
	}
	if args[k].dynamic {
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "perf " + args[k].text, Cmd: idx})
		return nil
	}
	sub := args[k].text
	rest := args[k+1:]
	if opts, ok := perfRunners[sub]; ok {
		// perf stat record CMD, perf trace record CMD, perf ftrace latency CMD
		if len(rest) > 0 && (rest[0].text == "record" || sub == "ftrace" && (rest[0].text == "trace" || rest[0].text == "latency" || rest[0].text == "profile")) {
			rest = rest[1:]
		}
		return r.perfRun(idx, sub, opts, rest, st, sc, in)
	}
	if sub == "script" {
		return r.perfScript(idx, rest, st, sc, in)
	}
	if perfRecorders[sub] {
		// the first "record" among the words: no option of these takes it
		// as a value
		for j, a := range rest {
			if a.dynamic {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "perf " + sub + " " + a.text, Cmd: idx})
				return nil
			}
			if a.text == "--" {
				break
			}
			if a.text == "record" {
				return r.perfRun(idx, sub+" record", perfRecord, rest[j+1:], st, sc, in)
			}
		}
	}
	// perf and its scripts take the command after "--" in every form
	for j, a := range rest {
		if a.text == "--" {
			return r.perfCommand(idx, sub, rest[j+1:], st, sc, in)
		}
	}
	return nil
}

// perfRun walks a runner's options up to its command and judges it.
func (r *run) perfRun(idx int, sub string, opts perfOpts, args []field, st *state, sc scope, in stdin) error {
	for k := 0; k < len(args); k++ {
		a := args[k]
		t := a.text
		if a.dynamic && strings.HasPrefix(t, "-") {
			// which option it is, and so where the command starts, is
			// known only when it runs
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "perf " + sub + " " + t, Cmd: idx})
			return nil
		}
		if t == "--" {
			return r.perfCommand(idx, sub, args[k+1:], st, sc, in)
		}
		if t == "-" || !strings.HasPrefix(t, "-") {
			return r.perfCommand(idx, sub, args[k:], st, sc, in)
		}
		var next *field
		if k+1 < len(args) {
			next = &args[k+1]
		}
		valued, certain := perfOption(opts, t)
		if !valued {
			if !certain && next != nil && !strings.HasPrefix(next.text, "-") {
				// a flag, and the command follows; or an option whose value
				// follows, and the options go on: both are judged
				if err := r.perfCommand(idx, sub, args[k+1:], st, sc, in); err != nil {
					return err
				}
				k++
			}
			continue
		}
		// the value: attached, or the next word
		key, val, eq := strings.Cut(t, "=")
		if !strings.HasPrefix(t, "--") {
			key, val, eq = t, "", false
			if i := strings.IndexAny(t[1:], opts.valued); i >= 0 && i+2 < len(t) {
				key, val, eq = t[:i+2], strings.TrimPrefix(t[i+2:], "="), true
			}
		}
		v := field{text: val, pattern: val, dynamic: a.dynamic}
		if !eq {
			if next == nil {
				return nil
			}
			v = *next
			k++
		}
		last := key[len(key)-1]
		switch {
		case key == "--pre" || key == "--post":
			// perf stat runs them with system(3)
			if err := r.scriptArg(idx, v, st, sc); err != nil {
				return err
			}
		case key == "--output" || !strings.HasPrefix(key, "--") && last == 'o':
			r.addPath(v, st, "write", idx, "perf")
		case key == "--input" || sub == "trace" && !strings.HasPrefix(key, "--") && last == 'i':
			r.addPath(v, st, "read", idx, "perf")
		}
	}
	return nil
}

// perfOption says whether the option word t takes the next word as its
// value (valued, with no value attached), and whether that is certain.
func perfOption(opts perfOpts, t string) (valued, certain bool) {
	if strings.HasPrefix(t, "--") {
		key, _, eq := strings.Cut(t, "=")
		if opts.long[key] {
			return true, true
		}
		return false, eq
	}
	for i := 1; i < len(t); i++ {
		ch := t[i]
		switch {
		case strings.IndexByte(opts.valued, ch) >= 0:
			return true, true // the rest of the word, if any, is its value
		case strings.IndexByte(opts.flags, ch) < 0:
			return false, false
		}
	}
	return false, true
}

// perfCommand judges the command a runner runs as if run alone.
func (r *run) perfCommand(idx int, sub string, argv []field, st *state, sc scope, in stdin) error {
	if len(argv) == 0 {
		return nil
	}
	_, err := r.simple(argv, st, sc, in, map[string]string{}, nil, []string{"perf " + sub})
	return err
}

// perfScript: perf script -s FILE (and --script=FILE) runs FILE in perf's
// Python or Perl. `perf script [record] NAME [ARGS] CMD` records CMD for the
// script NAME; how many arguments NAME takes is the script's own, so every
// word after the first operand that could begin the command is judged as
// its start (a superset of what perf runs).
func (r *run) perfScript(idx int, args []field, st *state, sc scope, in stdin) error {
	first := -1
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case a.dynamic:
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "perf script " + a.text, Cmd: idx})
			return nil
		case (a.text == "-s" || a.text == "--script") && k+1 < len(args):
			k++
			r.addPath(args[k], st, "exec", idx, "perf")
		case strings.HasPrefix(a.text, "--script="):
			v := strings.TrimPrefix(a.text, "--script=")
			r.addPath(field{text: v, pattern: v}, st, "exec", idx, "perf")
		case a.text == "--":
			return r.perfCommand(idx, "script", args[k+1:], st, sc, in)
		case strings.HasPrefix(a.text, "-"):
		case first < 0:
			first = k // the script (or "record" / "report")
		default:
			if err := r.perfCommand(idx, "script", args[k:], st, sc, in); err != nil {
				return err
			}
		}
	}
	return nil
}
