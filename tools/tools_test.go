package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var wantOrder = []string{"exec", "read_file", "write_file", "edit_file", "list_dir", "search", "glob"}

// argCase is one set of arguments and the verdict the tool's schema must
// reach. For a rejection, keyword is the schema keyword that must fail.
type argCase struct {
	tool    string
	note    string
	args    string
	keyword string // "" = valid
}

var argCases = []argCase{
	{"exec", "command only", `{"command":"go test ./..."}`, ""},
	{"exec", "working_dir string", `{"command":"make","working_dir":"src"}`, ""},
	{"exec", "working_dir null", `{"command":"ls","working_dir":null}`, ""},
	{"exec", "missing command", `{"working_dir":"src"}`, "required"},
	{"exec", "extra property", `{"command":"ls","timeout":5}`, "additionalProperties"},
	{"exec", "command not a string", `{"command":["ls","-l"]}`, "type"},
	{"exec", "working_dir a number", `{"command":"ls","working_dir":1}`, "type"},
	{"exec", "empty command", `{"command":""}`, "minLength"},

	{"read_file", "path only", `{"path":"README.md"}`, ""},
	{"read_file", "offset and limit", `{"path":"main.go","offset":1,"limit":50}`, ""},
	{"read_file", "missing path", `{"offset":3}`, "required"},
	{"read_file", "extra property", `{"path":"a","encoding":"utf-8"}`, "additionalProperties"},
	{"read_file", "offset a string", `{"path":"a","offset":"10"}`, "type"},
	{"read_file", "offset a fraction", `{"path":"a","offset":1.5}`, "type"},
	{"read_file", "offset past the largest line number", `{"path":"a","offset":99999999999999999999999999999999}`, "maximum"},
	{"read_file", "limit past the largest line number", `{"path":"a","limit":2147483649}`, "maximum"},
	{"read_file", "offset zero", `{"path":"a","offset":0}`, "minimum"},
	{"read_file", "limit zero", `{"path":"a","limit":0}`, "minimum"},
	{"read_file", "empty path", `{"path":""}`, "minLength"},

	{"write_file", "new file", `{"path":"out/a.txt","content":"hello\n"}`, ""},
	{"write_file", "empty content", `{"path":"empty","content":""}`, ""},
	{"write_file", "missing content", `{"path":"a"}`, "required"},
	{"write_file", "missing path", `{"content":"x"}`, "required"},
	{"write_file", "extra property", `{"path":"a","content":"x","mode":"0644"}`, "additionalProperties"},
	{"write_file", "content a number", `{"path":"a","content":42}`, "type"},

	{"edit_file", "replace", `{"path":"a.go","old_text":"foo()","new_text":"bar()"}`, ""},
	{"edit_file", "delete", `{"path":"a.go","old_text":"// TODO\n","new_text":""}`, ""},
	{"edit_file", "missing new_text", `{"path":"a.go","old_text":"x"}`, "required"},
	{"edit_file", "extra property", `{"path":"a.go","old_text":"x","new_text":"y","all":true}`, "additionalProperties"},
	{"edit_file", "old_text null", `{"path":"a.go","old_text":null,"new_text":"y"}`, "type"},
	{"edit_file", "empty old_text", `{"path":"a.go","old_text":"","new_text":"y"}`, "minLength"},

	{"list_dir", "root", `{"path":"."}`, ""},
	{"list_dir", "subdirectory", `{"path":"src/internal"}`, ""},
	{"list_dir", "missing path", `{}`, "required"},
	{"list_dir", "extra property", `{"path":".","recursive":true}`, "additionalProperties"},
	{"list_dir", "path a boolean", `{"path":true}`, "type"},

	{"search", "pattern only", `{"pattern":"func main"}`, ""},
	{"search", "every argument", `{"pattern":"TODO\\(.*\\)","path":"src","glob":"*.go","max_results":1000}`, ""},
	{"search", "max_results one", `{"pattern":"x","max_results":1}`, ""},
	{"search", "missing pattern", `{"path":"src"}`, "required"},
	{"search", "extra property", `{"pattern":"x","ignore_case":true}`, "additionalProperties"},
	{"search", "max_results a string", `{"pattern":"x","max_results":"10"}`, "type"},
	{"search", "max_results zero", `{"pattern":"x","max_results":0}`, "minimum"},
	{"search", "max_results too large", `{"pattern":"x","max_results":1001}`, "maximum"},
	{"search", "empty pattern", `{"pattern":""}`, "minLength"},

	{"glob", "recursive pattern", `{"pattern":"**/*_test.go"}`, ""},
	{"glob", "missing pattern", `{}`, "required"},
	{"glob", "extra property", `{"pattern":"*.go","path":"src"}`, "additionalProperties"},
	{"glob", "pattern an array", `{"pattern":["*.go"]}`, "type"},
	{"glob", "empty pattern", `{"pattern":""}`, "minLength"},
}

// compile compiles a tool's schema as the gate will: draft 2020-12, formats
// asserted, from memory only.
func compile(t *testing.T, tool Tool) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tool.Schema))
	if err != nil {
		t.Fatalf("%s: schema is not JSON: %v", tool.Name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	url := "mem:///tools/" + tool.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatalf("%s: add resource: %v", tool.Name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: compile: %v", tool.Name, err)
	}
	return sch
}

// failedKeywords lists the last keyword of every leaf error under err.
func failedKeywords(err *jsonschema.ValidationError) []string {
	if len(err.Causes) == 0 {
		path := err.ErrorKind.KeywordPath()
		if len(path) == 0 {
			return nil
		}
		return []string{path[len(path)-1]}
	}
	var out []string
	for _, c := range err.Causes {
		out = append(out, failedKeywords(c)...)
	}
	return out
}

func TestSchemasValidate(t *testing.T) {
	schemas := map[string]*jsonschema.Schema{}
	for _, tool := range All() {
		schemas[tool.Name] = compile(t, tool)
	}
	seen := map[string]map[string]bool{}
	for _, tc := range argCases {
		t.Run(tc.tool+"/"+tc.note, func(t *testing.T) {
			sch, ok := schemas[tc.tool]
			if !ok {
				t.Fatalf("case names unknown tool %q", tc.tool)
			}
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.args))
			if err != nil {
				t.Fatalf("case arguments are not JSON: %v", err)
			}
			err = sch.Validate(inst)
			if tc.keyword == "" {
				if err != nil {
					t.Fatalf("valid arguments rejected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("arguments accepted, want a %s error", tc.keyword)
			}
			var verr *jsonschema.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("error %T %v, want *jsonschema.ValidationError", err, err)
			}
			if got := failedKeywords(verr); !slices.Contains(got, tc.keyword) {
				t.Fatalf("failed keywords %v, want %s; error: %v", got, tc.keyword, err)
			}
		})
		if seen[tc.tool] == nil {
			seen[tc.tool] = map[string]bool{}
		}
		seen[tc.tool][tc.keyword] = true
	}
	// Every tool is exercised with a valid example and the three rejections
	// every schema must make.
	for _, name := range wantOrder {
		for _, kw := range []string{"", "required", "additionalProperties", "type"} {
			if !seen[name][kw] {
				label := kw
				if label == "" {
					label = "valid"
				}
				t.Errorf("%s: no %s case", name, label)
			}
		}
	}
}

func TestSchemaShape(t *testing.T) {
	for _, tool := range All() {
		var s struct {
			Schema               *string                    `json:"$schema"`
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(tool.Schema, &s); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		if s.Type != "object" {
			t.Errorf("%s: type %q, want object", tool.Name, s.Type)
		}
		if s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: additionalProperties must be false", tool.Name)
		}
		if len(s.Required) == 0 {
			t.Errorf("%s: no required list", tool.Name)
		}
		if s.Schema != nil {
			t.Errorf("%s: $schema present; providers reject it", tool.Name)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", tool.Name, r)
			}
		}
		for name, raw := range s.Properties {
			var p struct {
				Description string `json:"description"`
			}
			if err := json.Unmarshal(raw, &p); err != nil {
				t.Fatalf("%s.%s: %v", tool.Name, name, err)
			}
			if len(p.Description) < 20 {
				t.Errorf("%s.%s: description %q too short for a model", tool.Name, name, p.Description)
			}
		}
		if len(tool.Description) < 80 {
			t.Errorf("%s: description too short for a model: %q", tool.Name, tool.Description)
		}
	}
}

func TestSchemaArguments(t *testing.T) {
	// The arguments of the design's tool table, in declaration order, with
	// the required ones marked.
	want := map[string][]string{
		"exec":       {"command*", "working_dir"},
		"read_file":  {"path*", "offset", "limit"},
		"write_file": {"path*", "content*"},
		"edit_file":  {"path*", "old_text*", "new_text*"},
		"list_dir":   {"path*"},
		"search":     {"pattern*", "path", "glob", "max_results"},
		"glob":       {"pattern*"},
	}
	for _, tool := range All() {
		params, err := schemaParams(tool.Schema)
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		var got []string
		for _, p := range params {
			if p.required {
				got = append(got, p.name+"*")
			} else {
				got = append(got, p.name)
			}
		}
		if !slices.Equal(got, want[tool.Name]) {
			t.Errorf("%s: arguments %v, want %v", tool.Name, got, want[tool.Name])
		}
	}
}

func TestAllOrderAndFlags(t *testing.T) {
	type flags struct{ readOnly, exclusive, concurrencySafe bool }
	want := map[string]flags{
		"exec":       {exclusive: true},
		"read_file":  {readOnly: true, concurrencySafe: true},
		"write_file": {},
		"edit_file":  {},
		"list_dir":   {readOnly: true, concurrencySafe: true},
		"search":     {readOnly: true, concurrencySafe: true},
		"glob":       {readOnly: true, concurrencySafe: true},
	}
	all := All()
	var names []string
	for _, tool := range all {
		names = append(names, tool.Name)
		got := flags{tool.ReadOnly, tool.Exclusive, tool.ConcurrencySafe}
		if got != want[tool.Name] {
			t.Errorf("%s: flags %+v, want %+v", tool.Name, got, want[tool.Name])
		}
		if tool.Exclusive && tool.ConcurrencySafe {
			t.Errorf("%s: exclusive and concurrency safe at once", tool.Name)
		}
	}
	if !slices.Equal(names, wantOrder) {
		t.Fatalf("All() order %v, want %v", names, wantOrder)
	}
}

func TestDescriptionsQuoteLimits(t *testing.T) {
	want := map[string][]string{
		"exec":       {"60 seconds", "10,000 characters", "Exit code: N", "STDERR:", "Error: Command blocked by safety guard", "Error: Command timed out after N seconds"},
		"read_file":  {"512 KB", "128,000 characters", "head, tail or grep", "line number", "a tab"},
		"write_file": {"Successfully wrote N bytes to /abs/path", "parent directories", "atomically"},
		"edit_file":  {"exactly once", "unified diff", "Warning: old_text appears N times. Please provide more context to make it unique."},
		"list_dir":   {"📁 name", "📄 name", "folders first"},
		"search":     {"file:line: text", "default 200", "at most 1000"},
		"glob":       {"**"},
	}
	for _, tool := range All() {
		for _, s := range want[tool.Name] {
			if !strings.Contains(tool.Description, s) {
				t.Errorf("%s: description does not mention %q", tool.Name, s)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	for _, name := range wantOrder {
		tool, ok := Lookup(name)
		if !ok || tool.Name != name {
			t.Fatalf("Lookup(%q) = %q, %v", name, tool.Name, ok)
		}
	}
	for _, name := range []string{"", "bash", "Exec", "read_file ", "READ_FILE", "shell"} {
		if tool, ok := Lookup(name); ok || tool.Name != "" {
			t.Errorf("Lookup(%q) = %q, %v; want nothing", name, tool.Name, ok)
		}
	}
}

func TestCopiesAreIndependent(t *testing.T) {
	tool, _ := Lookup("exec")
	orig := string(tool.Schema)
	tool.Schema[0] = 'X'
	all := All()
	all[0].Schema[1] = 'Y'
	all[0].Name = "changed"
	again, _ := Lookup("exec")
	if string(again.Schema) != orig {
		t.Fatal("changing a returned schema changed the built-in tool")
	}
	if All()[0].Name != "exec" {
		t.Fatal("changing the slice from All changed the built-in tools")
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return reflect.DeepEqual(va, vb)
}

// decodeStrict decodes data into v and fails on any field v does not name.
func decodeStrict(t *testing.T, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode: %v\n%s", err, data)
	}
	if dec.More() {
		t.Fatalf("trailing data after the JSON value")
	}
}

func exportOK(t *testing.T, format string) []byte {
	t.Helper()
	data, err := Export(format, All())
	if err != nil {
		t.Fatalf("Export(%q): %v", format, err)
	}
	again, err := Export(format, All())
	if err != nil || !bytes.Equal(data, again) {
		t.Fatalf("Export(%q) is not stable", format)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Errorf("Export(%q) does not end with a newline", format)
	}
	if bytes.Contains(data, []byte(`\u00`)) {
		t.Errorf("Export(%q) escapes characters it need not escape", format)
	}
	if format != "markdown" {
		if !json.Valid(data) {
			t.Fatalf("Export(%q) is not valid JSON", format)
		}
		lines := strings.Split(string(data), "\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[1], "  ") || strings.HasPrefix(lines[1], "   ") {
			t.Errorf("Export(%q) is not indented with two spaces:\n%s", format, strings.Join(lines[:min(len(lines), 4)], "\n"))
		}
	}
	return data
}

func TestExportOpenAI(t *testing.T) {
	var got []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	decodeStrict(t, exportOK(t, "openai"), &got)
	all := All()
	if len(got) != len(all) {
		t.Fatalf("%d tools, want %d", len(got), len(all))
	}
	for i, tool := range all {
		g := got[i]
		if g.Type != "function" || g.Function.Name != tool.Name || g.Function.Description != tool.Description {
			t.Errorf("entry %d: type %q name %q, want function %q with its description", i, g.Type, g.Function.Name, tool.Name)
		}
		if !jsonEqual(t, g.Function.Parameters, tool.Schema) {
			t.Errorf("%s: parameters differ from the schema", tool.Name)
		}
	}
}

func TestExportAnthropic(t *testing.T) {
	var got []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	decodeStrict(t, exportOK(t, "anthropic"), &got)
	all := All()
	if len(got) != len(all) {
		t.Fatalf("%d tools, want %d", len(got), len(all))
	}
	for i, tool := range all {
		if got[i].Name != tool.Name || got[i].Description != tool.Description {
			t.Errorf("entry %d: name %q, want %q with its description", i, got[i].Name, tool.Name)
		}
		if !jsonEqual(t, got[i].InputSchema, tool.Schema) {
			t.Errorf("%s: input_schema differs from the schema", tool.Name)
		}
	}
}

func TestExportMCP(t *testing.T) {
	type hints struct {
		ReadOnly    bool `json:"readOnlyHint"`
		Destructive bool `json:"destructiveHint"`
		Idempotent  bool `json:"idempotentHint"`
		OpenWorld   bool `json:"openWorldHint"`
	}
	var got struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Annotations *hints          `json:"annotations"`
		} `json:"tools"`
	}
	decodeStrict(t, exportOK(t, "mcp"), &got)
	want := map[string]hints{
		"exec":       {Destructive: true, OpenWorld: true},
		"read_file":  {ReadOnly: true, Idempotent: true},
		"write_file": {Destructive: true, Idempotent: true},
		"edit_file":  {Destructive: true},
		"list_dir":   {ReadOnly: true, Idempotent: true},
		"search":     {ReadOnly: true, Idempotent: true},
		"glob":       {ReadOnly: true, Idempotent: true},
	}
	all := All()
	if len(got.Tools) != len(all) {
		t.Fatalf("%d tools, want %d", len(got.Tools), len(all))
	}
	for i, tool := range all {
		g := got.Tools[i]
		if g.Name != tool.Name || g.Description != tool.Description {
			t.Errorf("entry %d: name %q, want %q with its description", i, g.Name, tool.Name)
		}
		if !jsonEqual(t, g.InputSchema, tool.Schema) {
			t.Errorf("%s: inputSchema differs from the schema", tool.Name)
		}
		if g.Annotations == nil {
			t.Errorf("%s: no annotations", tool.Name)
		} else if *g.Annotations != want[tool.Name] {
			t.Errorf("%s: annotations %+v, want %+v", tool.Name, *g.Annotations, want[tool.Name])
		}
	}
	// Every annotation key is present even when false: a missing hint means
	// the specification's default, which is not what we mean.
	var raw struct {
		Tools []struct {
			Annotations map[string]json.RawMessage `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(exportOK(t, "mcp"), &raw); err != nil {
		t.Fatal(err)
	}
	for i, tool := range raw.Tools {
		for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, ok := tool.Annotations[k]; !ok {
				t.Errorf("tool %d: annotation %s missing", i, k)
			}
		}
	}
}

func TestMCPHintsForUnknownTool(t *testing.T) {
	// A tool toolgate does not know gets the cautious defaults.
	custom := Tool{Name: "deploy", Description: "Deploy.", Schema: json.RawMessage(`{"type":"object"}`)}
	a := annotations(custom)
	if a != (mcpAnnotations{DestructiveHint: true, OpenWorldHint: true}) {
		t.Errorf("unknown writing tool: %+v", a)
	}
	custom.ReadOnly = true
	a = annotations(custom)
	if a != (mcpAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: true}) {
		t.Errorf("unknown read-only tool: %+v", a)
	}
}

func TestExportMarkdown(t *testing.T) {
	md := string(exportOK(t, "markdown"))
	if md != Markdown(All(), DefaultBoundaries) {
		t.Fatal(`Export("markdown") is not Markdown with DefaultBoundaries`)
	}
	if !strings.HasPrefix(md, "# Tools\n") {
		t.Errorf("no title:\n%.80s", md)
	}
	last := -1
	for _, tool := range All() {
		i := strings.Index(md, "\n## "+tool.Name+"\n")
		if i < 0 {
			t.Errorf("no heading for %s", tool.Name)
			continue
		}
		if i < last {
			t.Errorf("%s is out of order", tool.Name)
		}
		last = i
		section := md[i:]
		if end := strings.Index(section[1:], "\n## "); end >= 0 {
			section = section[:end+1]
		}
		if !strings.Contains(section, tool.Description) {
			t.Errorf("%s: description missing from its section", tool.Name)
		}
		if !strings.Contains(section, "| Parameter | Type | Required | Description |") {
			t.Errorf("%s: no parameter table", tool.Name)
		}
		params, _ := schemaParams(tool.Schema)
		for _, p := range params {
			required := "no"
			if p.required {
				required = "yes"
			}
			row := fmt.Sprintf("| `%s` | %s | %s | %s |", p.name, p.typeText(), required, p.Description)
			if !strings.Contains(section, row) {
				t.Errorf("%s: no row %q", tool.Name, row)
			}
		}
		if !strings.Contains(section, "Limits:") {
			t.Errorf("%s: no limits", tool.Name)
		}
	}
	for _, s := range []string{"Killed after 60 seconds", "10,000 characters", "512 KB", "128,000 characters", "200 by default"} {
		if !strings.Contains(md, s) {
			t.Errorf("manual does not state the limit %q", s)
		}
	}
	b := strings.Index(md, "\n## Boundaries\n")
	if b < last {
		t.Fatalf("Boundaries section missing or not last")
	}
	for _, s := range DefaultBoundaries {
		if !strings.Contains(md[b:], "\n- "+s+"\n") {
			t.Errorf("boundary missing: %q", s)
		}
	}
}

func TestMarkdownBoundaries(t *testing.T) {
	md := Markdown(All()[:1], []string{"Only reads are allowed.", "No network,\never."})
	if !strings.Contains(md, "\n- Only reads are allowed.\n") || !strings.Contains(md, "\n- No network, ever.\n") {
		t.Errorf("given boundaries not listed one per line:\n%s", md)
	}
	for _, s := range DefaultBoundaries {
		if strings.Contains(md, s) {
			t.Errorf("default boundary listed though the caller gave its own: %q", s)
		}
	}
	md = Markdown(All()[:1], nil)
	if !strings.Contains(md, "## Boundaries") || !strings.Contains(md, "No boundaries were listed") {
		t.Errorf("empty boundaries not said:\n%s", md)
	}
}

func TestMarkdownTypes(t *testing.T) {
	want := map[string]string{
		"exec.command":       "string, non-empty",
		"exec.working_dir":   "string or null",
		"read_file.offset":   "integer, 1 to 2147483648",
		"search.max_results": "integer, 1 to 1000",
		"write_file.content": "string",
	}
	for _, tool := range All() {
		params, _ := schemaParams(tool.Schema)
		for _, p := range params {
			if w, ok := want[tool.Name+"."+p.name]; ok && p.typeText() != w {
				t.Errorf("%s.%s: type %q, want %q", tool.Name, p.name, p.typeText(), w)
			}
		}
	}
}

func TestMarkdownEscapesCells(t *testing.T) {
	custom := Tool{
		Name:        "odd",
		Description: "An odd tool.",
		Schema: json.RawMessage(`{"type":"object","properties":{"mode":{"type":"string","enum":["a|b","c"],
			"description":"Pick a | b\nor c."}},"required":["mode"],"additionalProperties":false}`),
	}
	md := Markdown([]Tool{custom}, nil)
	row := "| `mode` | string, one of \"a\\|b\", \"c\" | yes | Pick a \\| b or c. |"
	if !strings.Contains(md, row) {
		t.Errorf("no escaped row %q in:\n%s", row, md)
	}
	broken := Tool{Name: "broken", Schema: json.RawMessage(`{"properties":[]}`)}
	if md := Markdown([]Tool{broken}, nil); !strings.Contains(md, "the schema could not be read") {
		t.Errorf("unreadable schema not reported:\n%s", md)
	}
}

func TestExportErrors(t *testing.T) {
	_, err := Export("x", All())
	if err == nil || err.Error() != `unknown format "x" (want openai, anthropic, mcp or markdown)` {
		t.Errorf("unknown format: %v", err)
	}
	for _, format := range []string{"", "OpenAI", "json", "md"} {
		if _, err := Export(format, All()); err == nil {
			t.Errorf("Export(%q) succeeded", format)
		}
	}
	bad := []Tool{
		{Name: "", Schema: json.RawMessage(`{}`)},
		{Name: "nil", Schema: nil},
		{Name: "array", Schema: json.RawMessage(`[]`)},
		{Name: "torn", Schema: json.RawMessage(`{"type":`)},
	}
	for _, tool := range bad {
		if _, err := Export("openai", []Tool{tool}); err == nil {
			t.Errorf("tool %q with schema %q exported", tool.Name, tool.Schema)
		}
	}
	data, err := Export("anthropic", nil)
	if err != nil || string(data) != "[]\n" {
		t.Errorf("no tools: %q, %v; want an empty array", data, err)
	}
	data, err = Export("mcp", nil)
	if err != nil || !jsonEqual(t, data, []byte(`{"tools":[]}`)) {
		t.Errorf("no tools: %q, %v; want an empty list", data, err)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 10000: "10,000", 128000: "128,000", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func ExampleLookup() {
	tool, ok := Lookup("read_file")
	fmt.Println(tool.Name, ok, tool.ReadOnly, tool.ConcurrencySafe)
	_, ok = Lookup("bash")
	fmt.Println(ok)
	// Output:
	// read_file true true true
	// false
}

func ExampleExport() {
	tool, _ := Lookup("glob")
	out, err := Export("anthropic", []Tool{tool})
	if err != nil {
		fmt.Println(err)
		return
	}
	var got []map[string]any
	_ = json.Unmarshal(out, &got)
	fmt.Println(got[0]["name"], got[0]["input_schema"].(map[string]any)["required"])
	// Output:
	// glob [pattern]
}
