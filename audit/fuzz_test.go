package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzVerify feeds verify arbitrary files, seeded with an intact log and
// its pieces: it must never panic, never call a log intact that differs
// from the intact one by a byte it covers, and only call a torn-looking
// tail repairable. Its fast path must come to the same result, to the
// word, as its slow path.
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
		if slow := verify([]string{q}, VerifyOptions{}, true); !reflect.DeepEqual(res, slow) {
			t.Fatalf("fast and slow verify differ:\nfast %+v %v\nslow %+v %v", res, res.Problem, slow, slow.Problem)
		}
	})
}

// scanAgrees checks scanRecord against the slow path on one line: it must
// accept exactly the lines chainFields and canonicalWithout accept, with
// the same fields and the same bytes under the hash.
func scanAgrees(line []byte, prevHint string) error {
	var s lineScan
	fast := scanRecord(line, &s, prevHint)
	m, r, err := chainFields(line)
	slow := false
	var covered []byte
	if err == nil {
		full, cov, cerr := canonicalWithout(m, "hash")
		slow, covered = cerr == nil && bytes.Equal(full, line), cov
	}
	switch {
	case fast && !slow:
		return fmt.Errorf("the fast path accepts a line the slow path refuses (%v): %q", err, line)
	case slow && !fast:
		return fmt.Errorf("the fast path refuses a canonical record: %q", line)
	case !fast:
		return nil
	}
	want := Record{V: r.V, Seq: r.Seq, Kind: r.Kind, Prev: r.Prev, Hash: r.Hash, Head: r.Head, KeyID: r.KeyID,
		Sig: r.Sig, PrevFile: r.PrevFile, Count: r.Count}
	if !reflect.DeepEqual(s.Rec, want) {
		return fmt.Errorf("fields differ on %q:\nfast %+v\nslow %+v", line, s.Rec, want)
	}
	cut := append(append([]byte{}, line[:s.CutFrom]...), line[s.CutTo:]...)
	if !bytes.Equal(cut, covered) {
		return fmt.Errorf("hashed bytes differ on %q:\nfast %q\nslow %q", line, cut, covered)
	}
	return nil
}

// FuzzScanRecord is the differential fuzz of verify's fast path: on any
// line, scanRecord and the slow path agree (see scanAgrees).
func FuzzScanRecord(f *testing.F) {
	p := filepath.Join(f.TempDir(), "seed.jsonl")
	writeLog(f, p, 3, nil, 0)
	for _, l := range lines(f, p) {
		f.Add(bytes.TrimSuffix(l, []byte("\n")), "")
	}
	for _, rc := range sealCases() {
		if line, err := rc.seal(); err == nil {
			f.Add(line[:len(line)-1], rc.Prev)
		}
	}
	for _, s := range []string{`{"hash":"h","kind":"k","v":1}`, `{"kind":"k","v":1,"hash":"h"}`, `{"hash":"h"}`,
		`{"a":"\u001f\b\"\\","hash":"h","kind":"k","prev":"p\n","seq":-12,"v":2}`, `{"é":1,"😀":2,"\uffff":3,"hash":"x","kind":"k","v":1}`,
		`{"hash":"x","kind":"k","seq":1e+21,"v":1}`, `{"hash":"x","kind":"k","seq":1152921504606847000,"v":1}`,
		`{"count":1.5,"hash":"x","kind":"k","v":1}`, `{"hash":"x","kind":"k","v":1,"x":[1.5,-0,0.000001,1e-7,{"b":{},"a":[]}]}`,
		`{"exit_code":9007199254740992,"hash":"x","kind":"k","v":1}`, `{"duration_ms":-9007199254740991,"hash":"x","kind":"k","v":1}`,
		`{"hash":"x","kind":"k","output_bytes":1e+21,"removed_bytes":"9007199254740992","v":1}`,
		`{"hash":"x","kind":"k","v":1,"writer":{"host":"h","pid":9007199254740992,"uid":0}}`,
		`{"hash":"x","kind":"k","v":1,"writer":{"pid":[9007199254740992],"uid":-9007199254740991,"é":1e+300}}`} {
		f.Add([]byte(s), "p\n")
	}
	f.Fuzz(func(t *testing.T, line []byte, prevHint string) {
		if err := scanAgrees(line, prevHint); err != nil {
			t.Fatal(err)
		}
		if err := scanAgrees(line, ""); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzSeal is the differential fuzz of the writer's fast path: records
// with arbitrary strings, numbers and args seal to the bytes, hash and
// error of the generic encoding, and the verifier's two paths read the
// line back alike.
func FuzzSeal(f *testing.F) {
	for _, rc := range sealCases() {
		w := "host"
		if rc.Writer != nil {
			w = rc.Writer.Host
		}
		f.Add(rc.Kind, rc.ID, w, rc.Seq, rc.Count, []byte(rc.Args), true)
	}
	f.Fuzz(func(t *testing.T, kind, s string, host string, seq, n int64, args []byte, flag bool) {
		r := Record{V: 1, Seq: seq, Time: s, Kind: kind, ID: s, Tool: host, Args: args, Prev: s,
			Commands: [][]string{{s, kind}}, Paths: []string{host}, Reasons: []Reason{{Rule: kind, Message: s}},
			Count: n, DurationMS: &n, Truncated: flag, Writer: &Writer{Host: host, PID: int(seq), UID: int(n)}}
		if !flag {
			r.Commands, r.Writer, r.DurationMS, r.V = nil, nil, nil, int(n)
		}
		a, b := r, r
		fast, ferr := a.seal()
		slow, serr := b.sealSlow()
		if !errors.Is(ferr, serr) && (ferr == nil || serr == nil || ferr.Error() != serr.Error()) {
			t.Fatalf("errors differ: %v / %v", ferr, serr)
		}
		if !bytes.Equal(fast, slow) || a.Hash != b.Hash {
			t.Fatalf("lines differ:\nfast %s\nslow %s", fast, slow)
		}
		if ferr == nil {
			if err := scanAgrees(fast[:len(fast)-1], s); err != nil {
				t.Fatal(err)
			}
		}
		// The args on their own, canonicalized directly and generically.
		if len(args) > 0 {
			if got, ok := canonRaw(nil, args, 1); ok {
				v, err := decodeValue(args)
				var want bytes.Buffer
				if err == nil {
					err = canon(&want, v, 1)
				}
				if err != nil || !json.Valid(args) || !bytes.Equal(got, want.Bytes()) {
					t.Fatalf("canonRaw(%q) = %q, generic %q (%v)", args, got, want.Bytes(), err)
				}
			}
		}
	})
}
