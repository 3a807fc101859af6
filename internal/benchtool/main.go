package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/toolgate/toolgate/internal/runtimecfg"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/corpus"
)

const module = "github.com/toolgate/toolgate"

func main() {
	// rows 1 and 6 decide in this process: under the runtime settings of a
	// `toolgate check` process
	runtimecfg.Apply("check")
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// sizes are the repetitions and sizes of every row.
type sizes struct {
	DecideReps    int `json:"decide_reps"`    // rows 1 and 6: rounds
	DecideStride  int `json:"decide_stride"`  // rows 1 and 6: every stride-th corpus line
	GrowthEntries int `json:"growth_entries"` // row 6: entries added to each list
	GrowthReps    int `json:"growth_reps"`
	StreamCalls   int `json:"stream_calls"`    // row 2
	StreamReps    int `json:"stream_reps"`     // rounds of the start and unique-lines runs
	StreamBigReps int `json:"stream_big_reps"` // rounds of the long stream
	SandboxCalls  int `json:"sandbox_calls"`   // row 3: calls per process
	SandboxReps   int `json:"sandbox_reps"`
	SandboxOne    int `json:"sandbox_one_reps"` // row 3: one-call processes
	HookReps      int `json:"hook_reps"`        // row 4
	AppendReps    int `json:"append_reps"`      // row 5
	AppendAlways  int `json:"append_always"`    // appends per round with fsync always
	AppendOther   int `json:"append_other"`     // with batch and never
	VerifyMB      int `json:"verify_mb"`
	VerifyReps    int `json:"verify_reps"`
}

var (
	fullSizes = sizes{
		DecideReps: 9, DecideStride: 1,
		GrowthEntries: 10000, GrowthReps: 7,
		StreamCalls: 100000, StreamReps: 5, StreamBigReps: 3,
		SandboxCalls: 50, SandboxReps: 5, SandboxOne: 15,
		HookReps:   25,
		AppendReps: 5, AppendAlways: 200, AppendOther: 20000,
		VerifyMB: 50, VerifyReps: 5,
	}
	quickSizes = sizes{
		DecideReps: 2, DecideStride: 8,
		GrowthEntries: 1000, GrowthReps: 2,
		StreamCalls: 5000, StreamReps: 1, StreamBigReps: 1,
		SandboxCalls: 4, SandboxReps: 2, SandboxOne: 2,
		HookReps:   2,
		AppendReps: 2, AppendAlways: 20, AppendOther: 2000,
		VerifyMB: 2, VerifyReps: 2,
	}
)

type config struct {
	quick    bool
	rows     []int
	jsonPath string
	toolgate string // a built binary; "" builds one
	root     string
	keep     bool // keep the scratch directory
	noBuild  bool // without -toolgate, measure no binary instead of building one
}

// mixLine is one input line of the corpus, with what it is.
type mixLine struct {
	text     []byte
	category string
	tool     string // "" for raw (malformed) lines
}

// bench is one run of the tool: its settings, scratch space and fixture.
type bench struct {
	cfg  config
	sz   sizes
	log  io.Writer
	ctx  context.Context
	tmp  string // scratch directory, removed at the end
	ws   string // corpus fixture workspace
	home string // corpus fixture home
	mix  []mixLine

	tgOnce sync.Once
	tg     string
	tgErr  error
}

var rowTitles = map[int]string{
	1: "decision latency in-process, corpus mix",
	2: "stream through one `toolgate check` process",
	3: "`toolgate run` of exec `true` vs bare bubblewrap",
	4: "`toolgate hook claude-code`, one process per call",
	5: "audit log: appends per fsync mode, verify throughput",
	6: "policy data growth: decision latency with 10,000-entry lists",
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchtool", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	var rows string
	fs.BoolVar(&cfg.quick, "quick", false, "small sizes and few rounds: a smoke run (figures are not meaningful)")
	fs.StringVar(&rows, "rows", "1,2,3,4,5,6", "the rows to run, comma-separated (1 decide, 2 stream, 3 sandbox, 4 hook, 5 audit, 6 data growth)")
	fs.StringVar(&cfg.jsonPath, "json", "", "also write the results as JSON to `FILE` (\"-\": stdout, after the table)")
	fs.StringVar(&cfg.toolgate, "toolgate", "", "the toolgate binary to measure (default: build ./cmd/toolgate into a scratch directory)")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the scratch directory (fixture, inputs, outputs) and print where it is")
	fs.StringVar(&cfg.root, "root", "", "the repository root (default: found from the current directory)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./internal/benchtool [-quick] [-rows 1,2,...] [-json FILE] [-toolgate BIN]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "benchtool: unexpected arguments %q\n", fs.Args())
		return 2
	}
	for _, f := range strings.Split(rows, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || rowTitles[n] == "" {
			fmt.Fprintf(stderr, "benchtool: -rows: %q is not a row (1 to 6)\n", f)
			return 2
		}
		if !slices.Contains(cfg.rows, n) {
			cfg.rows = append(cfg.rows, n)
		}
	}
	slices.Sort(cfg.rows)
	if err := bench1(cfg, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "benchtool: %v\n", err)
		return 1
	}
	return 0
}

// bench1 sets up, runs the rows and prints the table. An error is returned
// when a row could not be measured; missed targets are not errors.
func bench1(cfg config, stdout, stderr io.Writer) error {
	b, err := newBench(cfg, stderr)
	if err != nil {
		return err
	}
	defer b.close()
	// Interrupted: remove the scratch directory (its logs can be large).
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	go func() {
		if _, ok := <-sig; ok {
			fmt.Fprintln(stderr, "benchtool: interrupted")
			b.close()
			os.Exit(130)
		}
	}()
	m := probeMachine(b.cfg.root)
	start := time.Now()
	secs, failed := b.runRows(cfg.rows)
	m.LoadEnd = loadAvg()
	m.Seconds = time.Since(start).Seconds()

	writeHeader(stdout, m, cfg.quick)
	writeTable(stdout, secs)
	met, missed := tally(secs)
	fmt.Fprintf(stdout, "\ntargets: %d met, %d missed; %.0f s in all; load average at the end %s\n", met, missed, m.Seconds, m.LoadEnd)
	if cfg.jsonPath != "" {
		doc := struct {
			Machine  machine    `json:"machine"`
			Quick    bool       `json:"quick"`
			Sizes    sizes      `json:"sizes"`
			Sections []*section `json:"rows"`
		}{m, cfg.quick, b.sz, secs}
		data, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		data = append(data, '\n')
		if cfg.jsonPath == "-" {
			stdout.Write(data)
		} else if err := os.WriteFile(cfg.jsonPath, data, 0o644); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d row(s) could not be measured (see ERROR in the table)", failed)
	}
	return nil
}

// newBench finds the repository, makes the scratch directory and the
// fixture, and loads the corpus.
func newBench(cfg config, log io.Writer) (*bench, error) {
	if cfg.root == "" {
		r, err := findRoot()
		if err != nil {
			return nil, err
		}
		cfg.root = r
	}
	b := &bench{cfg: cfg, sz: fullSizes, log: log, ctx: context.Background()}
	if cfg.quick {
		b.sz = quickSizes
	}
	if err := b.setup(); err != nil {
		b.close()
		return nil, err
	}
	if cfg.keep {
		fmt.Fprintf(log, "bench: scratch directory %s (kept)\n", b.tmp)
	}
	return b, nil
}

// close removes the scratch directory (unless -keep).
func (b *bench) close() {
	if b.tmp != "" && !b.cfg.keep {
		os.RemoveAll(b.tmp)
	}
}

// runRows measures the rows in order. A row that fails is recorded in its
// section and counted; the others still run.
func (b *bench) runRows(rows []int) (secs []*section, failed int) {
	for _, r := range rows {
		s := &section{Row: r, Title: rowTitles[r]}
		fmt.Fprintf(b.log, "bench: row %d: %s ...\n", r, s.Title)
		t0 := time.Now()
		var err error
		switch r {
		case 1:
			err = b.rowDecide(s)
		case 2:
			err = b.rowStream(s)
		case 3:
			err = b.rowSandbox(s)
		case 4:
			err = b.rowHook(s)
		case 5:
			err = b.rowAudit(s)
		case 6:
			err = b.rowGrowth(s)
		}
		s.Seconds = time.Since(t0).Seconds()
		var sk skip
		switch {
		case errors.As(err, &sk):
			s.Skipped = sk.why
		case err != nil:
			s.Error = err.Error()
			failed++
		}
		fmt.Fprintf(b.log, "bench: row %d done in %.1f s\n", r, s.Seconds)
		secs = append(secs, s)
	}
	return secs, failed
}

// skip is a row that cannot run here (a prerequisite is missing).
type skip struct{ why string }

func (s skip) Error() string { return "skipped: " + s.why }

// findRoot walks up from the current directory to toolgate's go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(bytes.TrimSpace(b), []byte("module "+module)) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cannot find the toolgate repository above the current directory (pass -root)")
		}
		dir = parent
	}
}

// setup makes the scratch directory and the corpus fixture, and loads the
// corpus lines.
func (b *bench) setup() error {
	// Not under /tmp: the policy lets exec write below /tmp, which turns a
	// few corpus verdicts (see internal/corpus's doc).
	parent := "/var/tmp"
	if st, err := os.Stat(parent); err != nil || !st.IsDir() {
		parent = ""
	}
	tmp, err := os.MkdirTemp(parent, "toolgate-bench-")
	if err != nil {
		return err
	}
	b.tmp = tmp
	// Others may pass through (not list) it: row 3's bwrap stand-in lies
	// below, and toolgate runs bwrap as an unprivileged id for a root-owned
	// workspace only where any user can run it (sandbox's mapped box).
	if err := os.Chmod(tmp, 0o711); err != nil {
		return err
	}
	fix := filepath.Join(tmp, "fixture")
	if err := os.Mkdir(fix, 0o755); err != nil {
		return err
	}
	if b.ws, b.home, err = corpus.Fixture(fix); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(tmp, "state"), 0o700); err != nil {
		return err
	}
	cases, err := corpus.Load(filepath.Join(b.cfg.root, "testdata", "attacks"))
	if err != nil {
		return err
	}
	for _, c := range cases {
		for _, l := range c.Lines(b.ws, b.home) {
			b.mix = append(b.mix, mixLine{text: []byte(l), category: c.Category, tool: c.Tool})
		}
	}
	// One fixed shuffle: the corpus files group similar calls together,
	// which real traffic does not.
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(b.mix), func(i, j int) { b.mix[i], b.mix[j] = b.mix[j], b.mix[i] })
	return nil
}

// sample returns every stride-th line of the mix (all of it in a full run).
func (b *bench) sample() []mixLine {
	if b.sz.DecideStride <= 1 {
		return b.mix
	}
	var out []mixLine
	for i := 0; i < len(b.mix); i += b.sz.DecideStride {
		out = append(out, b.mix[i])
	}
	return out
}

// toolgate returns the binary to measure, building it on first use when
// -toolgate was not given.
func (b *bench) toolgate() (string, error) {
	b.tgOnce.Do(func() {
		if b.cfg.toolgate != "" {
			b.tg, b.tgErr = filepath.Abs(b.cfg.toolgate)
			if b.tgErr == nil {
				_, b.tgErr = os.Stat(b.tg)
			}
			return
		}
		if b.cfg.noBuild {
			b.tgErr = errors.New("no binary given and building is off")
			return
		}
		out := filepath.Join(b.tmp, "toolgate")
		fmt.Fprintln(b.log, "bench: building ./cmd/toolgate ...")
		cmd := exec.Command("go", "build", "-o", out, "./cmd/toolgate")
		cmd.Dir = b.cfg.root
		cmd.Env = staticBuild()
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.tgErr = fmt.Errorf("building toolgate: %v: %s", err, strings.TrimSpace(string(msg)))
			return
		}
		b.tg = out
	})
	return b.tg, b.tgErr
}

// staticBuild is the environment of a build as make build does it:
// without cgo, so the binaries are statically linked and start sooner.
func staticBuild() []string { return append(os.Environ(), "CGO_ENABLED=0") }

// hookClient returns the toolgate-hook binary: the one next to the toolgate
// measured, else built beside it.
func (b *bench) hookClient() (string, error) {
	tg, err := b.toolgate()
	if err != nil {
		return "", err
	}
	out := filepath.Join(filepath.Dir(tg), "toolgate-hook")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if b.cfg.noBuild || b.cfg.toolgate != "" {
		return "", errors.New("no toolgate-hook next to " + tg)
	}
	cmd := exec.Command("go", "build", "-o", out, "./cmd/toolgate-hook")
	cmd.Dir = b.cfg.root
	cmd.Env = staticBuild()
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building toolgate-hook: %v: %s", err, strings.TrimSpace(string(msg)))
	}
	return out, nil
}

// env is the environment of the toolgate children: this one's, with HOME
// the fixture's home, the default audit log in the scratch directory, and
// no TOOLGATE_ or CLAUDE_ settings of the person running the benchmark.
func (b *bench) env(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "XDG_STATE_HOME" || strings.HasPrefix(k, "TOOLGATE_") || strings.HasPrefix(k, "CLAUDE_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+b.home, "XDG_STATE_HOME="+filepath.Join(b.tmp, "state"))
	return append(env, extra...)
}

func (b *bench) progress(format string, a ...any) {
	fmt.Fprintf(b.log, "bench:   "+format+"\n", a...)
}

// machine is what the figures were measured on.
type machine struct {
	CPU       string  `json:"cpu"`
	Cores     int     `json:"cores"`
	Kernel    string  `json:"kernel"`
	Go        string  `json:"go"`
	Bwrap     string  `json:"bwrap,omitempty"`
	Commit    string  `json:"commit,omitempty"`
	Time      string  `json:"time"`
	LoadStart string  `json:"load_start"`
	LoadEnd   string  `json:"load_end"`
	Seconds   float64 `json:"seconds"`
}

func probeMachine(root string) machine {
	m := machine{Cores: runtime.NumCPU(), Go: runtime.Version(), Time: time.Now().UTC().Format(time.RFC3339), LoadStart: loadAvg()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if m.CPU == "" {
		m.CPU = runtime.GOARCH
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = runtime.GOOS + " " + strings.TrimSpace(string(b))
	}
	if out, err := exec.Command("bwrap", "--version").Output(); err == nil {
		m.Bwrap = strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
			m.Commit += " + uncommitted changes"
		}
	}
	return m
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func writeHeader(w io.Writer, m machine, quick bool) {
	mode := ""
	if quick {
		mode = "  (-quick: small sizes, a smoke run; do not quote these figures)"
	}
	fmt.Fprintf(w, "toolgate bench, %s%s\n", m.Time, mode)
	fmt.Fprintf(w, "machine: %s, %d cores, %s, %s", m.CPU, m.Cores, m.Kernel, m.Go)
	if m.Bwrap != "" {
		fmt.Fprintf(w, ", %s", m.Bwrap)
	}
	fmt.Fprintln(w)
	if m.Commit != "" {
		fmt.Fprintf(w, "tree:    %s\n", m.Commit)
	}
	fmt.Fprintf(w, "load:    %s at the start (1, 5, 15 min)\n", m.LoadStart)
	fmt.Fprintln(w, "Each figure is the median over its rounds, with the range (min–max) across rounds. Each measurement")
	fmt.Fprintln(w, "runs in the same rounds as its baseline, their order rotating round by round; a ratio is the median")
	fmt.Fprintln(w, "of the ratios taken round by round, so load that comes and goes hits both sides alike.")
	fmt.Fprintln(w)
}
