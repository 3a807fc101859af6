package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Export renders ts in one of the formats "openai", "anthropic", "mcp" and
// "markdown". JSON formats are indented with two spaces and end with a
// newline; "markdown" is [Markdown] with [DefaultBoundaries]. A tool without a
// name or whose schema is not a JSON object is an error.
func Export(format string, ts []Tool) ([]byte, error) {
	switch format {
	case "openai", "anthropic", "mcp", "markdown":
	default:
		return nil, fmt.Errorf("unknown format %q (want openai, anthropic, mcp or markdown)", format)
	}
	for i, t := range ts {
		if t.Name == "" {
			return nil, fmt.Errorf("tool %d has no name", i)
		}
		if !isObject(t.Schema) {
			return nil, fmt.Errorf("tool %q: schema is not a JSON object", t.Name)
		}
	}
	var v any
	switch format {
	case "openai":
		v = openAITools(ts)
	case "anthropic":
		v = anthropicTools(ts)
	case "mcp":
		v = mcpTools(ts)
	case "markdown":
		return []byte(Markdown(ts, DefaultBoundaries)), nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding %s tools: %w", format, err)
	}
	return b.Bytes(), nil
}

// isObject reports whether raw is one well-formed JSON object.
func isObject(raw json.RawMessage) bool {
	if !json.Valid(raw) {
		return false
	}
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// openAITool is one entry of the "tools" array of the OpenAI Chat
// Completions API.
type openAITool struct {
	Type     string         `json:"type"` // always "function"
	Function openAIFunction `json:"function"`
}

type openAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

func openAITools(ts []Tool) []openAITool {
	out := make([]openAITool, 0, len(ts))
	for _, t := range ts {
		out = append(out, openAITool{
			Type:     "function",
			Function: openAIFunction{Name: t.Name, Description: t.Description, Parameters: t.Schema},
		})
	}
	return out
}

// anthropicTool is one entry of the "tools" array of the Anthropic Messages
// API.
type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

func anthropicTools(ts []Tool) []anthropicTool {
	out := make([]anthropicTool, 0, len(ts))
	for _, t := range ts {
		out = append(out, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: t.Schema})
	}
	return out
}

// mcpList is the result of an MCP tools/list request.
type mcpList struct {
	Tools []mcpTool `json:"tools"`
}

type mcpTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations mcpAnnotations  `json:"annotations"`
}

// mcpAnnotations are the behaviour hints of the MCP specification. They are
// hints for clients, never a security boundary: the policy decides.
type mcpAnnotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`    // the tool does not change its environment
	DestructiveHint bool `json:"destructiveHint"` // it may overwrite or delete, not only add
	IdempotentHint  bool `json:"idempotentHint"`  // a repeated call with the same arguments changes nothing more
	OpenWorldHint   bool `json:"openWorldHint"`   // it may reach things outside the workspace, such as the network
}

// builtinHints holds the hints the flags cannot tell for the built-in tools.
// exec may reach the network when the policy grants it; write_file writes the
// same bytes again; a second edit_file may match new_text and edit again.
var builtinHints = map[string]mcpAnnotations{
	"exec":       {DestructiveHint: true, IdempotentHint: false, OpenWorldHint: true},
	"read_file":  {IdempotentHint: true},
	"write_file": {DestructiveHint: true, IdempotentHint: true},
	"edit_file":  {DestructiveHint: true, IdempotentHint: false},
	"list_dir":   {IdempotentHint: true},
	"search":     {IdempotentHint: true},
	"glob":       {IdempotentHint: true},
}

// annotations derives the MCP hints of t. A tool toolgate does not know gets
// the specification's cautious defaults (destructive, not idempotent, open
// world), softened only by its own ReadOnly flag.
func annotations(t Tool) mcpAnnotations {
	a, ok := builtinHints[t.Name]
	if !ok {
		a = mcpAnnotations{DestructiveHint: true, OpenWorldHint: true}
	}
	a.ReadOnlyHint = t.ReadOnly
	if t.ReadOnly {
		a.DestructiveHint = false
		a.IdempotentHint = true
	}
	return a
}

func mcpTools(ts []Tool) mcpList {
	out := mcpList{Tools: make([]mcpTool, 0, len(ts))}
	for _, t := range ts {
		out.Tools = append(out.Tools, mcpTool{
			Name:        t.Name,
			Description: t.Description,
			InputSchema: t.Schema,
			Annotations: annotations(t),
		})
	}
	return out
}

// DefaultBoundaries describes the default policy (policies/) in plain words,
// for the "Boundaries" section of the manual. A caller running another policy
// passes its own sentences to [Markdown].
var DefaultBoundaries = []string{
	"Writes, deletes and changes of directory stay inside the workspace; the sandbox's private /tmp is scratch space you may use freely.",
	"Reads outside the workspace are limited to system directories (/usr, /bin, /lib, /etc, /opt and parts of /proc); / itself, the home directory and other processes' files are off limits.",
	"Secrets are never readable: SSH, AWS, GPG, Kubernetes, Docker and GitHub CLI credentials, .netrc, .git-credentials, /etc/shadow, sudoers, /root, process environments and private keys outside the workspace.",
	"No privilege: sudo, su, doas, pkexec, setuid or setgid bits, setcap, mount, nsenter, unshare, chroot, kernel modules, sysctl -w and firewall changes are refused.",
	"No destruction: recursive or forced removal of /, ~, the workspace root or anything outside the workspace; formatting or partitioning disks; writing to devices; shutdown and reboot; fork bombs; kill -9 -1.",
	"Nothing downloaded runs as code: curl, wget or another downloader piped or substituted into a shell or interpreter (curl … | sh, bash <(curl …)) is refused.",
	"No exfiltration: /dev/tcp and /dev/udp, nc, ncat or socat that execute programs or listen, and uploading files (curl -T, -d @file, --data-binary @file) are refused.",
	"Commands must be readable before they run: a command name built from variables or $(…), eval or sh -c of a script that is not literal, and decoded data piped into a shell (base64 -d | sh) are refused.",
	"No persistence: crontab, at, systemctl enable, writes to shell startup files, .git/hooks or .git/config, git config --global, core.hooksPath and core.fsmonitor settings, LD_PRELOAD and LD_LIBRARY_PATH, and clearing history are refused.",
	"A person must approve, and may refuse: git push, pull, fetch and clone; network clients reaching remote hosts (curl, wget, ssh, scp, rsync, nc); package installs (pip, npm, go install, cargo install, apt-get); deleting the workspace's .git; git clean -x.",
	"Ordinary development inside the workspace needs no approval: reading, editing, building, testing, git status, diff, log and commit, removing build output, and pipes of text tools.",
	"Commands run in a sandbox: no network unless the policy grants it, a private /tmp, the home directory hidden, the workspace the only writable place, and limits on processes, memory, file size and CPU time.",
}

// toolLimits says, for the built-in tools, the limits the manual lists in
// plain words after the parameters.
var toolLimits = map[string][]string{
	"exec": {
		"Killed after " + seconds(ExecTimeout) + " seconds, with everything it started.",
		"Output is cut to " + thousands(ExecMaxOutput) + " characters, keeping the beginning and the end.",
		"Runs in a sandbox where the workspace is the only writable place; there is no terminal and no input.",
	},
	"read_file": {
		"Files larger than " + strconv.Itoa(ReadMaxBytes/1024) + " KB are refused; read parts of them with exec and head, tail or grep.",
		"Output is cut at " + thousands(ReadMaxChars) + " characters.",
	},
	"write_file": {
		"Writes only inside the workspace and replaces the whole file.",
	},
	"edit_file": {
		"Edits only inside the workspace; old_text must appear exactly once.",
	},
	"list_dir": {
		"Lists one directory, not its subdirectories.",
	},
	"search": {
		"Returns at most max_results matching lines: " + strconv.Itoa(SearchMaxResults) + " by default, never more than " + strconv.Itoa(SearchMaxResultsCap) + ".",
		"Searches only inside the workspace.",
	},
	"glob": {
		"Matches only paths inside the workspace.",
	},
}

// Markdown writes a TOOLS.md manual for the model's context: for each tool its
// description, a table of parameters read from its schema and its limits in
// plain words, then a "Boundaries" section listing boundaries, sentences that
// say what the active policy enforces.
func Markdown(ts []Tool, boundaries []string) string {
	var b strings.Builder
	b.WriteString("# Tools\n\n")
	b.WriteString("You act through the tools below. Paths are relative to the workspace root. ")
	b.WriteString("Every call is checked against a security policy before it runs and is written to an audit log.\n")
	for _, t := range ts {
		writeTool(&b, t)
	}
	b.WriteString("\n## Boundaries\n\n")
	b.WriteString("A refused call returns an error that gives the reasons; change the approach instead of repeating the call.")
	if len(boundaries) == 0 {
		b.WriteString(" No boundaries were listed for the active policy, but calls can still be refused.\n")
		return b.String()
	}
	b.WriteString(" The active policy enforces the following.\n\n")
	for _, s := range boundaries {
		b.WriteString("- ")
		b.WriteString(oneLine(s))
		b.WriteByte('\n')
	}
	return b.String()
}

func writeTool(b *strings.Builder, t Tool) {
	fmt.Fprintf(b, "\n## %s\n\n", t.Name)
	if t.Description != "" {
		b.WriteString(t.Description)
		b.WriteString("\n\n")
	}
	params, err := schemaParams(t.Schema)
	switch {
	case err != nil:
		b.WriteString("Parameters: the schema could not be read.\n")
	case len(params) == 0:
		b.WriteString("No parameters.\n")
	default:
		b.WriteString("| Parameter | Type | Required | Description |\n")
		b.WriteString("|---|---|---|---|\n")
		for _, p := range params {
			required := "no"
			if p.required {
				required = "yes"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", code(p.name), cell(p.typeText()), required, cell(p.Description))
		}
	}
	b.WriteString("\nLimits:\n\n")
	for _, s := range toolLimits[t.Name] {
		fmt.Fprintf(b, "- %s\n", s)
	}
	fmt.Fprintf(b, "- %s\n", scheduling(t))
}

// scheduling says in plain words how the flags let the tool run in a batch.
func scheduling(t Tool) string {
	var s string
	switch {
	case t.Exclusive:
		s = "Runs alone: no other call runs at the same time."
	case t.ConcurrencySafe:
		s = "May run in parallel with other calls of this kind."
	default:
		s = "Runs one call at a time, in order."
	}
	if t.ReadOnly {
		s += " Changes no files."
	}
	return s
}

// schemaParam is what the manual shows of one property of an object schema.
type schemaParam struct {
	name      string
	required  bool
	Type      any      `json:"type"`
	Enum      []any    `json:"enum"`
	MinLength *int     `json:"minLength"`
	Minimum   *float64 `json:"minimum"`
	Maximum   *float64 `json:"maximum"`
	// Description is the text written for the model.
	Description string `json:"description"`
}

// schemaParams reads the properties of an object schema in the order they
// are written, which a map would lose.
func schemaParams(raw json.RawMessage) ([]schemaParam, error) {
	var top struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	if len(top.Properties) == 0 {
		return nil, nil
	}
	required := map[string]bool{}
	for _, name := range top.Required {
		required[name] = true
	}
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("properties is not an object")
	}
	var out []schemaParam
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var p schemaParam
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("property %q: %w", name, err)
		}
		p.name = name
		p.required = required[name]
		out = append(out, p)
	}
	return out, nil
}

// typeText writes the type of a property and its bounds in plain words:
// "string, non-empty", "integer, 1 to 1000", "string or null".
func (p schemaParam) typeText() string {
	var s string
	switch v := p.Type.(type) {
	case string:
		s = v
	case []any:
		var names []string
		for _, n := range v {
			if n, ok := n.(string); ok {
				names = append(names, n)
			}
		}
		s = strings.Join(names, " or ")
	}
	if s == "" {
		s = "any"
	}
	if len(p.Enum) > 0 {
		var vals []string
		for _, e := range p.Enum {
			vals = append(vals, string(mustJSON(e)))
		}
		s += ", one of " + strings.Join(vals, ", ")
	}
	if p.MinLength != nil && *p.MinLength > 0 {
		if *p.MinLength == 1 {
			s += ", non-empty"
		} else {
			s += ", at least " + strconv.Itoa(*p.MinLength) + " characters"
		}
	}
	switch {
	case p.Minimum != nil && p.Maximum != nil:
		s += ", " + number(*p.Minimum) + " to " + number(*p.Maximum)
	case p.Minimum != nil:
		s += ", at least " + number(*p.Minimum)
	case p.Maximum != nil:
		s += ", at most " + number(*p.Maximum)
	}
	return s
}

func number(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}

// code writes s as a code span, or as an escaped cell when a backquote
// inside would end the span early.
func code(s string) string {
	if strings.Contains(s, "`") {
		return cell(s)
	}
	return "`" + cell(s) + "`"
}

// oneLine joins the lines of s with spaces, so a sentence cannot break a
// list item or a table row.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
