package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/toolgate/toolgate/parser"
)

// External tools are the tools of another MCP server that toolgate stands in
// front of (toolgate mcp --upstream). toolgate knows neither their schema
// nor what they do, so their input document is built from what the call
// itself says: input.tool is the upstream name, input.args its arguments,
// and the path set comes from arguments that are paths — named like one
// (path, file, source, destination, directory, …) or absolute / "~" strings
// anywhere in the arguments — with the access guessed from the tool's name
// (read*, list*, get*, search* read; write*, edit*, create*, move* write;
// delete*, remove* delete). A string argument named command (or cmd,
// script) is analysed as a shell command. The default policy treats these
// calls like the file tools: workspace only, secrets denied.

// pathKeys are argument names whose string values are paths.
var pathKeys = map[string]bool{
	"path": true, "paths": true, "file": true, "files": true, "filename": true, "filepath": true,
	"file_path": true, "filepaths": true, "file_paths": true, "source": true, "sources": true, "src": true,
	"destination": true, "dest": true, "dst": true, "target": true, "to": true, "from": true,
	"directory": true, "directories": true, "dir": true, "dirs": true, "folder": true, "root": true,
	"cwd": true, "working_dir": true, "workdir": true, "location": true, "notebook_path": true,
	"old_path": true, "new_path": true, "output": true, "output_path": true, "input": true, "input_path": true,
}

// contentKeys hold text, not paths, even when it starts with "/".
var contentKeys = map[string]bool{
	"content": true, "contents": true, "text": true, "newtext": true, "oldtext": true, "new_text": true,
	"old_text": true, "new_string": true, "old_string": true, "body": true, "message": true, "data": true,
	"pattern": true, "patterns": true, "excludepatterns": true, "exclude_patterns": true, "query": true,
	"description": true, "value": true, "comment": true, "title": true, "regex": true,
}

// CodeNotNFC denies a path that is not in Unicode normal form C: servers
// such as the reference filesystem server match path components by their
// NFC form, so "\u212afg" (a Kelvin sign) reaches a "Kfg" symlink that the
// gate, looking for the name as written, never saw.
const CodeNotNFC = "gate.path_not_normalized"

// CodeTooDeep denies arguments nested deeper than toolgate looks for paths.
const CodeTooDeep = "gate.args_too_deep"

// maxArgDepth bounds how deep externalArgs looks; deeper arguments are
// denied rather than left unread.
const maxArgDepth = 16

// CodeRelativePath denies a relative path in an upstream tool's arguments:
// toolgate cannot know what the upstream server resolves it against (the
// reference filesystem server resolves it against its first allowed
// directory, not its working directory), so it cannot judge where it lands.
const CodeRelativePath = "gate.relative_path"

// commandKeys are argument names whose string values are shell commands.
var commandKeys = map[string]bool{"command": true, "cmd": true, "cmdline": true, "script": true, "shell_command": true, "shell": true, "commandline": true, "command_line": true, "bash": true}

// verbs map the first word of a tool name to the access its paths get.
var verbs = map[string]string{
	"read": "read", "list": "read", "get": "read", "search": "read", "find": "read", "view": "read",
	"show": "read", "stat": "read", "info": "read", "tree": "read", "directory": "read", "glob": "read",
	"grep": "read", "cat": "read", "head": "read", "tail": "read", "open": "read", "query": "read",
	"write": "write", "edit": "write", "create": "write", "update": "write", "put": "write",
	"save": "write", "append": "write", "patch": "write", "insert": "write", "replace": "write",
	"mkdir": "write", "touch": "write", "upload": "write", "set": "write", "move": "write",
	"rename": "write", "mv": "write", "copy": "write", "cp": "write",
	"delete": "delete", "remove": "delete", "rm": "delete", "unlink": "delete", "trash": "delete",
	"rmdir": "delete", "purge": "delete",
}

// toolVerb is the access a tool's name implies: its first word that is a
// known verb ("read_text_file" → read, "fs.writeFile" → write), after the
// mcp__<server>__ prefix of a Claude Code MCP tool (a server called "open"
// must not make its tools readers). A name with no known verb gets write:
// its paths must then be writable, which is the stricter reading.
func toolVerb(name string) string {
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		if i := strings.Index(rest, "__"); i >= 0 {
			name = rest[i+2:]
		}
	}
	for _, w := range nameWords(name) {
		if a, ok := verbs[w]; ok {
			return a
		}
	}
	return "write"
}

// nameWords splits a tool name at _ - . / and lower-to-upper case changes.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prev := rune(0)
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '/' || r == ' ' || r == ':':
			flush()
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return words
}

// externalArgs finds the paths and shell commands in a call's arguments.
func externalArgs(tool string, args map[string]any) (paths []parser.PathArg, commands, relative []string, tooDeep bool) {
	access := toolVerb(tool)
	isMove := false
	for _, w := range nameWords(tool) {
		if w == "move" || w == "rename" || w == "mv" {
			isMove = true
		}
	}
	var walk func(key string, v any, depth int)
	walk = func(key string, v any, depth int) {
		if depth > maxArgDepth {
			tooDeep = true
			return
		}
		switch x := v.(type) {
		case string:
			k := strings.ToLower(key)
			if commandKeys[k] {
				commands = append(commands, x)
				return
			}
			if contentKeys[k] || x == "" {
				return
			}
			// "--file=/x" names a path after its "=".
			if strings.HasPrefix(x, "-") {
				if _, val, ok := strings.Cut(x, "="); ok {
					x = val
				}
			}
			x = fileURI(x)
			if !pathKeys[k] && !looksAbsolute(x) && !climbs(x) {
				return
			}
			if !looksAbsolute(x) {
				relative = append(relative, x)
				return
			}
			a := access
			switch {
			case isMove && (k == "source" || k == "src" || k == "from" || k == "old_path"):
				a = "delete" // a moved file is gone from where it was
			case access == "write" && (k == "source" || k == "src" || k == "from"):
				a = "read" // copy_file(source, destination)
			}
			paths = append(paths, parser.PathArg{Raw: x, Access: a, Glob: strings.ContainsAny(x, "*?[")})
		case []any:
			if commandKeys[strings.ToLower(key)] {
				// ["cat", "/etc/shadow"]: an argv, analysed as one command
				var words []string
				for _, e := range x {
					if w, ok := e.(string); ok {
						words = append(words, shellQuote(w))
					}
				}
				commands = append(commands, strings.Join(words, " "))
				return
			}
			eachArg(key, x, depth, walk)
		case map[string]any:
			eachArg(key, x, depth, walk)
		}
	}
	walk("", args, 0)
	return paths, commands, relative, tooDeep
}

// eachArg visits the elements of an array (under its key) or the members
// of an object (in key order), one level deeper.
func eachArg(key string, v any, depth int, visit func(key string, v any, depth int)) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			visit(key, e, depth+1)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			visit(k, x[k], depth+1)
		}
	}
}

// opaqueKeys name arguments whose value is code or an address, which
// toolgate does not judge for an external tool (a notebook's code, an
// expression to evaluate, a URL to call).
var opaqueKeys = map[string]bool{
	"code": true, "expression": true, "expr": true, "eval": true, "program": true, "source_code": true, "snippet": true,
	"sql": true, "statement": true, "run": true, "exec": true, "execute": true, "javascript": true,
	"js": true, "python": true, "lua": true, "ruby": true, "perl": true, "function": true, "lambda": true,
	"url": true, "uri": true, "urls": true, "endpoint": true, "href": true, "link": true, "host": true, "hostname": true,
	"address": true, "webhook": true, "args": true, "argv": true, "arguments": true,
}

// OpaqueArgs lists the arguments of an external tool call that hold code,
// an address or long free text toolgate does not judge (keys in
// opaqueKeys, or any other string that is not a path, content or a
// command and spans lines or more than 200 bytes). A hook asks a person
// rather than allow such a call on the strength of its paths alone.
func OpaqueArgs(args json.RawMessage) []string {
	var v map[string]any
	if err := json.Unmarshal(args, &v); err != nil {
		return nil
	}
	var out []string
	var walk func(key string, v any, depth int)
	walk = func(key string, v any, depth int) {
		if depth > maxArgDepth {
			return
		}
		switch x := v.(type) {
		case string:
			k := strings.ToLower(key)
			if x == "" || commandKeys[k] || contentKeys[k] || pathKeys[k] || looksAbsolute(fileURI(x)) && !strings.Contains(x, "://") {
				return
			}
			if opaqueKeys[k] || strings.ContainsAny(x, "\n\r") || len(x) > 200 {
				out = append(out, key)
			}
		default:
			eachArg(key, x, depth, walk)
		}
	}
	walk("", v, 0)
	return out
}

// looksAbsolute says whether s is a path by its form: absolute or "~",
// with no line breaks.
func looksAbsolute(s string) bool {
	if strings.ContainsAny(s, "\n\r") || len(s) > 4096 {
		return false
	}
	return strings.HasPrefix(s, "/") || s == "~" || strings.HasPrefix(s, "~/")
}

// climbs says whether s is a relative path that goes up ("../x").
func climbs(s string) bool {
	return !strings.ContainsAny(s, "\n\r") && (s == ".." || strings.HasPrefix(s, "../") || strings.Contains(s, "/../"))
}

// fileURI turns a file URI (file:///p, file://localhost/p, file:/p) into its
// path; other strings are returned as they are.
func fileURI(s string) string {
	low := strings.ToLower(s)
	switch {
	case strings.HasPrefix(low, "file://localhost/"):
		return s[len("file://localhost"):]
	case strings.HasPrefix(low, "file:///"):
		return s[len("file://"):]
	case strings.HasPrefix(low, "file:/"):
		return s[len("file:"):]
	}
	return s
}

// shellQuote quotes a word for the shell analyser.
func shellQuote(w string) string {
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// DecideExternal judges a call to a tool of an upstream MCP server. It never
// panics and never allows on error; arguments that are not a JSON object
// are denied.
func (g *Gate) DecideExternal(ctx context.Context, c Call) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = deny(c.ID, c.Tool, CodePanic, fmt.Sprintf("internal error while deciding (%v); the call is denied — report this with the input", r))
			if os.Getenv("TOOLGATE_DEBUG") != "" {
				fmt.Fprintf(os.Stderr, "toolgate: panic: %v\n%s", r, debug.Stack())
			}
		}
	}()
	if c.Tool == "" {
		return deny(c.ID, c.Tool, CodeUnknownTool, "the call names no tool")
	}
	if len(bytes.TrimSpace(c.Args)) == 0 {
		c.Args = json.RawMessage("{}")
	}
	var args map[string]any
	if err := json.Unmarshal(c.Args, &args); err != nil || args == nil {
		return deny(c.ID, c.Tool, CodeInvalidArgs, "arguments are not a JSON object")
	}
	if bytes.IndexByte(c.Args, 0) >= 0 || bytes.Contains(c.Args, []byte(`\u0000`)) {
		return deny(c.ID, c.Tool, CodeDecodeNUL, "arguments hold a NUL byte")
	}
	in := &Input{Version: InputVersion, Tool: c.Tool, Args: c.Args, Workspace: g.ws, Cwd: g.ws, Home: g.home, Sandboxed: !c.Unsandboxed}
	opts := parser.Options{Workspace: g.ws, Home: g.home, Bases: g.bases}
	paths, commands, relative, tooDeep := externalArgs(c.Tool, args)
	if tooDeep {
		return deny(c.ID, c.Tool, CodeTooDeep, fmt.Sprintf("%s's arguments are nested deeper than %d levels, where toolgate stops looking for paths; flatten them", c.Tool, maxArgDepth))
	}
	for _, p := range paths {
		if !norm.NFC.IsNormalString(p.Raw) {
			return deny(c.ID, c.Tool, CodeNotNFC, fmt.Sprintf("%s got the path %q, which is not in Unicode normal form (NFC); servers match such names to other files than toolgate sees, so spell the path exactly as it is on disk", c.Tool, p.Raw))
		}
	}
	if len(relative) > 0 {
		return deny(c.ID, c.Tool, CodeRelativePath, fmt.Sprintf("%s got the relative path %q; toolgate cannot know what the upstream server resolves it against, so pass an absolute path inside the workspace (%s)", c.Tool, relative[0], g.ws))
	}
	in.Facts = g.an.Paths(paths, opts)
	for _, cmd := range commands {
		sf := g.an.Analyze(cmd, opts)
		mergeFacts(in.Facts, sf)
	}
	pr := g.an.Index(in.Facts)
	in.Present = &pr
	res = g.evaluate(ctx, c, in, nil)
	res.Input = in
	if in.ParseError != nil && res.Decision != "deny" {
		res.Decision = "deny"
		res.Reasons = append([]Reason{{Rule: in.ParseError.Code, Message: in.ParseError.Message}}, res.Reasons...)
	}
	return res
}

// mergeFacts adds what a shell command's analysis found to f.
func mergeFacts(f, add *parser.Facts) {
	f.Commands = append(f.Commands, add.Commands...)
	f.Pipelines = append(f.Pipelines, add.Pipelines...)
	f.Redirects = append(f.Redirects, add.Redirects...)
	f.Paths = append(f.Paths, add.Paths...)
	f.Dynamic = append(f.Dynamic, add.Dynamic...)
	f.Functions = append(f.Functions, add.Functions...)
	f.Assigns = append(f.Assigns, add.Assigns...)
	if f.ParseError == nil {
		f.ParseError = add.ParseError
	}
}

// ExternalForbidden says whether the policy denies a tool of an upstream
// server whatever its arguments are: a call with no arguments is denied.
// Such tools are not listed to the client at all.
func (g *Gate) ExternalForbidden(ctx context.Context, tool string) (bool, []Reason) {
	res := g.DecideExternal(ctx, Call{ID: "tools-list", Tool: tool, Args: json.RawMessage("{}"), Format: FormatMCP})
	return res.Decision == "deny", res.Reasons
}

// RuleNoPolicy marks a call toolgate cannot judge and leaves to a person.
const RuleNoPolicy = "toolgate.no_policy"

// AskOnOpaque turns the allow of an upstream tool's call into an ask when
// one of its arguments holds code, an address or free text the policy did
// not judge (OpaqueArgs): the paths judged do not say what the tool will do
// with it, and the tool runs outside toolgate's sandbox.
func AskOnOpaque(call Call, res *Result) {
	if res.Decision != "allow" {
		return
	}
	if keys := OpaqueArgs(call.Args); len(keys) > 0 {
		res.Decision = "ask"
		res.Reasons = append(res.Reasons, Reason{Rule: RuleNoPolicy,
			Message: fmt.Sprintf("%s's argument %q holds code, an address or free text toolgate does not judge; approve it yourself", call.Tool, keys[0])})
	}
}
