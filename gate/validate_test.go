package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolgate/toolgate/tools"
)

// reference compiles the tools' schemas with a general JSON Schema
// validator, against which the gate's own validator is checked.
func reference(t testing.TB) map[string]*jsonschema.Schema {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{})
	out := map[string]*jsonschema.Schema{}
	for _, tl := range tools.All() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tl.Schema))
		if err != nil {
			t.Fatal(err)
		}
		url := "mem:///" + tl.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		if out[tl.Name], err = c.Compile(url); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// validationCases are argument documents for every tool: the valid
// examples, and each property replaced by values of every JSON type and
// at the edges of its bounds, removed, or joined by an unknown property.
func validationCases() map[string][]string {
	base := map[string]map[string]any{
		"exec":       {"command": "ls", "working_dir": "src"},
		"read_file":  {"path": "a.go", "offset": 1, "limit": 5},
		"write_file": {"path": "a.go", "content": "x"},
		"edit_file":  {"path": "a.go", "old_text": "a", "new_text": "b"},
		"list_dir":   {"path": "."},
		"search":     {"pattern": "x", "path": "src", "glob": "*.go", "max_results": 10},
		"glob":       {"pattern": "**/*.go"},
	}
	values := []string{`""`, `"x"`, `"é"`, `"\u00e9\u0301"`, `0`, `1`, `-1`, `1.0`, `1.5`, `2e0`, `1e2`, `1000`, `1001`, `100000000000000000000000`, `0.5e1`, `true`, `false`, `null`, `[]`, `["x"]`, `{}`, `{"a":1}`}
	out := map[string][]string{}
	for tool, args := range base {
		b, _ := json.Marshal(args)
		out[tool] = append(out[tool], string(b), `{}`, `{"zzz":1}`, `[]`, `"x"`, `null`, `1`)
		for name := range args {
			without := map[string]any{}
			for k, v := range args {
				if k != name {
					without[k] = v
				}
			}
			b, _ := json.Marshal(without)
			out[tool] = append(out[tool], string(b))
			for _, v := range values {
				with := map[string]json.RawMessage{}
				for k, x := range without {
					with[k], _ = json.Marshal(x)
				}
				with[name] = json.RawMessage(v)
				b, _ := json.Marshal(with)
				out[tool] = append(out[tool], string(b))
				with["extra"] = json.RawMessage(v)
				b, _ = json.Marshal(with)
				out[tool] = append(out[tool], string(b))
			}
		}
	}
	return out
}

// TestValidatorAgreesWithReference: the gate's validator accepts exactly
// what a general JSON Schema validator accepts, for every tool.
func TestValidatorAgreesWithReference(t *testing.T) {
	ref := reference(t)
	v, err := newValidator(tools.All())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for tool, cases := range validationCases() {
		for _, args := range cases {
			checkAgainstReference(t, v, ref, tool, args)
			n++
		}
	}
	if n < 500 {
		t.Fatalf("only %d cases", n)
	}
}

func checkAgainstReference(t testing.TB, v *validator, ref map[string]*jsonschema.Schema, tool, args string) {
	errs, _, known := v.validate(tool, []byte(args))
	if !known {
		t.Fatalf("%s: unknown", tool)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		if len(errs) == 0 {
			t.Errorf("%s %s: not JSON, but accepted", tool, args)
		}
		return
	}
	refErr := ref[tool].Validate(doc)
	if (refErr == nil) != (len(errs) == 0) {
		t.Errorf("%s %s: gate says %q, reference says %v", tool, args, errs, refErr)
	}
	for _, e := range errs {
		if !strings.HasPrefix(e, "/") || !strings.Contains(e, ": ") {
			t.Errorf("%s %s: violation %q has no location", tool, args, e)
		}
	}
}

// TestValidatorRefusesUnknownKeywords: a schema keyword the validator does
// not implement stops the gate from starting rather than being ignored.
func TestValidatorRefusesUnknownKeywords(t *testing.T) {
	for _, kw := range []string{`"pattern":"^a"`, `"oneOf":[{}]`, `"$ref":"#/x"`, `"format":"uri"`, `"additionalProperties":{"type":"string"}`, `"type":"strin"`, `"minLength":-1`} {
		schema := fmt.Sprintf(`{"type":"object","properties":{"a":{"type":"string",%s}}}`, kw)
		if _, err := newValidator([]tools.Tool{{Name: "t", Schema: json.RawMessage(schema)}}); err == nil {
			t.Errorf("%s accepted", kw)
		}
	}
}

// TestValidatorNumbers: exact integer and bound checks, and exponents too
// large to read exactly refused rather than read.
func TestValidatorNumbers(t *testing.T) {
	v, err := newValidator(tools.All())
	if err != nil {
		t.Fatal(err)
	}
	for args, ok := range map[string]bool{
		`{"pattern":"x","max_results":1000}`:                     true,
		`{"pattern":"x","max_results":1000.0}`:                   true,
		`{"pattern":"x","max_results":10e2}`:                     true,
		`{"pattern":"x","max_results":1000.0000000000000000001}`: false,
		`{"pattern":"x","max_results":1001}`:                     false,
		`{"pattern":"x","max_results":1e999999999}`:              false,
		`{"pattern":"x","max_results":1e-999999999}`:             false,
	} {
		errs, _, _ := v.validate("search", []byte(args))
		if (len(errs) == 0) != ok {
			t.Errorf("%s: got %q, want ok=%v", args, errs, ok)
		}
	}
}

// TestValidatorOneValue: the arguments are one JSON value and white space;
// a stray closer after it (which Decoder.More passes) is refused too.
func TestValidatorOneValue(t *testing.T) {
	v, err := newValidator(tools.All())
	if err != nil {
		t.Fatal(err)
	}
	for args, ok := range map[string]bool{
		`{"command":"ls"}`:           true,
		" {\"command\":\"ls\"} \n\t": true,
		`{"command":"ls"}]`:          false,
		`{"command":"ls"}}`:          false,
		`{"command":"ls"} {"a":1}`:   false,
		`{"command":"ls"} x`:         false,
	} {
		errs, _, _ := v.validate("exec", []byte(args))
		if (len(errs) == 0) != ok {
			t.Errorf("%q: got %q, want ok=%v", args, errs, ok)
		}
	}
}

// FuzzValidate checks the validator against the reference on arbitrary
// argument documents.
func FuzzValidate(f *testing.F) {
	for tool, cases := range validationCases() {
		for _, c := range cases[:8] {
			f.Add(tool, c)
		}
	}
	ref := reference(f)
	v, err := newValidator(tools.All())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tool, args string) {
		if ref[tool] == nil || strings.ContainsAny(args, "eE") && strings.Contains(args, "00") {
			return // unknown tool, or an exponent the gate may refuse as too large
		}
		if !json.Valid([]byte(args)) {
			return
		}
		checkAgainstReference(t, v, ref, tool, args)
	})
}
