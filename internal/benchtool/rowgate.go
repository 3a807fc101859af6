package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/internal/corpus"
	"github.com/toolgate/toolgate/internal/runtimecfg"
	"github.com/toolgate/toolgate/policies"
)

// pass is one pass of a gate over the mix.
type pass struct {
	lat       []float64 // µs per decision, one entry per decision
	perLine   []float64 // µs per line, in line order
	benign    []float64 // the same, benign lines only
	decisions int
	mallocs   uint64
	bytes     uint64
	verdicts  map[string]int
}

// decidePass decides every line once with g, timing each line. A line that
// holds several calls counts as that many decisions of equal share.
// Allocations are counted over the whole pass.
//
// With repeat, each line is decided twice in a row and only the second
// call is timed and counted (allocations around it alone): with the cache
// on, that call is answered from the cache, whatever the cache's size.
func (b *bench) decidePass(g *gate.Gate, lines []mixLine, repeat bool) pass {
	p := pass{lat: make([]float64, 0, 2*len(lines)), perLine: make([]float64, len(lines)), benign: make([]float64, 0, len(lines)), verdicts: map[string]int{}}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for i, l := range lines {
		if repeat {
			g.DecideLine(b.ctx, l.text, i+1)
			runtime.ReadMemStats(&m0)
		}
		t0 := time.Now()
		rs := g.DecideLine(b.ctx, l.text, i+1)
		d := us(time.Since(t0))
		if repeat {
			runtime.ReadMemStats(&m1)
			p.mallocs += m1.Mallocs - m0.Mallocs
			p.bytes += m1.TotalAlloc - m0.TotalAlloc
		}
		p.perLine[i] = d
		n := max(1, len(rs))
		for range n {
			p.lat = append(p.lat, d/float64(n))
			if l.category == "benign" {
				p.benign = append(p.benign, d/float64(n))
			}
		}
		p.decisions += len(rs)
		for _, r := range rs {
			p.verdicts[r.Decision]++
		}
	}
	if !repeat {
		runtime.ReadMemStats(&m1)
		p.mallocs, p.bytes = m1.Mallocs-m0.Mallocs, m1.TotalAlloc-m0.TotalAlloc
	}
	return p
}

func (b *bench) newGate(o gate.Options) (*gate.Gate, time.Duration, error) {
	o.Workspace, o.Home = b.ws, b.home
	t0 := time.Now()
	g, err := gate.New(b.ctx, o)
	return g, time.Since(t0), err
}

// describeMix says what the lines are: how many, which tools, which
// categories, and what the gate decided.
func describeMix(lines []mixLine, verdicts map[string]int) string {
	tools := map[string]bool{}
	cats := map[string]int{}
	for _, l := range lines {
		if l.tool != "" {
			tools[l.tool] = true
		}
		cats[l.category]++
	}
	var ts []string
	for _, t := range corpus.Tools {
		if tools[t] {
			ts = append(ts, t)
		}
	}
	var cs []string
	for _, c := range corpus.Categories {
		if cats[c] > 0 {
			cs = append(cs, fmt.Sprintf("%s %d", c, cats[c]))
		}
	}
	return fmt.Sprintf("%d corpus lines (testdata/attacks, shuffled), tools %s; %s; verdicts allow %d, deny %d, ask %d",
		len(lines), strings.Join(ts, " "), strings.Join(cs, ", "), verdicts["allow"], verdicts["deny"], verdicts["ask"])
}

// rowDecide: row 1. The corpus mix through gate.DecideLine, with the
// decision cache off (every decision analysed and evaluated) and on.
func (b *bench) rowDecide(s *section) error {
	lines := b.sample()
	off, _, err := b.newGate(gate.Options{NoCache: true})
	if err != nil {
		return err
	}
	on, _, err := b.newGate(gate.Options{})
	if err != nil {
		return err
	}
	// Warm up both. The cached gate decides each line twice in a row and
	// the second call, a cache hit, is the one measured: cycling the mix
	// would not do, as it is larger than the cache (see row 2).
	first := b.decidePass(off, lines, false)
	b.decidePass(on, lines, true)

	var offMed, offMean, offP99, offBenign, offAllocs, offKiB []float64
	var onMed, onMean, onP99, onAllocs []float64
	var defMed, defP99 []float64
	lineSum := make([]float64, len(lines))
	err = interleave(b.sz.DecideReps,
		// the baseline: the same gate under Go's default collector
		func(int) error {
			prev := debug.SetGCPercent(100)
			defer debug.SetGCPercent(prev)
			runtime.GC()
			p := b.decidePass(off, lines, false)
			defMed = append(defMed, median(p.lat))
			defP99 = append(defP99, percentile(p.lat, 99))
			return nil
		},
		func(int) error {
			p := b.decidePass(off, lines, false)
			for i, d := range p.perLine {
				lineSum[i] += d
			}
			offMed = append(offMed, median(p.lat))
			offMean = append(offMean, mean(p.lat))
			offP99 = append(offP99, percentile(p.lat, 99))
			offBenign = append(offBenign, median(p.benign))
			offAllocs = append(offAllocs, float64(p.mallocs)/float64(p.decisions))
			offKiB = append(offKiB, float64(p.bytes)/1024/float64(p.decisions))
			return nil
		},
		func(int) error {
			p := b.decidePass(on, lines, true)
			onMed = append(onMed, median(p.lat))
			onMean = append(onMean, mean(p.lat))
			onP99 = append(onP99, percentile(p.lat, 99))
			onAllocs = append(onAllocs, float64(p.mallocs)/float64(p.decisions))
			return nil
		})
	if err != nil {
		return err
	}
	s.add("cache off: median per decision", "µs", offMed).atMost(60)
	s.add("cache off: p99 per decision", "µs", offP99).atMost(300)
	s.add("cache off, Go's default collector (GOGC=100): median", "µs", defMed).vs("toolgate's", ratios(defMed, offMed))
	s.add("cache off, Go's default collector: p99", "µs", defP99).vs("toolgate's", ratios(defP99, offP99))
	s.add("cache off: mean per decision (what a stream pays)", "µs", offMean)
	s.add("cache off: median, benign lines only", "µs", offBenign)
	s.add("cache off: allocations per decision", "allocs", offAllocs)
	s.add("cache off: bytes allocated per decision", "KiB", offKiB)
	s.add("cache on, the call repeated (a hit): median", "µs", onMed).vs("cache off", ratios(onMed, offMed))
	s.add("cache on, repeated (a hit): mean", "µs", onMean).vs("cache off", ratios(onMean, offMean))
	s.add("cache on, repeated (a hit): p99", "µs", onP99).vs("cache off", ratios(onP99, offP99))
	s.add("cache on, repeated (a hit): allocations", "allocs", onAllocs)
	s.note("%s", describeMix(lines, first.verdicts))
	s.note("slowest lines, cache off (mean over the rounds): %s", slowest(lines, lineSum, b.sz.DecideReps, 3))
	s.note("each round decides every line with each gate (gate.New + DecideLine, decode included); cache on: each line twice in a row, the second call (a hit) timed; p99 is per round")
	s.note("the runtime as in a `toolgate check` process (runtimecfg: GOGC=%d unless GOGC is set, the huge-page heap); the baseline pass sets Go's default GOGC=100 for its round", runtimecfg.StreamGCPercent)
	return nil
}

// slowest describes the k lines with the largest total time.
func slowest(lines []mixLine, sum []float64, reps, k int) string {
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return sum[idx[a]] > sum[idx[b]] })
	var parts []string
	for _, i := range idx[:min(k, len(idx))] {
		var call struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		what := string(lines[i].text)
		if json.Unmarshal(lines[i].text, &call) == nil {
			if c, ok := call.Arguments["command"].(string); ok {
				what = c
			} else if call.Name != "" {
				a, _ := json.Marshal(call.Arguments)
				what = call.Name + " " + string(a)
			}
		}
		if r := []rune(what); len(r) > 50 {
			what = string(r[:50]) + "…"
		}
		parts = append(parts, fmt.Sprintf("%s µs %s %q", fmtNum(sum[i]/float64(reps)), lines[i].category, what))
	}
	return strings.Join(parts, "; ")
}

// rowGrowth: row 6. The same mix, cache off, with the default data and
// with 10,000 more allowed_commands or sensitive_paths entries.
func (b *bench) rowGrowth(s *section) error {
	n := b.sz.GrowthEntries
	allowFile, sensFile, err := b.growthData(n)
	if err != nil {
		return err
	}
	lines := b.sample()
	def, tDef, err := b.newGate(gate.Options{NoCache: true})
	if err != nil {
		return err
	}
	allow, tAllow, err := b.newGate(gate.Options{NoCache: true, DataFiles: []string{allowFile}})
	if err != nil {
		return fmt.Errorf("gate with %d allowed_commands: %w", n, err)
	}
	sens, tSens, err := b.newGate(gate.Options{NoCache: true, DataFiles: []string{sensFile}})
	if err != nil {
		return fmt.Errorf("gate with %d more sensitive_paths: %w", n, err)
	}
	pd, pa, ps := b.decidePass(def, lines, false), b.decidePass(allow, lines, false), b.decidePass(sens, lines, false)
	var dm, am, sm []float64
	err = interleave(b.sz.GrowthReps,
		func(int) error { dm = append(dm, median(b.decidePass(def, lines, false).lat)); return nil },
		func(int) error { am = append(am, median(b.decidePass(allow, lines, false).lat)); return nil },
		func(int) error { sm = append(sm, median(b.decidePass(sens, lines, false).lat)); return nil })
	if err != nil {
		return err
	}
	k := thousands(int64(n))
	s.add("default data: median per decision", "µs", dm)
	s.add(k+" allowed_commands: median", "µs", am).vs("default", ratios(am, dm)).ratioAtMost(1.5)
	s.add("+"+k+" sensitive_paths: median", "µs", sm).vs("default", ratios(sm, dm)).ratioAtMost(1.5)
	s.add("gate.New, default data (once)", "ms", []float64{ms(tDef)})
	s.add("gate.New, "+k+" allowed_commands (once)", "ms", []float64{ms(tAllow)}).vs("default", []float64{ms(tAllow) / ms(tDef)})
	s.add("gate.New, +"+k+" sensitive_paths (once)", "ms", []float64{ms(tSens)}).vs("default", []float64{ms(tSens) / ms(tDef)})
	s.note("same %d lines as row 1, cache off; data files passed as gate.Options.DataFiles (arrays replace the default's)", len(lines))
	s.note("allowed_commands = %d common prefixes (git status, go test, ls, ...) + entries like \"tool123 sub\"; with a list set, other commands are denied", len(commonCommands))
	s.note("sensitive_paths = the default %d + entries like \"/srv/data123/secret\" and \"~/.cache/x123\"", defaultSensitiveCount())
	s.note("verdicts: default allow %d / deny %d / ask %d; allowlist allow %d / deny %d / ask %d; sensitive allow %d / deny %d / ask %d",
		pd.verdicts["allow"], pd.verdicts["deny"], pd.verdicts["ask"], pa.verdicts["allow"], pa.verdicts["deny"], pa.verdicts["ask"],
		ps.verdicts["allow"], ps.verdicts["deny"], ps.verdicts["ask"])
	return nil
}

// commonCommands lead the generated allowlist, so the everyday calls of
// the mix stay allowed.
var commonCommands = []string{
	"git status", "git diff", "git log", "git add", "git commit", "git show", "git branch",
	"go test", "go build", "go vet", "gofmt", "ls", "cat", "grep", "find", "head", "tail", "wc",
	"sed", "awk", "sort", "uniq", "echo", "printf", "make", "npm test", "npm run", "node",
	"python3", "pytest", "cd", "pwd", "mkdir", "touch", "cp", "mv", "rm", "diff", "xargs", "true",
}

func defaultData() (map[string]any, error) {
	b, err := fs.ReadFile(policies.FS, "data.json")
	if err != nil {
		return nil, err
	}
	var d map[string]any
	return d, json.Unmarshal(b, &d)
}

func defaultSensitive() []string {
	d, err := defaultData()
	if err != nil {
		return nil
	}
	tg, _ := d["toolgate"].(map[string]any)
	cfg, _ := tg["config"].(map[string]any)
	raw, _ := cfg["sensitive_paths"].([]any)
	var out []string
	for _, v := range raw {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func defaultSensitiveCount() int { return len(defaultSensitive()) }

// growthData writes the two data files of row 6.
func (b *bench) growthData(n int) (allowFile, sensFile string, err error) {
	allowed := slices.Clone(commonCommands)
	subs := []string{"sub", "run", "build", "check"}
	for i := 0; len(allowed) < n; i++ {
		if i%3 == 0 {
			allowed = append(allowed, fmt.Sprintf("tool%d", i))
		} else {
			allowed = append(allowed, fmt.Sprintf("tool%d %s", i, subs[i%len(subs)]))
		}
	}
	def := defaultSensitive()
	if len(def) == 0 {
		return "", "", fmt.Errorf("cannot read the default sensitive_paths from policies/data.json")
	}
	sens := slices.Clone(def)
	for i := 0; len(sens) < len(def)+n; i++ {
		if i%2 == 0 {
			sens = append(sens, fmt.Sprintf("/srv/data%d/secret", i))
		} else {
			sens = append(sens, fmt.Sprintf("~/.cache/x%d", i))
		}
	}
	write := func(name, key string, list []string) (string, error) {
		doc := map[string]any{"toolgate": map[string]any{"config": map[string]any{key: list}}}
		data, err := json.Marshal(doc)
		if err != nil {
			return "", err
		}
		p := filepath.Join(b.tmp, name)
		return p, os.WriteFile(p, data, 0o644)
	}
	if allowFile, err = write("allowed.json", "allowed_commands", allowed); err != nil {
		return "", "", err
	}
	sensFile, err = write("sensitive.json", "sensitive_paths", sens)
	return allowFile, sensFile, err
}
