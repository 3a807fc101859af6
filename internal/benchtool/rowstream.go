package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// writeLines writes lines to path, cycling through them until n lines are
// written (n <= 0: each line once).
func writeLines(path string, lines []mixLine, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if n <= 0 {
		n = len(lines)
	}
	for i := 0; i < n; i++ {
		w.Write(lines[i%len(lines)].text)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// checkOutput checks that every line of a check output file is a decision.
func checkOutput(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		var r struct {
			Decision string `json:"decision"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return n, fmt.Errorf("output line %d is not JSON: %v", n, err)
		}
		if r.Decision != "allow" && r.Decision != "deny" && r.Decision != "ask" {
			return n, fmt.Errorf("output line %d has decision %q", n, r.Decision)
		}
	}
	return n, sc.Err()
}

// rowStream: row 2. One `toolgate check` process reading a stream of calls
// on stdin: the unique corpus lines, and the corpus cycled to 100,000
// lines; without an audit log and with one (--fsync batch). A check with
// empty stdin gives the process start floor.
func (b *bench) rowStream(s *section) error {
	tg, err := b.toolgate()
	if err != nil {
		return skip{fmt.Sprintf("no toolgate binary: %v", err)}
	}
	dir := filepath.Join(b.tmp, "stream")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	empty, uniq, stream := filepath.Join(dir, "empty.jsonl"), filepath.Join(dir, "unique.jsonl"), filepath.Join(dir, "stream.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		return err
	}
	if err := writeLines(uniq, b.mix, 0); err != nil {
		return err
	}
	if err := writeLines(stream, b.mix, b.sz.StreamCalls); err != nil {
		return err
	}

	type variant struct {
		name, input string
		audit       bool
		calls       []int     // decisions (output lines), per round
		wall        []float64 // ms per round
		perCall     []float64 // µs per call
		cpuPerCall  []float64 // µs of user+sys CPU per call
		rss         []float64 // MiB
		checked     bool
	}
	out, errf, logf := filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "err.txt"), filepath.Join(dir, "audit.jsonl")
	measure := func(v *variant) func(int) error {
		return func(int) error {
			args := []string{"check", "--workspace", b.ws}
			if v.audit {
				os.Remove(logf)
				args = append(args, "--audit", logf, "--fsync", "batch")
			} else {
				args = append(args, "--audit", "none")
			}
			p := proc{path: tg, args: args, dir: b.ws, env: b.env(), stdin: v.input, stdout: out, stderr: errf}
			o, err := p.mustSucceed(p.run())
			if err != nil {
				return err
			}
			n, err := countLines(out)
			if err != nil {
				return err
			}
			if v.input != empty && !v.checked {
				// Once per variant: every output line is a decision.
				if _, err := checkOutput(out); err != nil {
					return fmt.Errorf("%s: %v", v.name, err)
				}
				v.checked = true
			}
			if v.audit {
				recs, err := countLines(logf)
				if err != nil {
					return err
				}
				if recs < n {
					return fmt.Errorf("%s: %d decisions but %d audit records", v.name, n, recs)
				}
				os.Remove(logf)
			}
			v.calls = append(v.calls, n)
			v.wall = append(v.wall, ms(o.wall))
			v.rss = append(v.rss, float64(o.maxRSS)/1024)
			if n > 0 {
				v.perCall = append(v.perCall, us(o.wall)/float64(n))
				v.cpuPerCall = append(v.cpuPerCall, us(o.cpu)/float64(n))
			}
			return nil
		}
	}
	// The unique lines, with process starts; then the long stream, in
	// rounds of its own (each run is long), with process starts again so
	// each round can take its own start out.
	// One untimed start first: the binary into the page cache.
	if err := measure(&variant{name: "warm-up", input: empty})(0); err != nil {
		return err
	}
	start, uNone, uBatch := &variant{name: "start", input: empty}, &variant{name: "unique, no audit", input: uniq}, &variant{name: "unique, audit batch", input: uniq, audit: true}
	if err := interleave(b.sz.StreamReps, measure(start), measure(uNone), measure(uBatch)); err != nil {
		return err
	}
	start2, sNone, sBatch := &variant{name: "start", input: empty}, &variant{name: "stream, no audit", input: stream}, &variant{name: "stream, audit batch", input: stream, audit: true}
	if err := interleave(b.sz.StreamBigReps, measure(start2), measure(sNone), measure(sBatch)); err != nil {
		return err
	}
	// The steady-state cost of a call: the stream's time less the start of
	// a process measured in the same round.
	marginal := func(v, start *variant) []float64 {
		out := make([]float64, 0, len(v.wall))
		for i := range v.wall {
			out = append(out, (v.wall[i]-start.wall[i])*1000/float64(v.calls[i]))
		}
		return out
	}
	nu, ns := thousands(int64(uNone.calls[0])), thousands(int64(sNone.calls[0]))
	s.add("process start + exit, empty stdin", "ms", start.wall)
	s.add(ns+" calls, --audit none", "µs/call", sNone.perCall)
	s.add(ns+" calls, --audit FILE --fsync batch", "µs/call", sBatch.perCall).vs("none", ratios(sBatch.perCall, sNone.perCall)).atMost(75)
	s.add(ns+" calls, audit batch, start subtracted", "µs/call", marginal(sBatch, start2))
	s.add(ns+" calls, audit batch: CPU user+sys", "µs/call", sBatch.cpuPerCall)
	s.add(ns+" calls, audit batch: peak RSS", "MiB", sBatch.rss).vs("none", ratios(sBatch.rss, sNone.rss))
	s.add(nu+" unique calls, --audit none", "µs/call", uNone.perCall)
	s.add(nu+" unique calls, --audit FILE --fsync batch", "µs/call", uBatch.perCall).vs("none", ratios(uBatch.perCall, uNone.perCall))
	s.add(nu+" unique calls, audit batch, start subtracted", "µs/call", marginal(uBatch, start))
	s.add(nu+" unique calls, audit batch: CPU user+sys", "µs/call", uBatch.cpuPerCall)
	s.add(nu+" unique calls, audit batch: peak RSS", "MiB", uBatch.rss)
	s.add("process start: peak RSS", "MiB", start.rss)
	s.note("rounds: %d for the process start and the unique lines, %d for the %s-call stream (each run is long)", b.sz.StreamReps, b.sz.StreamBigReps, ns)
	s.note("wall time from start to exit of one process / decisions written (process start included); stdin a file, stdout a file")
	s.note("the %s-call stream cycles the %s distinct corpus lines; the unique row has each once. Repeats are cheap only while the decision cache holds them (two generations of 1,024 entries), so a cycle longer than that gets few hits", ns, nu)
	s.note("cwd and --workspace the corpus fixture, HOME its fake home; a fresh audit file each run; peak RSS is the child's VmHWM, read every millisecond once its program runs (its ru_maxrss would carry this bench's own memory, from which it is forked)")
	return nil
}
