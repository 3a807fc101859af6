package gate

import (
	"bytes"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/toolgate/toolgate/parser"
)

// The input document is built as an OPA value directly: a JSON round trip
// costs more than the rest of a typical evaluation. TestASTInputMatchesJSON
// keeps this in step with the JSON encoding of Input.

// str makes a string term; the input's recurring values (zones, access
// kinds, contexts, roles, kinds, the empty string) are built once and
// shared: a decision's input holds dozens of them.
func str(s string) *ast.Term {
	if t, ok := valueTerms[s]; ok {
		return t
	}
	return ast.StringTerm(s)
}

// valueTerms are shared read-only terms: nothing changes a term once it is
// in a value (OPA shares its own interned terms the same way).
var valueTerms = func() map[string]*ast.Term {
	m := map[string]*ast.Term{}
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
	} {
		m[v] = ast.StringTerm(v)
	}
	return m
}()

// keyTerms are the input document's keys, built once: they are the same
// for every call.
var keyTerms = func() map[string]*ast.Term {
	m := map[string]*ast.Term{}
	for _, k := range []string{"abs", "access", "args", "argv", "assigns", "cmd", "code", "command", "commands", "context", "cwd", "depth", "dynamic", "env", "exists", "fd", "flags", "forks", "functions", "git_code", "glob", "groups", "home", "in_workspace", "kind", "message", "name", "names", "op", "parse_error", "path", "paths", "pipelines", "present", "protected", "raw", "real", "recursive", "redirects", "role", "sandboxed", "scripts", "sensitive", "sensitive_match", "stdin", "stdin_from", "subcommand", "text", "tool", "uploads", "value", "version", "workspace", "wrappers", "writes", "zone", "zones"} {
		m[k] = ast.StringTerm(k)
	}
	return m
}()

func key(k string) *ast.Term {
	if t, ok := keyTerms[k]; ok {
		return t
	}
	return ast.StringTerm(k)
}

func boolean(b bool) *ast.Term { return ast.InternedTerm(b) }

func num(i int) *ast.Term { return ast.InternedTerm(i) }

func item(k string, v *ast.Term) [2]*ast.Term { return [2]*ast.Term{key(k), v} }

func strs(list []string) *ast.Term {
	ts := make([]*ast.Term, len(list))
	for i, s := range list {
		ts[i] = str(s)
	}
	return ast.ArrayTerm(ts...)
}

func strMap(m map[string]string) *ast.Term {
	o := ast.NewObjectWithCapacity(len(m))
	for k, v := range m {
		o.Insert(str(k), str(v))
	}
	return ast.NewTerm(o)
}

// stringSet is a set of the strings s holds.
func stringSet(s parser.Set) *ast.Term {
	terms := make([]*ast.Term, 0, len(s))
	for k, in := range s {
		if in {
			terms = append(terms, str(k))
		}
	}
	return ast.SetTerm(terms...)
}

func boolMap(m map[string]bool) *ast.Term {
	o := ast.NewObjectWithCapacity(len(m))
	for k, v := range m {
		o.Insert(str(k), boolean(v))
	}
	return ast.NewTerm(o)
}

// inputValue converts in to an OPA value.
func inputValue(in *Input) (ast.Value, error) {
	var args ast.Value
	var err error
	if in.argsDoc != nil {
		args, err = ast.InterfaceToValue(in.argsDoc)
	} else {
		args, err = ast.ValueFromReader(bytes.NewReader(in.Args))
	}
	if err != nil {
		return nil, err
	}
	f := in.Facts
	if f == nil {
		f = &parser.Facts{}
	}
	cmds := make([]*ast.Term, len(f.Commands))
	for i, c := range f.Commands {
		cmds[i] = ast.ObjectTerm(
			item("name", str(c.Name)), item("argv", strs(c.Argv)), item("dynamic", boolean(c.Dynamic)),
			item("wrappers", strs(c.Wrappers)), item("depth", num(c.Depth)), item("context", str(c.Context)),
			item("cwd", str(c.Cwd)), item("stdin", str(c.Stdin)), item("stdin_from", str(c.StdinFrom)),
			item("env", strMap(c.Env)), item("flags", boolMap(c.Flags)), item("subcommand", str(c.Subcommand)))
	}
	pipes := make([]*ast.Term, len(f.Pipelines))
	for i, p := range f.Pipelines {
		pipes[i] = strs(p)
	}
	reds := make([]*ast.Term, len(f.Redirects))
	for i, r := range f.Redirects {
		reds[i] = ast.ObjectTerm(item("op", str(r.Op)), item("fd", num(r.Fd)), item("path", str(r.Path)))
	}
	paths := make([]*ast.Term, len(f.Paths))
	for i, p := range f.Paths {
		items := [][2]*ast.Term{
			item("raw", str(p.Raw)), item("abs", str(p.Abs)), item("real", str(p.Real)), item("access", str(p.Access)),
			item("in_workspace", boolean(p.InWorkspace)), item("sensitive", boolean(p.Sensitive)), item("exists", boolean(p.Exists)),
			item("zone", str(p.Zone)), item("glob", boolean(p.Glob)), item("dynamic", boolean(p.Dynamic)),
			item("command", str(p.Command)), item("cmd", num(p.Cmd)),
		}
		if p.SensitiveMatch != "" {
			items = append(items, item("sensitive_match", str(p.SensitiveMatch)))
		}
		if p.Role != "" {
			items = append(items, item("role", str(p.Role)))
		}
		if p.Protected != "" {
			items = append(items, item("protected", str(p.Protected)))
		}
		if p.Tree {
			items = append(items, item("tree", boolean(true)))
		}
		if p.GitCode {
			items = append(items, item("git_code", boolean(true)))
		}
		paths[i] = ast.ObjectTerm(items...)
	}
	dyn := make([]*ast.Term, len(f.Dynamic))
	for i, d := range f.Dynamic {
		dyn[i] = ast.ObjectTerm(item("kind", str(d.Kind)), item("text", str(d.Text)), item("cmd", num(d.Cmd)))
	}
	fns := make([]*ast.Term, len(f.Functions))
	for i, fn := range f.Functions {
		fns[i] = ast.ObjectTerm(item("name", str(fn.Name)), item("recursive", boolean(fn.Recursive)), item("forks", boolean(fn.Forks)))
	}
	asg := make([]*ast.Term, len(f.Assigns))
	for i, a := range f.Assigns {
		asg[i] = ast.ObjectTerm(item("name", str(a.Name)), item("value", str(a.Value)), item("dynamic", boolean(a.Dynamic)), item("cmd", num(a.Cmd)))
	}
	perr := ast.NullTerm()
	if f.ParseError != nil {
		perr = ast.ObjectTerm(item("code", str(f.ParseError.Code)), item("message", str(f.ParseError.Message)))
	}
	pr := in.Present
	if pr == nil {
		pr = &parser.Present{}
	}
	present := [][2]*ast.Term{item("names", stringSet(pr.Names)), item("groups", stringSet(pr.Groups)), item("access", stringSet(pr.Access)),
		item("zones", stringSet(pr.Zones)), item("dynamic", stringSet(pr.Dynamic))}
	for _, kv := range []struct {
		k string
		v bool
	}{{"sensitive", pr.Sensitive}, {"assigns", pr.Assigns}, {"forks", pr.Forks}, {"pipelines", pr.Pipelines}, {"uploads", pr.Uploads}, {"writes", pr.Writes}, {"scripts", pr.Scripts}, {"protected", pr.Protected}} {
		if kv.v {
			present = append(present, item(kv.k, boolean(true)))
		}
	}
	return ast.NewObject(
		item("present", ast.ObjectTerm(present...)),
		item("version", num(in.Version)), item("tool", str(in.Tool)), item("args", ast.NewTerm(args)),
		item("workspace", str(in.Workspace)), item("cwd", str(in.Cwd)), item("home", str(in.Home)),
		item("sandboxed", boolean(in.Sandboxed)),
		item("commands", ast.ArrayTerm(cmds...)), item("pipelines", ast.ArrayTerm(pipes...)),
		item("redirects", ast.ArrayTerm(reds...)), item("paths", ast.ArrayTerm(paths...)),
		item("dynamic", ast.ArrayTerm(dyn...)), item("functions", ast.ArrayTerm(fns...)),
		item("assigns", ast.ArrayTerm(asg...)), item("parse_error", perr),
	), nil
}
