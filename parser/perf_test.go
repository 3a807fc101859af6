package parser

import (
	"slices"
	"testing"
)

// TestPerfRunsItsCommand: the command a perf runner starts is analysed as
// if run alone, wherever perf's options leave it; an option perf might
// give a value is read both ways.
func TestPerfRunsItsCommand(t *testing.T) {
	for src, want := range map[string][]string{
		"perf stat make test":                      {"perf", "make"},
		"perf stat -r 5 -e cycles,instructions ls": {"perf", "ls"},
		"perf stat -ecycles ls":                    {"perf", "ls"},
		"perf stat -ae cycles ls":                  {"perf", "ls"},
		"perf record -g -- ls":                     {"perf", "ls"},
		"perf record -F 99 -o out.data ls":         {"perf", "ls"},
		"perf --debug verbose=2 trace ls":          {"perf", "ls"},
		"perf sched record ls":                     {"perf", "ls"},
		"perf mem -t load record ls":               {"perf", "ls"},
		"perf kvm --host stat record ls":           {"perf", "ls"},
		"perf ftrace latency -T f ls":              {"perf", "ls"},
		"perf script record failed-syscalls ls":    {"perf", "failed-syscalls", "ls"},
		"perf script failed-syscalls ls":           {"perf", "ls"},
		"perf stat record -e cycles ls":            {"perf", "ls"},
		"perf trace record ls":                     {"perf", "ls"},
		"perf stat --pre 'make clean' ls":          {"perf", "make", "ls"},
		"perf iostat -- ls":                        {"perf", "ls"},
		// unknown to the table: either the value of --newer or the command
		"perf stat --newer wc ls": {"perf", "wc", "ls"},
		"perf report":             {"perf"},
		"perf top -e cycles":      {"perf"},
	} {
		f := analyze(t, src)
		var got []string
		for _, c := range f.Commands {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: commands %q, want %q", src, got, want)
		}
	}
	f := analyze(t, "perf record -o /tmp/p.data ls")
	if p := pathOf(f, "write"); p == nil || p.Real != "/tmp/p.data" {
		t.Errorf("perf record -o: no write of /tmp/p.data in %+v", f.Paths)
	}
}
