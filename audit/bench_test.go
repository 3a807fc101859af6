package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkAppend measures appends per fsync mode (one process, a realistic
// decision record).
//
//	go test ./audit -run x -bench Append
func BenchmarkAppend(b *testing.B) {
	for _, mode := range []Fsync{FsyncAlways, FsyncBatch, FsyncNever} {
		b.Run(string(mode), func(b *testing.B) {
			l, err := Open(Options{Path: filepath.Join(b.TempDir(), "a.jsonl"), Fsync: mode})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			rec := Record{Kind: KindDecision, ID: "call-1", Tool: "exec", Source: "check",
				Args: json.RawMessage(`{"command":"go test ./... && git status"}`), Decision: "allow",
				Commands: [][]string{{"go", "test", "./..."}, {"git", "status"}}, Paths: []string{"/work/ws"},
				Policy: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := l.Append(rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSeal measures encoding and hashing one record, without the
// file: the direct encoding and the generic one it replaced.
func BenchmarkSeal(b *testing.B) {
	rec := Record{V: 1, Seq: 12345, Time: "2026-01-02T03:04:05.123456789Z", Kind: KindDecision, ID: "call-1", Tool: "exec", Source: "check",
		Args: json.RawMessage(`{"command":"go test ./... \u0026\u0026 git status","cwd":"/work/ws"}`), Decision: "allow",
		Commands: [][]string{{"go", "test", "./..."}, {"git", "status"}}, Paths: []string{"/work/ws"},
		Policy: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		Writer: &Writer{Host: "vm", User: "dev", UID: 1000, PID: 4242, Program: "toolgate check"}, Prev: ZeroHash}
	for _, direct := range []bool{true, false} {
		name := "generic"
		if direct {
			name = "direct"
		}
		b.Run(name, func(b *testing.B) {
			var buf []byte
			b.ReportAllocs()
			for b.Loop() {
				r := rec
				var err error
				if direct {
					buf, err = r.sealAppend(buf[:0])
				} else {
					buf, err = r.sealSlow()
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerify measures verification throughput over a 20,000-record log
// (MB/s in the output).
func BenchmarkVerify(b *testing.B) {
	p := filepath.Join(b.TempDir(), "v.jsonl")
	l, err := Open(Options{Path: p, Fsync: FsyncNever})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 20000; i++ {
		if _, err := l.Append(Record{Kind: KindDecision, ID: "c", Tool: "exec", Decision: "deny",
			Args: json.RawMessage(`{"command":"rm -rf ~"}`), Reasons: []Reason{{Rule: "destroy.home", Message: "deletes the home directory"}}}); err != nil {
			b.Fatal(err)
		}
	}
	l.Close()
	st, _ := os.Stat(p)
	b.SetBytes(st.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := Verify([]string{p}, VerifyOptions{}); res.Problem != nil {
			b.Fatal(res.Problem)
		}
	}
}

// BenchmarkVerifySigned measures verification of a signed log of varied
// records (unicode and escapes in args, outcomes, a checkpoint every 1000
// records) with the public key.
func BenchmarkVerifySigned(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "v.jsonl")
	pub, err := GenerateKey(filepath.Join(dir, "k"), filepath.Join(dir, "k.pub"))
	if err != nil {
		b.Fatal(err)
	}
	key, _ := LoadPrivateKey(filepath.Join(dir, "k"))
	l, err := Open(Options{Path: p, Fsync: FsyncNever, Key: key, Program: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 10000; i++ {
		code, ms, n := i%3, int64(i), int64(i*7)
		if _, err := l.Append(Record{Kind: KindDecision, ID: fmt.Sprint("c", i), Tool: "write_file", Decision: "allow",
			Args:  MaskArgs("write_file", json.RawMessage(fmt.Sprintf(`{"path":"/tmp/é/%d.txt","content":"x","note":"a < b && \"c\" 😀"}`, i)), DefaultMask),
			Paths: []string{fmt.Sprintf("/tmp/é/%d.txt", i)}}); err != nil {
			b.Fatal(err)
		}
		if _, err := l.Append(Record{Kind: KindOutcome, ID: fmt.Sprint("c", i), ExitCode: &code, DurationMS: &ms, OutputBytes: &n,
			OutputSHA256: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}); err != nil {
			b.Fatal(err)
		}
	}
	l.Close()
	st, _ := os.Stat(p)
	b.SetBytes(st.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := Verify([]string{p}, VerifyOptions{PublicKey: pub}); res.Problem != nil || res.Verified < 20 {
			b.Fatal(res.Problem, res.Verified)
		}
	}
}
