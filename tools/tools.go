package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Limits shared with the future implementations and the docs. The tool
// descriptions quote them, so changing one changes what the model is told.
const (
	// ReadMaxBytes is the largest file read_file reads; a larger file is
	// refused with a hint to use exec with head, tail or grep.
	ReadMaxBytes = 512 * 1024
	// ReadMaxChars is where read_file cuts its output, in characters.
	ReadMaxChars = 128000
	// ExecTimeout is how long exec lets a command run before it kills the
	// whole sandbox.
	ExecTimeout = 60 * time.Second
	// ExecMaxOutput is where exec cuts its output, in characters; the cut
	// keeps the head and the tail and drops the middle.
	ExecMaxOutput = 10000
	// SearchMaxResults is the number of matches search returns when the call
	// gives no max_results.
	SearchMaxResults = 200
	// SearchMaxResultsCap is the largest max_results the search schema
	// accepts.
	SearchMaxResultsCap = 1000
	// MaxLineNumber bounds read_file's offset and limit: a larger number
	// (thousands of digits pass JSON) would only fail later, when run.
	MaxLineNumber = 1 << 31
)

// Tool is the definition of one tool: what the model sees and what a
// scheduler needs to know. It holds no behaviour.
type Tool struct {
	Name        string
	Description string // written for a model: what the tool does, its output and its limits
	// Schema is the JSON Schema (draft 2020-12) of the arguments: an object
	// with "required", "additionalProperties": false and a description on
	// every property.
	Schema json.RawMessage
	// ReadOnly tools never change the workspace.
	ReadOnly bool
	// Exclusive tools run alone: no other call of a batch runs beside them.
	Exclusive bool
	// ConcurrencySafe tools may run in parallel with other concurrency-safe
	// calls of the same batch.
	ConcurrencySafe bool
}

// All returns the built-in tools in a stable order: exec, read_file,
// write_file, edit_file, list_dir, search, glob. The slice and the schemas are
// fresh copies.
func All() []Tool {
	out := make([]Tool, len(builtins))
	for i, t := range builtins {
		out[i] = t.clone()
	}
	return out
}

// Lookup returns a copy of the built-in tool called name, and false when no
// tool has that name. Names are matched exactly.
func Lookup(name string) (Tool, bool) {
	for _, t := range builtins {
		if t.Name == name {
			return t.clone(), true
		}
	}
	return Tool{}, false
}

func (t Tool) clone() Tool {
	t.Schema = bytes.Clone(t.Schema)
	return t
}

// builtins is built once at start-up; All and Lookup hand out copies.
var builtins = []Tool{
	{
		Name: "exec",
		Description: "Run a shell command (bash syntax) in a sandbox and return its output. " +
			"The command starts in the workspace root unless working_dir says otherwise. " +
			"The reply is standard output, then a STDERR: block if anything was written there, " +
			"then \"Exit code: N\" when the exit code is not zero. " +
			"The command is killed after " + seconds(ExecTimeout) + " seconds " +
			"(\"Error: Command timed out after N seconds\"); " +
			"output longer than " + thousands(ExecMaxOutput) + " characters is cut, keeping the beginning and the end. " +
			"Every command is checked against the security policy before it runs; a refused command returns " +
			"\"Error: Command blocked by safety guard (…)\" with the reasons, so change the approach rather than retrying it. " +
			"Prefer read_file, list_dir, search and glob for looking at files; use exec for building, testing, git and other programs.",
		Schema: object(
			param{name: "command", required: true, schema: map[string]any{
				"type":      "string",
				"minLength": 1,
				"description": "The command line to run, in bash syntax. Pipes, redirections and && work; " +
					"interactive programs do not, since there is no terminal and no input.",
			}},
			param{name: "working_dir", schema: map[string]any{
				"type": []string{"string", "null"},
				"description": "Directory to run the command in, relative to the workspace root. " +
					"Omit it or pass null to run in the workspace root.",
			}},
		),
		Exclusive: true,
	},
	{
		Name: "read_file",
		Description: "Read a text file in the workspace and return its content. " +
			"Files larger than " + strconv.Itoa(ReadMaxBytes/1024) + " KB are refused: " +
			"use exec with head, tail or grep to read parts of them. " +
			"Output longer than " + thousands(ReadMaxChars) + " characters is cut. " +
			"With offset or limit, only those lines are returned, each prefixed with its line number " +
			"(counting from 1) and a tab. Errors say whether the file was not found, is not a regular file, " +
			"is too large or could not be read.",
		Schema: object(
			param{name: "path", required: true, schema: map[string]any{
				"type":        "string",
				"minLength":   1,
				"description": "Path of the file, relative to the workspace root.",
			}},
			param{name: "offset", schema: map[string]any{
				"type":        "integer",
				"minimum":     1,
				"maximum":     MaxLineNumber,
				"description": "First line to return, counting from 1. Omit it to start at the first line.",
			}},
			param{name: "limit", schema: map[string]any{
				"type":        "integer",
				"minimum":     1,
				"maximum":     MaxLineNumber,
				"description": "Largest number of lines to return. Omit it to read to the end of the file.",
			}},
		),
		ReadOnly:        true,
		ConcurrencySafe: true,
	},
	{
		Name: "write_file",
		Description: "Create a file in the workspace, or replace it, with the given content. " +
			"Missing parent directories are created and the file is written atomically, " +
			"so a reader never sees half of it. The reply is \"Successfully wrote N bytes to /abs/path\". " +
			"To change part of an existing file, use edit_file instead of rewriting it.",
		Schema: object(
			param{name: "path", required: true, schema: map[string]any{
				"type":        "string",
				"minLength":   1,
				"description": "Path of the file to write, relative to the workspace root.",
			}},
			param{name: "content", required: true, schema: map[string]any{
				"type":        "string",
				"description": "The complete new content of the file. An empty string leaves an empty file.",
			}},
		),
	},
	{
		Name: "edit_file",
		Description: "Replace one exact occurrence of old_text with new_text in a file in the workspace. " +
			"old_text must match the file exactly, including whitespace and indentation, and must appear exactly once. " +
			"If it is not found, the reply shows the closest match, its similarity in percent and its line, as a unified diff. " +
			"If it appears several times, the reply says \"Warning: old_text appears N times. " +
			"Please provide more context to make it unique.\" and nothing is changed. " +
			"Read the file first so old_text is copied from its current content.",
		Schema: object(
			param{name: "path", required: true, schema: map[string]any{
				"type":        "string",
				"minLength":   1,
				"description": "Path of the file to edit, relative to the workspace root.",
			}},
			param{name: "old_text", required: true, schema: map[string]any{
				"type":      "string",
				"minLength": 1,
				"description": "The exact text to replace, copied from the file with its whitespace. " +
					"Include enough surrounding lines to make it unique.",
			}},
			param{name: "new_text", required: true, schema: map[string]any{
				"type":        "string",
				"description": "The text to put in its place. An empty string deletes old_text.",
			}},
		),
	},
	{
		Name: "list_dir",
		Description: "List the entries of a directory in the workspace, folders first. " +
			"Each line is \"📁 name\" for a folder or \"📄 name\" for anything else. " +
			"At most 1,000 entries are listed.",
		Schema: object(
			param{name: "path", required: true, schema: map[string]any{
				"type":        "string",
				"description": "Directory to list, relative to the workspace root. Use \".\" for the workspace root.",
			}},
		),
		ReadOnly:        true,
		ConcurrencySafe: true,
	},
	{
		Name: "search",
		Description: "Search the content of files in the workspace with a regular expression and return " +
			"each matching line as \"file:line: text\". The expression uses Go (RE2) syntax: " +
			"no backreferences and no lookaround. Narrow the search with path and glob. " +
			"Binary files, files over 4 MB and .git directories are skipped; symlinks are not followed. " +
			"At most max_results matches are returned (default " + strconv.Itoa(SearchMaxResults) +
			", at most " + strconv.Itoa(SearchMaxResultsCap) + ").",
		Schema: object(
			param{name: "pattern", required: true, schema: map[string]any{
				"type":        "string",
				"minLength":   1,
				"description": "Regular expression to look for in each line, in Go (RE2) syntax.",
			}},
			param{name: "path", schema: map[string]any{
				"type":        "string",
				"description": "Directory or file to search, relative to the workspace root. Omit it to search the whole workspace.",
			}},
			param{name: "glob", schema: map[string]any{
				"type":        "string",
				"description": "Only search files whose names match this glob pattern, such as `*.go`; a pattern with a `/` is matched against the path from the workspace root, such as `src/**/*.go`. Omit it to search every file.",
			}},
			param{name: "max_results", schema: map[string]any{
				"type":    "integer",
				"minimum": 1,
				"maximum": SearchMaxResultsCap,
				"default": SearchMaxResults,
				"description": "Largest number of matching lines to return, from 1 to " +
					strconv.Itoa(SearchMaxResultsCap) + ". Defaults to " + strconv.Itoa(SearchMaxResults) + ".",
			}},
		),
		ReadOnly:        true,
		ConcurrencySafe: true,
	},
	{
		Name: "glob",
		Description: "Find paths in the workspace that match a glob pattern and return them relative to " +
			"the workspace root, one a line. `*` matches within one path element and `**` matches " +
			"any number of directories, as in `src/**/*_test.go`; `**` does not enter symlinked directories. " +
			"At most 1,000 paths are returned.",
		Schema: object(
			param{name: "pattern", required: true, schema: map[string]any{
				"type":        "string",
				"minLength":   1,
				"description": "Glob pattern relative to the workspace root, such as `**/*.md`.",
			}},
		),
		ReadOnly:        true,
		ConcurrencySafe: true,
	},
}

// param is one property of an object schema, in the order it is declared.
type param struct {
	name     string
	required bool
	schema   map[string]any
}

// object writes an object schema whose properties keep their declared order,
// so exports and the manual list arguments as a person would read them. It
// panics on a value that cannot be encoded: the definitions above are fixed,
// and the tests build them.
func object(params ...param) json.RawMessage {
	b := []byte(`{"type":"object","properties":{`)
	required := []string{}
	for i, p := range params {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, p.name)
		b = append(b, ':')
		b = appendJSON(b, p.schema)
		if p.required {
			required = append(required, p.name)
		}
	}
	b = append(b, `},"required":`...)
	b = appendJSON(b, required)
	b = append(b, `,"additionalProperties":false}`...)
	return json.RawMessage(b)
}

// mustJSON encodes v without escaping <, > and &, which would make the
// schemas harder to read and gains nothing outside HTML.
func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("tools: cannot encode schema part: %v", err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// seconds writes a duration as a whole number of seconds.
func seconds(d time.Duration) string {
	return strconv.FormatInt(int64(d/time.Second), 10)
}

// thousands writes n with a comma between groups of three digits, as the
// descriptions quote limits (10,000 characters).
func thousands(n int) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := strconv.Itoa(n)
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}
