package tools

import (
	"encoding/json"
	"testing"
)

func TestSchemaEncodingMatchesEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\rcr",
		"\b\f\x00\x01\x1f\x7f", "café …", "\u2028\u2029", "bad \xff\xfe utf-8 \xc3", "emoji 🙂", "\xed\xa0\x80 surrogate"}
	vals := []any{true, false, 0, -7, 1 << 40, []string{}, []string{"a", "b\n"}, []any{"x", 1, true, []string{"y"}},
		map[string]any{}, map[string]any{"z": 1, "a": "b", "m": map[string]any{"type": []string{"string", "null"}, "minLength": 1}}}
	for _, s := range strs {
		vals = append(vals, s, map[string]any{s: s})
	}
	for _, v := range vals {
		if got, want := string(appendJSON(nil, v)), string(mustJSON(v)); got != want {
			t.Errorf("%#v:\n got  %s\n want %s", v, got, want)
		}
	}
	// Every tool's schema is one valid JSON object.
	for _, tool := range All() {
		var doc map[string]any
		if err := json.Unmarshal(tool.Schema, &doc); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\x00", "\xff", "\u2028", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendJSONString(nil, s)), string(mustJSON(s)); got != want {
			t.Fatalf("%q: got %s want %s", s, got, want)
		}
	})
}
