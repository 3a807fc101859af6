package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolgate/toolgate/audit"
)

// auditRecords is a small rotation of realistic decision records.
func auditRecord(i int) audit.Record {
	switch i % 4 {
	case 0:
		return audit.Record{Kind: audit.KindDecision, ID: fmt.Sprintf("call-%d", i), Tool: "exec", Source: "check",
			Args: json.RawMessage(`{"command":"go test ./... && git status"}`), Decision: "allow",
			Commands: [][]string{{"go", "test", "./..."}, {"git", "status"}}, Paths: []string{"/work/ws"},
			Policy: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
	case 1:
		return audit.Record{Kind: audit.KindDecision, ID: fmt.Sprintf("call-%d", i), Tool: "exec", Source: "check",
			Args: json.RawMessage(`{"command":"cat ~/.ssh/id_rsa | base64"}`), Decision: "deny",
			Commands: [][]string{{"cat", "/home/me/.ssh/id_rsa"}, {"base64"}}, Paths: []string{"/home/me/.ssh/id_rsa"},
			Reasons: []audit.Reason{{Rule: "secrets.access", Message: "cat touches /home/me/.ssh/id_rsa, which holds secrets (~/.ssh); never read or copy credentials — ask the user to provide what you need"}},
			Policy:  "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
	case 2:
		return audit.Record{Kind: audit.KindDecision, ID: fmt.Sprintf("call-%d", i), Tool: "read_file", Source: "run",
			Args: json.RawMessage(`{"path":"src/main.go","offset":1,"limit":200}`), Decision: "allow",
			Paths: []string{"/work/ws/src/main.go"}, Policy: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
	default:
		return audit.Record{Kind: audit.KindDecision, ID: fmt.Sprintf("call-%d", i), Tool: "write_file", Source: "run",
			Args: json.RawMessage(`{"path":"src/new.go","content":"package main\n\nfunc main() {}\n"}`), Decision: "ask",
			Paths:   []string{"/work/ws/src/new.go"},
			Reasons: []audit.Reason{{Rule: "ask.write", Message: "writes a new file; confirm"}},
			Policy:  "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
	}
}

// appendRound opens a fresh log, appends n records, and returns µs per
// append (Close, with its final flush, not included).
func (b *bench) appendRound(mode audit.Fsync, n, round int) (float64, error) {
	p := filepath.Join(b.tmp, fmt.Sprintf("append-%s-%d.jsonl", mode, round))
	l, err := audit.Open(audit.Options{Path: p, Fsync: mode, Program: "benchtool"})
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	for i := 0; i < n; i++ {
		if _, err := l.Append(auditRecord(i)); err != nil {
			l.Close()
			return 0, err
		}
	}
	d := time.Since(t0)
	if err := l.Close(); err != nil {
		return 0, err
	}
	os.Remove(p)
	return us(d) / float64(n), nil
}

// rowAudit: row 5. Append cost per fsync mode (in-process, audit.Open and
// Append), then verify throughput on a generated log, in-process and
// through `toolgate audit verify`, against reading and hashing the file.
func (b *bench) rowAudit(s *section) error {
	var always, batch, never []float64
	round := func(mode audit.Fsync, n int, dst *[]float64) func(int) error {
		return func(r int) error {
			v, err := b.appendRound(mode, n, r)
			*dst = append(*dst, v)
			return err
		}
	}
	err := interleave(b.sz.AppendReps,
		round(audit.FsyncAlways, b.sz.AppendAlways, &always),
		round(audit.FsyncBatch, b.sz.AppendOther, &batch),
		round(audit.FsyncNever, b.sz.AppendOther, &never))
	if err != nil {
		return err
	}
	perSec := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = 1e6 / x
		}
		return out
	}
	s.add("append, --fsync never", "µs", never)
	s.add("append, --fsync batch", "µs", batch).vs("never", ratios(batch, never))
	s.add("append, --fsync always", "µs", always).vs("never", ratios(always, never))
	s.add("append rate, never", "/s", perSec(never))
	s.add("append rate, batch", "/s", perSec(batch))
	s.add("append rate, always", "/s", perSec(always))

	// The log to verify.
	logPath := filepath.Join(b.tmp, "verify.jsonl")
	l, err := audit.Open(audit.Options{Path: logPath, Fsync: audit.FsyncNever, Program: "benchtool"})
	if err != nil {
		return err
	}
	want := int64(b.sz.VerifyMB) << 20
	var size int64
	for i := 0; size < want; i++ {
		if _, err := l.Append(auditRecord(i)); err != nil {
			l.Close()
			return err
		}
		if i%1000 == 999 {
			if st, err := os.Stat(logPath); err == nil {
				size = st.Size()
			}
		}
	}
	if err := l.Close(); err != nil {
		return err
	}
	st, err := os.Stat(logPath)
	if err != nil {
		return err
	}
	mb := float64(st.Size()) / 1e6
	b.progress("audit log to verify: %.1f MB", mb)

	var hashR, inR, cliR []float64
	var records int64
	variants := []func(int) error{
		func(int) error { // the floor: read the file and hash all of it once
			t0 := time.Now()
			f, err := os.Open(logPath)
			if err != nil {
				return err
			}
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			hashR = append(hashR, mb/time.Since(t0).Seconds())
			return err
		},
		func(int) error {
			t0 := time.Now()
			res := audit.Verify([]string{logPath}, audit.VerifyOptions{})
			inR = append(inR, mb/time.Since(t0).Seconds())
			if res.Problem != nil {
				return fmt.Errorf("audit.Verify: %s", res.Problem)
			}
			records = res.Records
			return nil
		},
	}
	tg, tgErr := b.toolgate()
	if tgErr == nil {
		out, errf := filepath.Join(b.tmp, "verify.out"), filepath.Join(b.tmp, "verify.err")
		p := proc{path: tg, args: []string{"audit", "verify", logPath}, dir: b.tmp, env: b.env(), stdout: out, stderr: errf}
		if _, err := p.mustSucceed(p.run()); err != nil { // untimed: the binary into the page cache
			return err
		}
		variants = append(variants, func(int) error {
			o, err := p.mustSucceed(p.run())
			if err != nil {
				return err
			}
			if txt, _ := os.ReadFile(out); !strings.HasPrefix(string(txt), "intact:") {
				return fmt.Errorf("toolgate audit verify said %q", strings.TrimSpace(string(txt)))
			}
			cliR = append(cliR, mb/o.wall.Seconds())
			return nil
		})
	}
	if err := interleave(b.sz.VerifyReps, variants...); err != nil {
		return err
	}
	s.add("read + sha256 of the log (floor)", "MB/s", hashR)
	s.add("verify, in-process (audit.Verify)", "MB/s", inR).vs("floor", ratios(inR, hashR)).atLeast(200)
	if tgErr == nil {
		s.add("verify, `toolgate audit verify` (process)", "MB/s", cliR).vs("floor", ratios(cliR, hashR)).atLeast(200)
	} else {
		s.note("`toolgate audit verify` not measured: %v", tgErr)
	}
	s.note("appends: a fresh log per round, %d appends with always, %d with batch and never; Close not timed; the log is under %s",
		b.sz.AppendAlways, b.sz.AppendOther, b.tmp)
	s.note("verify: a %.1f MB log of %d records (4 kinds of decision record), read from the page cache", mb, records)
	return nil
}
