package gate

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/toolgate/toolgate/internal/corpus"
)

// attackDir holds the attack corpus shared by the gate's tests.
const attackDir = "../testdata/attacks"

// FuzzDecodeLine checks the properties every caller relies on: DecodeLine
// never panics (a recovered panic is CodePanic, which fails here), never
// returns an empty slice, gives each result either an error or a call with a
// tool and compact object arguments (also under tight limits), answers the
// same way twice, and a decoded call sent again in the native shape decodes
// to the same call.
//
// Seeds: the decode vectors, a few byte-level cases, and every line of the
// attack corpus when it exists.
func FuzzDecodeLine(f *testing.F) {
	for _, v := range readVectors(f) {
		f.Add([]byte(v.line))
	}
	for _, s := range []string{
		"\x00", "\xff", `{"id":"a","name":"x","arguments":{"s":"` + "\xed\xa0\x80" + `"}}`,
		`{"id":"a","type":"function","function":{"name":"x","arguments":"{\"a\":\"\\ud83d\\ude00\"}"}}`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
	} {
		f.Add([]byte(s))
	}
	if _, err := os.Stat(attackDir); err == nil {
		cases, err := corpus.Load(attackDir)
		if err != nil {
			f.Fatal(err)
		}
		for _, c := range cases {
			for _, line := range c.Lines("/work/ws", "/home/user") {
				f.Add([]byte(line))
			}
		}
	}

	f.Fuzz(func(t *testing.T, line []byte) {
		lim := DefaultLimits()
		out := DecodeLine(line, lim)
		if len(out) == 0 {
			t.Fatalf("DecodeLine(%q) returned nothing", line)
		}
		for _, d := range out {
			if d.Err != nil && d.Err.Code == CodePanic {
				t.Fatalf("DecodeLine(%q) panicked", line)
			}
		}
		checkInvariants(t, line, out)
		checkInvariants(t, line, DecodeLine(line, Limits{MaxLineBytes: 256, MaxDepth: 3, MaxBatch: 2}))

		again := DecodeLine(line, lim)
		if len(again) != len(out) {
			t.Fatalf("DecodeLine(%q): %d results, then %d", line, len(out), len(again))
		}
		for i := range out {
			if got(out[i]) != got(again[i]) {
				t.Fatalf("DecodeLine(%q)[%d]: %v, then %v", line, i, got(out[i]), got(again[i]))
			}
		}

		for _, d := range out {
			if d.Err != nil {
				continue
			}
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(map[string]any{"id": d.Call.ID, "name": d.Call.Tool, "arguments": d.Call.Args}); err != nil {
				t.Fatal(err)
			}
			lim2 := lim
			lim2.MaxLineBytes = 2*len(line) + 1024
			re := DecodeLine(bytes.TrimSpace(b.Bytes()), lim2)
			if len(re) != 1 || re[0].Err != nil || re[0].Call.ID != d.Call.ID ||
				re[0].Call.Tool != d.Call.Tool || !bytes.Equal(re[0].Call.Args, d.Call.Args) {
				t.Fatalf("DecodeLine(%q) gave %+v; sent again natively: %+v (%v)", line, d.Call, re[0].Call, re[0].Err)
			}
		}
	})
}
