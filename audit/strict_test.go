package audit

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Tests for three ways a line could be read as something it is not: bytes
// after the line's JSON value, keys that match "seq" only in case, and
// integers a canonical JSON number cannot hold exactly.

// verifyBoth verifies paths with and without the fast path, requires the
// two to agree, and returns the result.
func verifyBoth(t *testing.T, paths []string) Result {
	t.Helper()
	fast, slow := verify(paths, VerifyOptions{}, false), verify(paths, VerifyOptions{}, true)
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("fast and slow verify differ:\nfast %+v %v\nslow %+v %v", fast, fast.Problem, slow, slow.Problem)
	}
	return fast
}

func TestDecodeValueRejectsTrailingBytes(t *testing.T) {
	for _, in := range []string{`{"a":1}]`, `{"a":1}}`, `[1]]`, `"s"}`, `1 ]`, "{}\n}", `{} {}`, `{} x`} {
		if v, err := decodeValue([]byte(in)); err == nil {
			t.Errorf("decodeValue(%q) = %v, want an error", in, v)
		}
	}
	for _, in := range []string{`{"a":1}`, " {\"a\":1} \t\r\n", `[]`, `1`, `"s"`} {
		if _, err := decodeValue([]byte(in)); err != nil {
			t.Errorf("decodeValue(%q): %v", in, err)
		}
	}
}

// TestVerifyStrayCloserIsNotJSON: an intact record followed by a stray ]
// or } is not a JSON value; verify must say so, not call the record edited.
func TestVerifyStrayCloserIsNotJSON(t *testing.T) {
	dir := t.TempDir()
	intact := filepath.Join(dir, "intact.jsonl")
	writeLog(t, intact, 5, nil, 0)
	for _, stray := range []string{"]", "}", " ]", "}}", "]\t"} {
		ls := lines(t, intact)
		ls[3] = append(bytes.TrimSuffix(ls[3], []byte("\n")), stray+"\n"...)
		p := filepath.Join(dir, "stray.jsonl")
		put(t, p, ls)
		res := verifyBoth(t, []string{p})
		if res.Problem == nil || res.Problem.Kind != ProblemForeign || res.Problem.Line != 4 || !strings.HasPrefix(res.Problem.Detail, "not JSON: ") {
			t.Errorf("a record followed by %q: got %v, want line 4 to be a %s that is not JSON", stray, res.Problem, ProblemForeign)
		}
	}
	// The writer continues the chain from the last line: it must not take
	// such a line for the record in it.
	ls := lines(t, intact)
	last := len(ls) - 1
	ls[last] = append(bytes.TrimSuffix(ls[last], []byte("\n")), "]\n"...)
	p := filepath.Join(dir, "stray-last.jsonl")
	put(t, p, ls)
	if l, err := Open(Options{Path: p}); err == nil {
		l.Close()
		t.Errorf("Open appends after a last line with a stray ]")
	}
}

// TestSeenLaterMatchesKeysExactly: a removed record is only "reordered"
// when the record itself comes later. A line whose key differs from "seq"
// only in case is not that record (encoding/json's struct decoding matches
// keys case-insensitively), and neither is a line that is no record.
func TestSeenLaterMatchesKeysExactly(t *testing.T) {
	dir := t.TempDir()
	intact := filepath.Join(dir, "intact.jsonl")
	writeLog(t, intact, 8, nil, 0)
	p := filepath.Join(dir, "gap.jsonl")
	check := func(name string, later []byte, want string) {
		t.Helper()
		ls := lines(t, intact)
		// Record 3 is gone from its place; later is the last line.
		ls = append(append(ls[:3:3], ls[4:]...), later)
		put(t, p, ls)
		res := verifyBoth(t, []string{p})
		if res.Problem == nil || res.Problem.Kind != want || res.Problem.Line != 4 {
			t.Errorf("%s: got %v, want line 4 %s", name, res.Problem, want)
		}
	}
	rec3 := lines(t, intact)[3]
	check("record 3 later", rec3, ProblemReordered)
	for _, key := range []string{`"Seq"`, `"SEQ"`, `"sEq"`} {
		check("record 3 later under "+key, bytes.Replace(rec3, []byte(`"seq":3`), []byte(key+`:3`), 1), ProblemRemoved)
	}
	check("a line with seq 3 that is no record", []byte(`{"seq":3}`+"\n"), ProblemRemoved)
}

func TestSealRejectsInexactIntegers(t *testing.T) {
	big := int64(1) << 53
	bigInt := int(big)
	for _, tc := range []struct {
		field string
		r     Record
	}{
		{"seq", Record{Seq: big}},
		{"seq", Record{Seq: -big}},
		{"seq", Record{Seq: math.MaxInt64}},
		{"v", Record{V: bigInt}},
		{"count", Record{Count: big + 1}},
		{"exit_code", Record{ExitCode: &bigInt}},
		{"duration_ms", Record{DurationMS: ptr(big)}},
		{"output_bytes", Record{OutputBytes: ptr(int64(math.MinInt64))}},
		{"removed_bytes", Record{RemovedBytes: big}},
		{"writer.uid", Record{Writer: &Writer{UID: bigInt}}},
		{"writer.pid", Record{Writer: &Writer{PID: -bigInt}}},
	} {
		tc.r.Kind, tc.r.Prev = KindOutcome, ZeroHash
		a, b := tc.r, tc.r
		_, ferr := a.seal()
		_, serr := b.sealSlow()
		if ferr == nil || serr == nil || ferr.Error() != serr.Error() {
			t.Errorf("%s: got errors %v / %v, want the same error from both", tc.field, ferr, serr)
			continue
		}
		if !strings.HasPrefix(ferr.Error(), tc.field+" ") {
			t.Errorf("%s: the error does not name the field: %v", tc.field, ferr)
		}
	}
	// The largest exact integers are written with all their digits and
	// read back as they were.
	edge := int64(1)<<53 - 1
	r := Record{V: 1, Seq: edge, Kind: KindOutcome, Count: -edge, DurationMS: ptr(edge), Prev: ZeroHash}
	line, err := r.seal()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"seq":9007199254740991`, `"count":-9007199254740991`, `"duration_ms":9007199254740991`} {
		if !bytes.Contains(line, []byte(want)) {
			t.Errorf("%s missing from %s", want, line)
		}
	}
	if err := scanAgrees(line[:len(line)-1], ""); err != nil {
		t.Error(err)
	}
}

// TestAppendRejectsInexactIntegers: Append refuses a record it cannot
// write exactly, writes nothing of it, and goes on.
func TestAppendRejectsInexactIntegers(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.jsonl")
	l, err := Open(Options{Path: p})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	big := int64(1) << 53
	if _, err := l.Append(Record{Kind: KindOutcome, ID: "c1", DurationMS: &big}); err == nil || !strings.Contains(err.Error(), "duration_ms") {
		t.Errorf("a duration of 2^53 ms: got %v, want an error naming duration_ms", err)
	}
	edge := big - 1
	if _, err := l.Append(Record{Kind: KindOutcome, ID: "c2", OutputBytes: &edge}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	res := verifyBoth(t, []string{p})
	if res.Problem != nil || res.Records != 2 || res.Outcomes != 1 {
		t.Fatalf("after a refused record: %+v %v", res, res.Problem)
	}
	if ls := lines(t, p); !bytes.Contains(ls[1], []byte(`"output_bytes":9007199254740991,`)) {
		t.Errorf("output_bytes not written exactly: %s", ls[1])
	}
}

// TestVerifyFlagsInexactIntegers: a record whose integer fields are beyond
// what a canonical JSON number holds exactly cannot say what its writer
// meant (9007199254740992 may have been 9007199254740993); verify reports
// it even when its hash matches, naming the field.
func TestVerifyFlagsInexactIntegers(t *testing.T) {
	dir := t.TempDir()
	intact := filepath.Join(dir, "intact.jsonl")
	writeLog(t, intact, 5, nil, 0)
	set := func(k, lit string) func(m map[string]any) {
		return func(m map[string]any) { m[k] = json.Number(lit) }
	}
	p := filepath.Join(dir, "big.jsonl")
	edit := func(change func(m map[string]any)) Result {
		t.Helper()
		ls := lines(t, intact)
		// The last line, so that no prev depends on its hash.
		last := len(ls) - 1
		m, _, err := parseLine(bytes.TrimSuffix(ls[last], []byte("\n")))
		if err != nil {
			t.Fatal(err)
		}
		change(m)
		h, err := hashOf(m)
		if err != nil {
			t.Fatal(err)
		}
		m["hash"] = h
		ls[last] = append(mustCanonical(t, m), '\n')
		put(t, p, ls)
		return verifyBoth(t, []string{p})
	}
	for _, tc := range []struct {
		field  string
		change func(m map[string]any)
	}{
		{"seq", set("seq", "9007199254740992")},
		{"seq", set("seq", "-9007199254740992")},
		{"v", set("v", "9007199254740992")},
		{"count", set("count", "9007199254740994")},
		{"exit_code", set("exit_code", "9007199254740992")},
		{"duration_ms", set("duration_ms", "1e+21")},
		{"output_bytes", set("output_bytes", "-1152921504606847000")},
		{"removed_bytes", set("removed_bytes", "9007199254740992")},
		{"writer.uid", func(m map[string]any) { m["writer"].(map[string]any)["uid"] = json.Number("9007199254740992") }},
		{"writer.pid", func(m map[string]any) { m["writer"].(map[string]any)["pid"] = json.Number("1e+300") }},
	} {
		res := edit(tc.change)
		if res.Problem == nil || res.Problem.Kind != ProblemForeign || !strings.Contains(res.Problem.Detail, tc.field+" ") {
			t.Errorf("%s: got %v, want a %s naming %s", tc.field, res.Problem, ProblemForeign, tc.field)
		}
	}
	// The largest exact integers, and numbers of other kinds or in other
	// places (args are free-form), are not flagged.
	for name, change := range map[string]func(m map[string]any){
		"edge duration": set("duration_ms", "9007199254740991"),
		"edge exit":     set("exit_code", "-9007199254740991"),
		"edge writer":   func(m map[string]any) { m["writer"].(map[string]any)["pid"] = json.Number("9007199254740991") },
		"big args":      func(m map[string]any) { m["args"] = map[string]any{"n": json.Number("1e+21")} },
		"big elsewhere": set("x", "9007199254740992"),
	} {
		if res := edit(change); res.Problem != nil {
			t.Errorf("%s: %v", name, res.Problem)
		}
	}
}

func mustCanonical(t *testing.T, v any) []byte {
	t.Helper()
	b, err := Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
