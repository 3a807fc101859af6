package audit

import (
	"encoding/json"
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
