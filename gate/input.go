package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"github.com/toolgate/toolgate/internal/value"
	"github.com/toolgate/toolgate/parser"
)

// The input document is built as a policy value directly: a JSON round
// trip costs more than the rest of a typical evaluation.
// TestASTInputMatchesJSON keeps this in step with the JSON encoding of
// Input.

// str makes a string value; the input's recurring values (zones, access
// kinds, contexts, roles, kinds, the empty string) are made once and
// shared: a decision's input holds dozens of them.
func str(s string) value.Value {
	if v, ok := sharedStrings[s]; ok {
		return v
	}
	return value.String(s)
}

// sharedStrings are shared read-only values, keys of the input included.
var sharedStrings = func() map[string]value.Value {
	m := map[string]value.Value{}
	for _, v := range []string{"",
		// zones
		"workspace_root", "workspace", "root", "home", "outside", "tmp_root", "tmp", "system", "proc_private", "dev_safe", "dev_net", "device", "unknown",
		// access kinds
		"read", "write", "delete", "exec", "cwd", "create",
		// command contexts and path roles
		"simple", "pipeline", "subshell", "substitution", "nested", "function", "guessed", "upload", "download", "operand",
		// tools
		"exec", "read_file", "write_file", "edit_file", "list_dir", "search", "glob",
		// redirection operators and dynamic kinds
		">", ">>", "<", "2>", "&>", "param", "eval", "nested_script", "procsubst_script", "stdin_script", "too_large", "command_name",
		// keys
		"abs", "access", "args", "argv", "assigns", "cmd", "code", "command", "commands", "context", "cwd", "depth", "dynamic", "env", "exists", "fd", "flags", "forks", "functions", "git_code", "glob", "groups", "home", "in_workspace", "kind", "message", "name", "names", "op", "parse_error", "path", "paths", "pipelines", "present", "protected", "raw", "real", "recursive", "redirects", "role", "sandboxed", "scripts", "sensitive", "sensitive_match", "stdin", "stdin_from", "subcommand", "text", "tool", "tree", "uploads", "value", "version", "workspace", "wrappers", "writes", "zone", "zones",
	} {
		m[v] = value.String(v)
	}
	return m
}()

// object builds an object of key, value pairs (keys are strings).
type object struct{ o *value.Object }

func newObject(n int) object { return object{value.NewObject(n)} }

func (o object) set(k string, v value.Value) object {
	o.o.Insert(str(k), v)
	return o
}

func strs(list []string) value.Value {
	vs := make([]value.Value, len(list))
	for i, s := range list {
		vs[i] = str(s)
	}
	return value.NewArray(vs...)
}

func strMap(m map[string]string) value.Value {
	o := value.NewObject(len(m))
	for k, v := range m {
		o.Insert(str(k), str(v))
	}
	return o
}

// stringSet is a set of the strings s holds.
func stringSet(s parser.Set) value.Value {
	keys := make([]string, 0, len(s))
	for k, in := range s {
		if in {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	set := value.NewSet(len(keys))
	for _, k := range keys {
		set.Add(str(k))
	}
	return set
}

func boolMap(m map[string]bool) value.Value {
	o := value.NewObject(len(m))
	for k, v := range m {
		o.Insert(str(k), value.Boolean(v))
	}
	return o
}

// argsValue is the call's arguments as a value.
func argsValue(in *Input) (value.Value, error) {
	if in.argsDoc != nil {
		return value.FromGo(in.argsDoc)
	}
	doc, err := decodeOne(in.Args)
	if err != nil {
		return nil, err
	}
	return value.FromGo(doc)
}

// decodeOne decodes one JSON value, numbers kept as written (json.Number).
// Only white space may follow it: Decoder.More alone says no at a stray ]
// or } after the value too.
func decodeOne(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	for _, c := range b[dec.InputOffset():] {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return nil, errors.New("data after the value")
		}
	}
	return doc, nil
}

// inputValue converts in to the policy's input value.
func inputValue(in *Input) (value.Value, error) {
	args, err := argsValue(in)
	if err != nil {
		return nil, err
	}
	f := in.Facts
	if f == nil {
		f = &parser.Facts{}
	}
	cmds := make([]value.Value, len(f.Commands))
	for i, c := range f.Commands {
		cmds[i] = newObject(12).set("argv", strs(c.Argv)).set("context", str(c.Context)).set("cwd", str(c.Cwd)).
			set("depth", value.Int(c.Depth)).set("dynamic", value.Boolean(c.Dynamic)).set("env", strMap(c.Env)).
			set("flags", boolMap(c.Flags)).set("name", str(c.Name)).set("stdin", str(c.Stdin)).
			set("stdin_from", str(c.StdinFrom)).set("subcommand", str(c.Subcommand)).set("wrappers", strs(c.Wrappers)).o
	}
	pipes := make([]value.Value, len(f.Pipelines))
	for i, p := range f.Pipelines {
		pipes[i] = strs(p)
	}
	reds := make([]value.Value, len(f.Redirects))
	for i, r := range f.Redirects {
		reds[i] = newObject(3).set("fd", value.Int(r.Fd)).set("op", str(r.Op)).set("path", str(r.Path)).o
	}
	paths := make([]value.Value, len(f.Paths))
	for i, p := range f.Paths {
		o := newObject(17).set("abs", str(p.Abs)).set("access", str(p.Access)).set("cmd", value.Int(p.Cmd)).
			set("command", str(p.Command)).set("dynamic", value.Boolean(p.Dynamic)).set("exists", value.Boolean(p.Exists))
		if p.GitCode {
			o.set("git_code", value.True)
		}
		o.set("glob", value.Boolean(p.Glob)).set("in_workspace", value.Boolean(p.InWorkspace))
		if p.Protected != "" {
			o.set("protected", str(p.Protected))
		}
		o.set("raw", str(p.Raw)).set("real", str(p.Real))
		if p.Role != "" {
			o.set("role", str(p.Role))
		}
		o.set("sensitive", value.Boolean(p.Sensitive))
		if p.SensitiveMatch != "" {
			o.set("sensitive_match", str(p.SensitiveMatch))
		}
		if p.Tree {
			o.set("tree", value.True)
		}
		paths[i] = o.set("zone", str(p.Zone)).o
	}
	dyn := make([]value.Value, len(f.Dynamic))
	for i, d := range f.Dynamic {
		dyn[i] = newObject(3).set("cmd", value.Int(d.Cmd)).set("kind", str(d.Kind)).set("text", str(d.Text)).o
	}
	fns := make([]value.Value, len(f.Functions))
	for i, fn := range f.Functions {
		fns[i] = newObject(3).set("forks", value.Boolean(fn.Forks)).set("name", str(fn.Name)).set("recursive", value.Boolean(fn.Recursive)).o
	}
	asg := make([]value.Value, len(f.Assigns))
	for i, a := range f.Assigns {
		asg[i] = newObject(4).set("cmd", value.Int(a.Cmd)).set("dynamic", value.Boolean(a.Dynamic)).set("name", str(a.Name)).set("value", str(a.Value)).o
	}
	perr := value.NullValue
	if f.ParseError != nil {
		perr = newObject(2).set("code", str(f.ParseError.Code)).set("message", str(f.ParseError.Message)).o
	}
	pr := in.Present
	if pr == nil {
		pr = &parser.Present{}
	}
	present := newObject(13).set("access", stringSet(pr.Access)).set("dynamic", stringSet(pr.Dynamic)).
		set("groups", stringSet(pr.Groups)).set("names", stringSet(pr.Names)).set("zones", stringSet(pr.Zones))
	for _, kv := range []struct {
		k string
		v bool
	}{{"sensitive", pr.Sensitive}, {"assigns", pr.Assigns}, {"forks", pr.Forks}, {"pipelines", pr.Pipelines}, {"uploads", pr.Uploads}, {"writes", pr.Writes}, {"scripts", pr.Scripts}, {"protected", pr.Protected}} {
		if kv.v {
			present.set(kv.k, value.True)
		}
	}
	return newObject(16).set("args", args).set("assigns", value.NewArray(asg...)).set("commands", value.NewArray(cmds...)).
		set("cwd", str(in.Cwd)).set("dynamic", value.NewArray(dyn...)).set("functions", value.NewArray(fns...)).
		set("home", str(in.Home)).set("parse_error", perr).set("paths", value.NewArray(paths...)).
		set("pipelines", value.NewArray(pipes...)).set("present", present.o).set("redirects", value.NewArray(reds...)).
		set("sandboxed", value.Boolean(in.Sandboxed)).set("tool", str(in.Tool)).set("version", value.Int(in.Version)).
		set("workspace", str(in.Workspace)).o, nil
}
