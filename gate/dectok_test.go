package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

// tokens reads every token of text from src, with its offset.
func tokens(t *testing.T, src decSource) ([]decTok, []int) {
	t.Helper()
	var toks []decTok
	var offs []int
	for {
		tok, off, err := src.next()
		if errors.Is(err, io.EOF) {
			return toks, offs
		}
		if err != nil {
			t.Fatalf("token %d: %v", len(toks), err)
		}
		toks = append(toks, tok)
		offs = append(offs, off)
	}
}

// sameTokens checks that validSource reads valid text exactly as
// encoding/json's Decoder does: the same tokens, decoded the same way, at
// the same offsets.
func sameTokens(t *testing.T, text []byte) {
	t.Helper()
	if !json.Valid(text) {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	want, wantOffs := tokens(t, &jsonSource{dec: dec})
	got, gotOffs := tokens(t, &validSource{b: text})
	if len(got) != len(want) {
		t.Fatalf("%q: %d tokens, encoding/json reads %d", text, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] || gotOffs[i] != wantOffs[i] {
			t.Fatalf("%q: token %d is %+v at %d, encoding/json reads %+v at %d", text, i, got[i], gotOffs[i], want[i], wantOffs[i])
		}
	}
}

var decTokSeeds = []string{
	`{"id":"1","name":"exec","arguments":{"command":"ls -la"}}`,
	` { "a" : [ 1 , -2.5e+3 , 0 , 1E9, true , false , null , "" ] } `,
	"\t\n\r[\"x\"]\r\n",
	`"plain"`, `12`, `-0.0e-0`, `true`, `null`, `[]`, `{}`, `[[[{}]]]`,
	`"esc \" \\ \/ \b \f \n \r \t"`,
	`"\u0041\u00e9\u4e2d\uD83D\uDE00"`,
	`"lone \uD800 high, lone \uDC00 low, reversed \uDC00\uD800, high then text \uD800x"`,
	`"high then escape \uD800\n, pair split \uD83D\u0041"`,
	`"\u0000 nul"`,
	`"\uD800"`, `"\uDBFF\uDFFF"`, `"\uD800\uD800\uDC00"`,
	"\"caf\xc3\xa9 \xe4\xb8\xad\xf0\x9f\x98\x80\"",
	"\"bad \xff byte, cut \xe4\xb8, surrogate in UTF-8 \xed\xa0\x80, overlong \xc0\xaf\"",
	`{"k":"v","k":"w"}`,
	`{"arguments":"{\"command\":\"echo \\\"hi\\\"\"}"}`,
}

func TestValidSourceReadsAsEncodingJSON(t *testing.T) {
	for _, s := range decTokSeeds {
		if !json.Valid([]byte(s)) {
			t.Fatalf("seed %q is not valid JSON", s)
		}
		sameTokens(t, []byte(s))
	}
}

func FuzzValidSource(f *testing.F) {
	for _, s := range decTokSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		sameTokens(t, text)
	})
}
