package gate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// want is one expected Decoded: a call, or an error code. id, tool and
// format are compared exactly, also on errors (where tool must be empty).
type want struct {
	code   string // "" for a call
	id     string
	tool   string
	format string
	args   string
}

func (w want) String() string {
	if w.code != "" {
		return fmt.Sprintf("error %s id=%q format=%q", w.code, w.id, w.format)
	}
	return fmt.Sprintf("call id=%q tool=%q format=%q args=%s", w.id, w.tool, w.format, w.args)
}

func got(d Decoded) want {
	if d.Err != nil {
		return want{code: d.Err.Code, id: d.Call.ID, tool: d.Call.Tool, format: d.Call.Format, args: string(d.Call.Args)}
	}
	return want{id: d.Call.ID, tool: d.Call.Tool, format: d.Call.Format, args: string(d.Call.Args)}
}

// vector is one case from testdata/decode/*.txt.
type vector struct {
	file  string
	lineN int
	note  string
	line  string
	lim   Limits
	want  []want
}

// readVectors reads every case in testdata/decode, failing on unknown keys.
func readVectors(tb testing.TB) []vector {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "decode", "*.txt"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no decode vectors: %v", err)
	}
	var vs []vector
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		n := 0
		for sc.Scan() {
			n++
			text := sc.Text()
			if text == "" || strings.HasPrefix(text, "#") {
				continue
			}
			key, val, ok := strings.Cut(text, ":")
			if !ok {
				tb.Fatalf("%s:%d: no key", name, n)
			}
			val = strings.TrimPrefix(val, " ")
			if key != "note" && len(vs) == 0 {
				tb.Fatalf("%s:%d: %s before the first note", name, n, key)
			}
			var v *vector
			if len(vs) > 0 {
				v = &vs[len(vs)-1]
			}
			switch key {
			case "note":
				vs = append(vs, vector{file: name, lineN: n, note: val})
			case "line":
				v.line = val
			case "limits":
				for _, kv := range strings.Fields(val) {
					k, num, _ := strings.Cut(kv, "=")
					i, err := strconv.Atoi(num)
					if err != nil {
						tb.Fatalf("%s:%d: %v", name, n, err)
					}
					switch k {
					case "line":
						v.lim.MaxLineBytes = i
					case "depth":
						v.lim.MaxDepth = i
					case "batch":
						v.lim.MaxBatch = i
					default:
						tb.Fatalf("%s:%d: unknown limit %q", name, n, k)
					}
				}
			case "call":
				f := strings.SplitN(val, " ", 4)
				if len(f) != 4 {
					tb.Fatalf("%s:%d: call needs id tool format args", name, n)
				}
				v.want = append(v.want, want{id: dash(f[0]), tool: f[1], format: f[2], args: f[3]})
			case "error":
				f := strings.Fields(val)
				if len(f) != 3 {
					tb.Fatalf("%s:%d: error needs code id format", name, n)
				}
				v.want = append(v.want, want{code: f[0], id: dash(f[1]), format: dash(f[2])})
			default:
				tb.Fatalf("%s:%d: unknown key %q", name, n, key)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			tb.Fatal(err)
		}
	}
	for _, v := range vs {
		if len(v.want) == 0 {
			tb.Fatalf("%s:%d: %q expects nothing", v.file, v.lineN, v.note)
		}
	}
	return vs
}

func dash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

func TestDecodeVectors(t *testing.T) {
	vs := readVectors(t)
	notes := map[string]bool{}
	for _, v := range vs {
		if notes[v.note] {
			t.Fatalf("%s:%d: note %q repeats", v.file, v.lineN, v.note)
		}
		notes[v.note] = true
		t.Run(v.note, func(t *testing.T) {
			checkDecode(t, []byte(v.line), v.lim, v.want)
		})
	}
}

func checkDecode(t *testing.T, line []byte, lim Limits, wants []want) {
	t.Helper()
	out := DecodeLine(line, lim)
	checkInvariants(t, line, out)
	var gots []want
	for _, d := range out {
		gots = append(gots, got(d))
	}
	if len(gots) != len(wants) {
		t.Fatalf("DecodeLine(%.200q)\n got %d results: %v\nwant %d: %v", line, len(gots), gots, len(wants), wants)
	}
	for i := range wants {
		if gots[i] != wants[i] {
			t.Errorf("DecodeLine(%.200q)[%d]\n got %v\nwant %v\n err %v", line, i, gots[i], wants[i], out[i].Err)
		}
	}
}

// checkInvariants holds for every output: never empty; a call has a tool, a
// format and compact object arguments; an error has a known code, a message
// in the house style, and nothing that could run.
func checkInvariants(t testing.TB, line []byte, out []Decoded) {
	t.Helper()
	if len(out) == 0 {
		t.Fatalf("DecodeLine(%.200q) returned nothing", line)
	}
	for i, d := range out {
		if d.Err == nil {
			if d.Call.Tool == "" {
				t.Fatalf("DecodeLine(%.200q)[%d]: call without a tool", line, i)
			}
			if !isCompactObject(d.Call.Args) {
				t.Fatalf("DecodeLine(%.200q)[%d]: args %.200q are not a compact JSON object", line, i, d.Call.Args)
			}
			switch d.Call.Format {
			case FormatNative, FormatOpenAI, FormatAnthropic, FormatMCP:
			default:
				t.Fatalf("DecodeLine(%.200q)[%d]: format %q", line, i, d.Call.Format)
			}
			continue
		}
		if d.Call.Tool != "" || d.Call.Args != nil {
			t.Fatalf("DecodeLine(%.200q)[%d]: error %v carries a runnable call %+v", line, i, d.Err, d.Call)
		}
		if !knownDecodeCodes[d.Err.Code] {
			t.Fatalf("DecodeLine(%.200q)[%d]: unknown code in %v", line, i, d.Err)
		}
		if e := checkMessage(d.Err.Message); e != "" {
			t.Fatalf("DecodeLine(%.200q)[%d]: message %q: %s", line, i, d.Err.Message, e)
		}
	}
}

var knownDecodeCodes = map[string]bool{
	CodeDecodeJSON: true, CodeDecodeUTF8: true, CodeDecodeNUL: true,
	CodeDecodeTooLarge: true, CodeDecodeTooDeep: true, CodeDecodeDupKey: true,
	CodeDecodeShape: true, CodeDecodeArgs: true, CodeDecodeEmpty: true,
}

// checkMessage returns what is wrong with an error message, or "".
func checkMessage(m string) string {
	switch {
	case m == "":
		return "empty"
	case unicode.IsUpper([]rune(m)[0]):
		return "starts with a capital"
	case strings.HasSuffix(m, "."):
		return "ends with a period"
	case !strings.Contains(m, ": send ") && !strings.HasSuffix(m, ": remove it"):
		return "does not say what to send instead"
	}
	return ""
}

func isCompactObject(b []byte) bool {
	if len(b) < 2 || b[0] != '{' || !json.Valid(b) {
		return false
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return false
	}
	return bytes.Equal(c.Bytes(), b)
}

// TestDecodeBytes covers inputs a text vector cannot hold.
func TestDecodeBytes(t *testing.T) {
	native := func(args string) string {
		return `{"id":"c1","name":"exec","arguments":` + args + `}`
	}
	openai := func(args string) string {
		return `{"id":"c1","type":"function","function":{"name":"exec","arguments":` + args + `}}`
	}
	for _, c := range []struct {
		name string
		line string
		want []want
	}{
		{"raw nul in a string", native(`{"command":"a` + "\x00" + `b"}`), []want{{code: CodeDecodeNUL}}},
		{"raw nul outside strings", native(`{}`) + "\x00", []want{{code: CodeDecodeNUL}}},
		{"raw nul alone", "\x00", []want{{code: CodeDecodeNUL}}},
		{"invalid utf-8 in arguments", native(`{"command":"` + "\xff" + `"}`), []want{{code: CodeDecodeUTF8}}},
		{"invalid utf-8 in the openai arguments string", openai(`"{\"command\":\"` + "\xc3\x28" + `\"}"`), []want{{code: CodeDecodeUTF8}}},
		{"invalid utf-8 outside strings", "\xfe" + native(`{}`), []want{{code: CodeDecodeUTF8}}},
		{"truncated utf-8 sequence", native(`{"c":"` + "\xe2\x82" + `"}`), []want{{code: CodeDecodeUTF8}}},
		{"encoded surrogate bytes", native(`{"c":"` + "\xed\xa0\x80" + `"}`), []want{{code: CodeDecodeUTF8}}},
		{"utf-8 kept as is", native(`{"c":"é ✓ 😀"}`), []want{{id: "c1", tool: "exec", format: FormatNative, args: `{"c":"é ✓ 😀"}`}}},
		{"crlf line ending", native(`{}`) + "\r\n", []want{{id: "c1", tool: "exec", format: FormatNative, args: `{}`}}},
		{"u+2028 kept as is", native(`{"c":"a` + "\u2028" + `b"}`), []want{{id: "c1", tool: "exec", format: FormatNative, args: `{"c":"a` + "\u2028" + `b"}`}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkDecode(t, []byte(c.line), Limits{}, c.want)
		})
	}
}

// TestDecodeLarge covers inputs at and beyond the limits.
func TestDecodeLarge(t *testing.T) {
	lim := DefaultLimits()
	call := func(i int) string {
		return fmt.Sprintf(`{"id":"c%d","name":"exec","arguments":{"command":"true"}}`, i)
	}
	batch := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = call(i)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	nested := func(open, close string, n int) string {
		return strings.Repeat(open, n) + strings.Repeat(close, n)
	}
	big := strings.Repeat("x", lim.MaxLineBytes-100)
	// sized returns a call n bytes long (at least its envelope).
	sized := func(n int) string {
		const pre, post = `{"id":"c1","name":"exec","arguments":{"s":"`, `"}}`
		return pre + strings.Repeat("x", max(0, n-len(pre)-len(post))) + post
	}
	manyKeys := func(n int, dup bool) string {
		var b strings.Builder
		b.WriteString(`{"id":"k","name":"exec","arguments":{`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"k%d":%d`, i, i)
		}
		if dup {
			b.WriteString(`,"k7":0`)
		}
		b.WriteString(`}}`)
		return b.String()
	}

	t.Run("batch at the limit", func(t *testing.T) {
		out := DecodeLine([]byte(batch(lim.MaxBatch)), lim)
		checkInvariants(t, nil, out)
		if len(out) != lim.MaxBatch || out[lim.MaxBatch-1].Call.ID != fmt.Sprintf("c%d", lim.MaxBatch-1) {
			t.Fatalf("got %d results, last %+v", len(out), out[len(out)-1])
		}
	})
	for _, c := range []struct {
		name string
		line string
		want []want
	}{
		{"batch over the limit", batch(lim.MaxBatch + 1), []want{{code: CodeDecodeTooLarge}}},
		{"line at the limit", sized(lim.MaxLineBytes),
			[]want{{id: "c1", tool: "exec", format: FormatNative, args: `{"s":"` + strings.Repeat("x", lim.MaxLineBytes-len(sized(0))) + `"}`}}},
		{"line one byte over", sized(lim.MaxLineBytes + 1), []want{{code: CodeDecodeTooLarge}}},
		{"large arguments string", `{"id":"c1","type":"function","function":{"name":"exec","arguments":"{\"s\":\"` + big + `\"}"}}`,
			[]want{{id: "c1", tool: "exec", format: FormatOpenAI, args: `{"s":"` + big + `"}`}}},
		{"deep arrays", nested("[", "]", 100000), []want{{code: CodeDecodeTooDeep}}},
		{"deep objects", strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000), []want{{code: CodeDecodeTooDeep}}},
		{"deep unterminated", strings.Repeat(`[`, 500000), []want{{code: CodeDecodeTooDeep}}},
		{"deep in arguments keeps the id", `{"id":"c1","name":"exec","arguments":` + nested("[", "]", 1000) + `}`,
			[]want{{code: CodeDecodeTooDeep, id: "c1"}}},
		{"deep in the arguments string", `{"id":"c1","type":"function","function":{"name":"exec","arguments":"{\"a\":` + nested("[", "]", 1000) + `}"}}`,
			[]want{{code: CodeDecodeTooDeep, id: "c1", format: FormatOpenAI}}},
		{"arguments at the default depth", `{"id":"c1","name":"exec","arguments":` + nested("[", "]", 63) + `}`,
			[]want{{code: CodeDecodeArgs, id: "c1", format: FormatNative}}},
		{"arguments one past the default depth", `{"id":"c1","name":"exec","arguments":` + nested("[", "]", 64) + `}`,
			[]want{{code: CodeDecodeTooDeep, id: "c1"}}},
		{"many keys", manyKeys(5000, false), nil},
		{"many keys with a repeat", manyKeys(5000, true), []want{{code: CodeDecodeDupKey, id: "k", format: FormatNative}}},
		{"many short elements", "[" + strings.Repeat("1,", 200000) + "1]", []want{{code: CodeDecodeTooLarge}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.want == nil {
				out := DecodeLine([]byte(c.line), lim)
				checkInvariants(t, nil, out)
				if len(out) != 1 || out[0].Err != nil {
					t.Fatalf("got %+v", out)
				}
				return
			}
			checkDecode(t, []byte(c.line), lim, c.want)
		})
	}
}

func TestDecodeLimits(t *testing.T) {
	if d := DefaultLimits(); d != (Limits{MaxLineBytes: 1 << 20, MaxDepth: 64, MaxBatch: 256}) {
		t.Fatalf("DefaultLimits() = %+v", d)
	}
	// A zero Limits means the defaults.
	deep := `{"id":"c1","name":"exec","arguments":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`
	checkDecode(t, []byte(deep), Limits{}, []want{{code: CodeDecodeArgs, id: "c1", format: FormatNative}})
	checkDecode(t, []byte(deep), Limits{MaxDepth: -1}, []want{{code: CodeDecodeArgs, id: "c1", format: FormatNative}})
	checkDecode(t, []byte(deep), Limits{MaxDepth: 10}, []want{{code: CodeDecodeTooDeep, id: "c1"}})
}

func TestDecodeErrorString(t *testing.T) {
	e := &DecodeError{Code: CodeDecodeJSON, Message: "the line is empty: send one JSON value per line"}
	if got, want := e.Error(), "decode.invalid_json: the line is empty: send one JSON value per line"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	var _ error = e
}

// TestDecodeMessages checks the words a model reads for a few errors.
func TestDecodeMessages(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{}`, `send one of: {"id":"...","name":"...","arguments":{...}}`},
		{`{"id":"c1","name":"","arguments":{}}`, `the "name" of the call is empty: send the tool name as a non-empty string`},
		{`{"id":"c1","name":"exec","arguments":{"a":1,"a":2}}`, `an object repeats the key "a": send each key once`},
		{`{"id":"c1","name":"exec"}`, `the call has no "arguments": send "arguments" as a JSON object or a string holding one, e.g. {} or "{}"`},
		{`{"id":"c1","name":"exec","arguments":{}} 1`, `the line has data after its JSON value at offset 40: send one JSON value per line`},
		{`{"id":"c1","type":"function","function":{"name":"exec","arguments":"{\"a\":1,\"a\":2}"}}`, `in the arguments string, an object repeats the key "a"`},
		{`{"id":"c1","type":"function","function":{"name":"exec","arguments":"ls"}}`, `the arguments string is not valid JSON (invalid character 'l' looking for beginning of value at offset `},
		{`{"role":"user","content":"x"}`, `a message with role "user" carries no tool calls: send the assistant message`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `method "ping" is not a tool call`},
		{`[]`, `the array holds no calls: send at least one tool call`},
	} {
		out := DecodeLine([]byte(c.line), Limits{})
		if len(out) != 1 || out[0].Err == nil || !strings.Contains(out[0].Err.Message, c.want) {
			t.Errorf("DecodeLine(%q) = %+v, want a message containing %q", c.line, out[0].Err, c.want)
		}
	}
}

// TestDecodeNoAliasing checks that a call does not share memory with the
// line, which a caller may reuse for the next one.
func TestDecodeNoAliasing(t *testing.T) {
	line := []byte(`{"id":"c1","name":"exec","arguments":{"command":"ls"}}`)
	out := DecodeLine(line, Limits{})
	for i := range line {
		line[i] = 'x'
	}
	if c := out[0].Call; c.ID != "c1" || c.Tool != "exec" || string(c.Args) != `{"command":"ls"}` {
		t.Fatalf("call changed with the line: %+v", c)
	}
}

// TestDecodeConcurrent runs decoders in parallel to catch shared state in the
// pool (run with -race).
func TestDecodeConcurrent(t *testing.T) {
	vs := readVectors(t)
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 50; i++ {
				for _, v := range vs {
					out := DecodeLine([]byte(v.line), v.lim)
					if len(out) != len(v.want) {
						t.Errorf("%s: got %d results, want %d", v.note, len(out), len(v.want))
						return
					}
					for j := range out {
						if got(out[j]) != v.want[j] {
							t.Errorf("%s[%d]: got %v, want %v", v.note, j, got(out[j]), v.want[j])
							return
						}
					}
				}
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}

func BenchmarkDecodeLine(b *testing.B) {
	openaiCall := func(i int) string {
		return fmt.Sprintf(`{"id":"call_%d","type":"function","function":{"name":"exec","arguments":"{\"command\":\"go test ./...\",\"working_dir\":\"src\"}"}}`, i)
	}
	calls := make([]string, 16)
	for i := range calls {
		calls[i] = openaiCall(i)
	}
	for _, c := range []struct{ name, line string }{
		{"native", `{"id":"call_1","name":"exec","arguments":{"command":"go test ./...","working_dir":"src"}}`},
		{"openai", openaiCall(1)},
		{"anthropic", `{"type":"tool_use","id":"toolu_01","name":"exec","input":{"command":"go test ./...","working_dir":"src"}}`},
		{"mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"exec","arguments":{"command":"go test ./...","working_dir":"src"}}}`},
		{"message16", `{"role":"assistant","content":null,"tool_calls":[` + strings.Join(calls, ",") + `]}`},
	} {
		line := []byte(c.line)
		if out := DecodeLine(line, Limits{}); out[0].Err != nil {
			b.Fatal(out[0].Err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				DecodeLine(line, Limits{})
			}
		})
	}
}

// TestDecodeAmbiguousMessages checks that every error of a vector whose note
// starts with "ambiguous" tells the model the call was ambiguous and names
// both readings, rather than some other fault.
func TestDecodeAmbiguousMessages(t *testing.T) {
	n := 0
	for _, v := range readVectors(t) {
		if !strings.HasPrefix(v.note, "ambiguous") {
			continue
		}
		for _, d := range DecodeLine([]byte(v.line), v.lim) {
			if d.Err == nil {
				continue
			}
			n++
			if d.Err.Code != CodeDecodeShape || !strings.HasPrefix(d.Err.Message, "ambiguous call: ") {
				t.Errorf("%s: %v", v.note, d.Err)
			}
		}
	}
	if n == 0 {
		t.Fatal("no ambiguous vectors")
	}
}
