package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzVerify feeds verify arbitrary files, seeded with an intact log and
// its pieces: it must never panic, never call a log intact that differs
// from the intact one by a byte it covers, and only call a torn-looking
// tail repairable.
func FuzzVerify(f *testing.F) {
	dir := f.TempDir()
	p := filepath.Join(dir, "seed.jsonl")
	writeLog(f, p, 5, nil, 0)
	seed, _ := os.ReadFile(p)
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add(append(append([]byte{}, seed...), seed...))
	f.Add([]byte("{}\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		q := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(q, data, 0o600); err != nil {
			t.Fatal(err)
		}
		res := Verify([]string{q}, VerifyOptions{})
		if res.Problem == nil && len(data) > 0 && !bytes.Equal(data, seed) && bytes.HasPrefix(seed, data) {
			// A strict prefix of the intact log that ends on a line boundary
			// is itself intact (a shorter log); anything else cut is not.
			if data[len(data)-1] != '\n' {
				t.Fatalf("a cut log passed: %q", data)
			}
		}
		if res.Repairable && (res.Problem == nil || res.Problem.Kind != ProblemTorn) {
			t.Fatalf("repairable without a torn tail: %+v", res.Problem)
		}
	})
}
