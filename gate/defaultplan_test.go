package gate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/format"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/toolgate/toolgate/internal/irvm"
	"github.com/toolgate/toolgate/policies"
)

func planOf(t *testing.T, p *Policy) []byte {
	t.Helper()
	doc, err := p.dataDoc()
	if err != nil {
		t.Fatal(err)
	}
	prog, err := irvm.Prepare(context.Background(), p.regoOptions(doc)...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := planSource(p.Modules, prog)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// planFile is where the embedded plan's source is kept.
var planFile = filepath.Join("..", "internal", "irvm", "default_plan.go")

// TestEmbeddedPlan: the plan embedded in the binary is the one OPA makes
// of the embedded policy now (TOOLGATE_WRITE_PLAN=1, or go generate
// ./gate, writes it), planning is deterministic, and the plan does not
// depend on the data (a gate with --data files uses it too).
func TestEmbeddedPlan(t *testing.T) {
	p, err := LoadPolicy(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fresh := planOf(t, p)
	if again := planOf(t, p); !bytes.Equal(fresh, again) {
		t.Fatal("planning the same policy twice gave two plans")
	}
	data := builtinDataSource(t, p)
	if os.Getenv("TOOLGATE_WRITE_PLAN") == "1" {
		if err := os.WriteFile(planFile, fresh, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dataFile, data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes) and %s (%d bytes)", planFile, len(fresh), dataFile, len(data))
		return
	}
	if kept, err := os.ReadFile(planFile); err != nil || !bytes.Equal(fresh, kept) {
		t.Fatalf("%s is not the plan of the embedded policy (%v): run go generate ./gate", planFile, err)
	}
	if kept, err := os.ReadFile(dataFile); err != nil || !bytes.Equal(data, kept) {
		t.Fatalf("%s is not the embedded policy's data (%v): run go generate ./gate", dataFile, err)
	}
	if !p.literalData || !p.builtinOnly() {
		t.Fatal("the embedded data were not taken from the generated literals")
	}
	// The generated document, index and digest are what reading
	// data.json makes of them.
	raw, _ := builtinFile("data.json")
	doc, err := decodeBuiltinData(raw)
	if err != nil {
		t.Fatal(err)
	}
	read := &Policy{Modules: p.Modules, Data: doc, parsed: p.parsed}
	if !reflect.DeepEqual(p.Data, read.Data) {
		t.Fatalf("the generated data document differs from data.json:\n%v\n%v", p.Data, read.Data)
	}
	if got, want := p.Digest, read.computeDigest(); got != want {
		t.Fatalf("digest %s, reading data.json gives %s", got, want)
	}
	docLit, err := p.dataDoc()
	if err != nil {
		t.Fatal(err)
	}
	docRead, err := read.dataDoc()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(docLit, docRead) {
		t.Fatal("the generated index differs from the one built from data.json")
	}
	if !hasEmbeddedPlan(p.Modules) {
		t.Fatal("the embedded plan's key does not match the embedded policy")
	}
	vm, err := p.embeddedPlan()
	if err != nil || vm == nil {
		t.Fatalf("the embedded plan does not load: %v", err)
	}

	// other data, the same plan
	cfg := deepCopy(p.Data)
	tc := cfg["toolgate"].(map[string]any)["config"].(map[string]any)
	var cmds, paths []any
	for i := range 200 {
		cmds = append(cmds, fmt.Sprintf("tool%d run", i))
		paths = append(paths, fmt.Sprintf("~/.secret%d", i))
	}
	tc["allowed_commands"], tc["sensitive_paths"] = cmds, paths
	tc["deny_patterns"] = []any{"rm -rf *"}
	other := &Policy{Modules: p.Modules, Data: cfg, parsed: p.parsed}
	if !bytes.Equal(planOf(t, other), fresh) {
		t.Fatal("the plan depends on the data: a gate with --data must not use the embedded plan")
	}

	// another module, no embedded plan
	mods := map[string]string{"x.rego": "package toolgate\nimport rego.v1\ndecision := {\"decision\": \"deny\", \"reasons\": []}\n"}
	for k, v := range p.Modules {
		mods[k] = v
	}
	if hasEmbeddedPlan(mods) {
		t.Fatal("the embedded plan was taken for a policy with another module")
	}
}

// BenchmarkEmbeddedPlan is what a process pays to make the embedded plan
// ready: its constants, its built-in table and the checks of its
// statements (nothing is decoded).
func BenchmarkEmbeddedPlan(b *testing.B) {
	for b.Loop() {
		if _, err := irvm.Default.Program(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBuiltinDataAsOPALoads: the embedded data.json, read without OPA (as
// the small build reads it), is the data document OPA's loader makes of
// the embedded policy directory.
func TestBuiltinDataAsOPALoads(t *testing.T) {
	p, err := LoadPolicy(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := loader.NewFileLoader().WithFS(policies.FS).Filtered([]string{"."}, regoFilter)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Data, res.Documents) {
		t.Fatalf("the embedded data differ from OPA's reading:\n%v\n%v", p.Data, res.Documents)
	}
	if len(p.Config()) == 0 {
		t.Fatal("no data.toolgate.config")
	}
}

// dataFile is where the embedded data's literals are kept.
const dataFile = "builtin_data.go"

// builtinDataSource is builtin_data.go for the embedded policy p (read
// from data.json, not from a previous builtin_data.go).
func builtinDataSource(t *testing.T, p *Policy) []byte {
	t.Helper()
	raw, err := builtinFile("data.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := decodeBuiltinData(raw)
	if err != nil {
		t.Fatal(err)
	}
	read := &Policy{Modules: p.Modules, Data: doc}
	idx, err := index(read.Config())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(raw))
	var b bytes.Buffer
	fmt.Fprintf(&b, "const builtinDataKey = %q\n\nconst builtinDigest = %q\n\n", hex.EncodeToString(sum[:]), read.computeDigest())
	b.WriteString("func builtinDataDoc() map[string]any {\nreturn ")
	writeLiteral(t, &b, read.Data)
	b.WriteString("\n}\n\nfunc builtinIndex() map[string]any {\nreturn ")
	writeLiteral(t, &b, idx)
	b.WriteString("\n}\n")
	head := "// Code generated by go generate ./gate; DO NOT EDIT.\n\npackage gate\n\n"
	if bytes.Contains(b.Bytes(), []byte("json.Number(")) {
		head += "import \"encoding/json\"\n\n"
	}
	out, err := format.Source(append([]byte(head), b.Bytes()...))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.Bytes())
	}
	return out
}

// writeLiteral writes v, a JSON document as encoding/json decodes it with
// UseNumber (or as index builds it), as a Go expression.
func writeLiteral(t *testing.T, b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case map[string]any:
		b.WriteString("map[string]any{")
		for _, k := range slices.Sorted(maps.Keys(v)) {
			fmt.Fprintf(b, "\n%q: ", k)
			writeLiteral(t, b, v[k])
			b.WriteString(",")
		}
		b.WriteString("\n}")
	case []any:
		b.WriteString("[]any{")
		for _, e := range v {
			writeLiteral(t, b, e)
			b.WriteString(", ")
		}
		b.WriteString("}")
	case string:
		fmt.Fprintf(b, "%q", v)
	case json.Number:
		fmt.Fprintf(b, "json.Number(%q)", string(v))
	case bool:
		fmt.Fprintf(b, "%t", v)
	case nil:
		b.WriteString("nil")
	default:
		t.Fatalf("a %T in the data document", v)
	}
}

// planSource is internal/irvm/default_plan.go for a program planned from
// modules.
func planSource(modules map[string]string, prog *irvm.Program) ([]byte, error) {
	return prog.GoSource("go generate ./gate", "Default", planKey(modules)+" "+opaVersion)
}

// TestBuiltinLiteralsOnlyAlone: the generated index and digest stand for
// the embedded data alone. With a data file on top the index is built from
// the merged data (a shell the file adds is judged a shell) and the digest
// covers the file; a data.json other than the one the literals were
// written from is read from the file.
func TestBuiltinLiteralsOnlyAlone(t *testing.T) {
	f := filepath.Join(t.TempDir(), "extra.json")
	if err := os.WriteFile(f, []byte(`{"toolgate": {"config": {"shells": ["sh", "bash", "myshell"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPolicy(nil, []string{f})
	if err != nil {
		t.Fatal(err)
	}
	if p.builtinOnly() || p.Digest == builtinDigest {
		t.Fatalf("a policy with a data file was taken for the default alone (digest %s)", p.Digest)
	}
	doc, err := p.dataDoc()
	if err != nil {
		t.Fatal(err)
	}
	shells := doc["toolgate"].(map[string]any)["index"].(map[string]any)["groups"].(map[string]any)["shells"].(map[string]any)
	if shells["myshell"] != true {
		t.Fatalf("the index lacks the data file's shell: %v", shells)
	}
	raw, _ := builtinFile("data.json")
	if _, ok := builtinLiteral(raw + "\n"); ok {
		t.Fatal("the literals were taken for a different data.json")
	}
	if _, ok := builtinLiteral(raw); !ok {
		t.Fatal("the literals were not taken for the data.json they were written from")
	}
}
