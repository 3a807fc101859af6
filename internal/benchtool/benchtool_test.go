package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// tinySizes keep the smoke tests to a few seconds: the point is that every
// row still runs end to end, not the figures.
var tinySizes = sizes{
	DecideReps: 1, DecideStride: 1,
	GrowthEntries: 200, GrowthReps: 1,
	StreamCalls: 150, StreamReps: 1, StreamBigReps: 1,
	SandboxCalls: 2, SandboxReps: 1, SandboxOne: 1,
	HookReps:   1,
	AppendReps: 1, AppendAlways: 5, AppendOther: 200,
	VerifyMB: 1, VerifyReps: 1,
}

// tinyBench is a bench over the first 60 corpus lines with tinySizes.
func tinyBench(t *testing.T, cfg config) *bench {
	t.Helper()
	cfg.quick = true
	var log bytes.Buffer
	b, err := newBench(cfg, &log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.close()
		if t.Failed() {
			t.Log(log.String())
		}
	})
	b.sz = tinySizes
	b.mix = b.mix[:min(60, len(b.mix))]
	return b
}

// checkSections fails on a row that errored, and on a row that was
// neither skipped nor measured anything.
func checkSections(t *testing.T, secs []*section, rows []int) {
	t.Helper()
	if len(secs) != len(rows) {
		t.Fatalf("%d sections for rows %v", len(secs), rows)
	}
	for i, s := range secs {
		if s.Row != rows[i] {
			t.Errorf("section %d is row %d, want %d", i, s.Row, rows[i])
		}
		t.Logf("row %d took %.1f s", s.Row, s.Seconds)
		if s.Error != "" {
			t.Errorf("row %d: %s", s.Row, s.Error)
		}
		if s.Skipped == "" && len(s.Lines) == 0 {
			t.Errorf("row %d measured nothing", s.Row)
		}
		for _, l := range s.Lines {
			if l.Value.N == 0 {
				t.Errorf("row %d, %q: no value", s.Row, l.Name)
			}
		}
	}
	var out bytes.Buffer
	writeTable(&out, secs)
	for _, r := range rows {
		if !strings.Contains(out.String(), rowTitles[r]) {
			t.Errorf("the table has no row %d:\n%s", r, out.String())
		}
	}
	if _, err := json.Marshal(secs); err != nil {
		t.Error(err)
	}
	t.Logf("\n%s", out.String())
}

// TestInProcessRows runs the rows that need neither bubblewrap nor a
// toolgate binary: decisions, audit, data growth.
func TestInProcessRows(t *testing.T) {
	b := tinyBench(t, config{noBuild: true})
	rows := []int{1, 5, 6}
	secs, _ := b.runRows(rows)
	checkSections(t, secs, rows)
	targets := 0
	for _, s := range secs {
		for _, l := range s.Lines {
			if l.Pass != nil {
				targets++
			}
		}
	}
	if targets < 5 { // 2 in row 1, 1 in row 5, 2 in row 6
		t.Errorf("%d targets judged, want at least 5", targets)
	}
}

// TestProcessRows runs the stream and hook rows, which need no bubblewrap
// but a toolgate binary: $BENCHTOOL_TOOLGATE, else bin/toolgate (make
// build). It does not build one: linking toolgate takes longer than the
// whole test on a busy machine.
func TestProcessRows(t *testing.T) {
	if testing.Short() {
		t.Skip("starts toolgate processes; not in -short")
	}
	root, err := findRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := os.Getenv("BENCHTOOL_TOOLGATE")
	if bin == "" {
		bin = filepath.Join(root, "bin", "toolgate")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no toolgate binary at %s (make build, or set BENCHTOOL_TOOLGATE)", bin)
	}
	b := tinyBench(t, config{toolgate: bin})
	rows := []int{2, 4}
	secs, _ := b.runRows(rows)
	checkSections(t, secs, rows)
	for _, s := range secs {
		if s.Skipped != "" {
			t.Errorf("row %d skipped: %s", s.Row, s.Skipped)
		}
	}
}

func TestRun(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-rows", "7"}, &out, &errOut); code != 2 {
		t.Errorf("-rows 7: exit %d, want 2", code)
	}
	if code := run([]string{"extra"}, &out, &errOut); code != 2 {
		t.Errorf("extra argument: exit %d, want 2", code)
	}
}

func TestStats(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median = %v", m)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median = %v", m)
	}
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(100 - i)
	}
	if p := percentile(xs, 99); p != 99 {
		t.Errorf("p99 = %v", p)
	}
	if r := ratios([]float64{2, 3}, []float64{1, 0}); !slices.Equal(r, []float64{2}) {
		t.Errorf("ratios = %v", r)
	}
	var order []string
	interleave(2, func(int) error { order = append(order, "a"); return nil }, func(int) error { order = append(order, "b"); return nil })
	if got := strings.Join(order, ""); got != "abba" {
		t.Errorf("interleave order %q, want abba", got)
	}
}

func TestFormat(t *testing.T) {
	for x, want := range map[float64]string{0: "0", 0.1234: "0.123", 1.234: "1.23", 12.34: "12.3", 123.4: "123", 12345: "12,345", 1234567: "1,234,567"} {
		if got := fmtNum(x); got != want {
			t.Errorf("fmtNum(%v) = %q, want %q", x, got, want)
		}
	}
	s := &section{}
	l := s.add("x", "µs", []float64{50, 70, 40}).atMost(60)
	if l.Pass == nil || !*l.Pass || l.Target != "≤ 60 µs" {
		t.Errorf("atMost: %+v", l)
	}
	l = s.add("y", "ms", []float64{2}).vs("base", []float64{1.2}).ratioAtMost(1.15)
	if l.Pass == nil || *l.Pass {
		t.Errorf("ratioAtMost: %+v", l)
	}
	if c := l.cells(); c[3] != "1.20× base" || c[5] != "FAIL" {
		t.Errorf("cells = %q", c)
	}
}

// TestStatusHWM: the peak is read only once the child runs the program
// (until its exec it is the bench's own memory).
func TestStatusHWM(t *testing.T) {
	st := []byte("Name:\ttoolgate\nUmask:\t0022\nVmPeak:\t  200 kB\nVmHWM:\t    9348 kB\nVmRSS:\t 9000 kB\n")
	if v, ok := statusHWM(st, "toolgate"); !ok || v != 9348 {
		t.Errorf("got %d %v", v, ok)
	}
	if _, ok := statusHWM(st, "benchtool"); ok {
		t.Error("another program's memory taken")
	}
	if _, ok := statusHWM([]byte("Name:\ttoolgate\n"), "toolgate"); ok {
		t.Error("no VmHWM line, yet a value")
	}
	// a real child forked from a process holding 256 MiB: its own peak
	// (a shell, a few MiB) is reported, not what ru_maxrss carries over
	big := make([]byte, 256<<20)
	for i := 0; i < len(big); i += 4096 {
		big[i] = 1
	}
	p := proc{path: "/bin/sh", args: []string{"-c", "sleep 0.05"}}
	o, err := p.run()
	if err != nil {
		t.Fatal(err)
	}
	if o.maxRSS <= 0 || o.maxRSS > 64<<10 {
		t.Errorf("peak RSS %d KiB: the forking process's memory was counted", o.maxRSS)
	}
	runtime.KeepAlive(big)
}
