package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/internal/homedir"
	"github.com/toolgate/toolgate/internal/hookreply"
)

// EventName is the only hook event this package answers.
const EventName = hookreply.EventName

// Event is a Claude Code PreToolUse hook event, as the hook reads it on
// stdin. Fields Claude Code adds later are ignored.
type Event struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode,omitempty"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
}

// ParseEvent reads one event. Anything but a single JSON object naming a
// PreToolUse event, a tool and an object of tool input is an error.
func ParseEvent(b []byte) (Event, error) {
	var ev Event
	if !utf8.Valid(b) {
		return ev, errors.New("the hook input is not UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&ev); err != nil {
		return ev, fmt.Errorf("the hook input is not a JSON event object: %v", err)
	}
	if dec.More() {
		return ev, errors.New("the hook input holds more than one JSON value")
	}
	if ev.HookEventName != EventName {
		return ev, fmt.Errorf("hook_event_name is %q; toolgate answers %s events only (install it under \"PreToolUse\" in settings.json)", ev.HookEventName, EventName)
	}
	if ev.ToolName == "" {
		return ev, errors.New("the event names no tool (tool_name is empty)")
	}
	if t := bytes.TrimSpace(ev.ToolInput); len(t) == 0 || t[0] != '{' {
		return ev, fmt.Errorf("tool_input of %s is not a JSON object", ev.ToolName)
	}
	return ev, nil
}

// ProjectDirEnv is the variable Claude Code sets for hook commands to the
// project's root directory.
const ProjectDirEnv = "CLAUDE_PROJECT_DIR"

// Workspace resolves the workspace root: dir when given, else
// $CLAUDE_PROJECT_DIR (the project root, which stays put when the agent
// changes directory), else the event's cwd, else the current directory;
// absolute, with symlinks resolved (as the gate resolves it).
func Workspace(dir string, ev Event) (string, error) {
	if dir == "" {
		dir = os.Getenv(ProjectDirEnv)
	}
	if dir == "" {
		// The event's cwd follows the agent's cd: a workspace taken from
		// it would move wherever the agent went, /tmp or the home
		// directory included. Refuse instead.
		return "", fmt.Errorf("no workspace: pass --workspace DIR or run under Claude Code, which sets %s", ProjectDirEnv)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	return real, nil
}

// Answer is the hook's reply to Claude Code.
type Answer struct {
	Decision string // allow, deny or ask
	Reason   string
}

// Deny is a deny answer.
func Deny(reason string) Answer { return Answer{Decision: "deny", Reason: reason} }

// JSON is the answer as Claude Code reads it on the hook's stdout, with a
// final newline. A decision other than allow, deny or ask is written as deny.
func (a Answer) JSON() []byte { return hookreply.JSON(a.Decision, a.Reason) }

// Combine folds the decisions on the calls one Claude Code tool call became
// into one answer: any deny is a deny, else any ask is an ask, else allow.
// The reason joins, as "rule: message", the reasons of the calls that gave
// the final decision, without repeats. No results, or a decision that is
// none of the three, is a deny.
func Combine(rs []gate.Result) Answer {
	if len(rs) == 0 {
		return Deny("toolgate: no decision was made, so the call is denied")
	}
	final := "allow"
	for _, r := range rs {
		switch r.Decision {
		case "allow":
		case "ask":
			if final == "allow" {
				final = "ask"
			}
		default:
			final = "deny"
		}
	}
	var parts []string
	seen := map[string]bool{}
	for _, r := range rs {
		d := r.Decision
		if d != "allow" && d != "ask" {
			d = "deny"
		}
		if d != final {
			continue
		}
		if len(r.Reasons) == 0 && d == "deny" {
			r.Reasons = []gate.Reason{{Rule: "toolgate.invalid_decision", Message: fmt.Sprintf("the decision %q is not allow, deny or ask", r.Decision)}}
		}
		for _, rn := range r.Reasons {
			s := rn.Rule + ": " + rn.Message
			if !seen[s] {
				seen[s] = true
				parts = append(parts, s)
			}
		}
	}
	if len(parts) == 0 {
		if final == "ask" {
			return Answer{Decision: final, Reason: "toolgate: the policy asks for approval"}
		}
		return Answer{Decision: final, Reason: "toolgate: allowed by the policy"}
	}
	return Answer{Decision: final, Reason: strings.Join(parts, "; ")}
}

// Mapped is what one Claude Code tool call becomes: the toolgate calls to
// decide, or, for a tool toolgate has no policy input for, the answer.
type Mapped struct {
	Calls  []gate.Call
	Answer *Answer
	// External: the calls are an MCP tool's, decided in-process with the
	// upstream-tool input (the service's /v1/check knows only toolgate's
	// tools).
	External bool
}

// Line is the calls as one input line for gate.Calls or POST /v1/check: a
// JSON array of native calls {"id","name","arguments"}.
func (m Mapped) Line() ([]byte, error) {
	type native struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	list := make([]native, len(m.Calls))
	for i, c := range m.Calls {
		list[i] = native{c.ID, c.Tool, c.Args}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(list); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// bookkeeping are Claude Code tools that read no file, write none and run
// no command (a subagent's own tool calls come through the hook again).
var bookkeeping = map[string]bool{
	"TodoWrite": true, "Task": true, "Agent": true, "ExitPlanMode": true, "EnterPlanMode": true,
	"BashOutput": true, "KillShell": true, "KillBash": true, "AskUserQuestion": true,
}

// Map turns a Claude Code tool call into toolgate calls for the workspace
// ws (absolute, symlinks resolved). Relative paths in the input are taken
// from the event's cwd. An input that does not have the tool's shape is an
// error.
func Map(ev Event, ws string) (Mapped, error) {
	// the home as the gate reads it (relative: from where toolgate started;
	// unset: the account's)
	m := mapper{ws: ws, cwd: ws, id: ev.ToolUseID, home: homedir.Get()}
	if ev.Cwd != "" {
		// The cwd is where the process is: a real directory, which
		// resolving symlinks (as the kernel did to get there) keeps.
		m.cwd = ev.Cwd
		if !filepath.IsAbs(m.cwd) {
			m.cwd = filepath.Join(ws, m.cwd)
		}
		if real, err := filepath.EvalSymlinks(m.cwd); err == nil {
			m.cwd = real
		} else {
			m.cwd = filepath.Clean(m.cwd)
		}
	}
	if m.id == "" {
		m.id = "claude-code"
	}
	name := ev.ToolName
	in := ev.ToolInput
	var err error
	switch name {
	case "Bash":
		err = m.bash(in)
	case "Read":
		err = m.read(in)
	case "Write":
		err = m.write(in)
	case "Edit":
		err = m.edit(in)
	case "MultiEdit":
		err = m.multiEdit(in)
	case "NotebookEdit":
		err = m.notebookEdit(in)
	case "Glob":
		err = m.glob(in)
	case "Grep":
		err = m.grep(in)
	case "LS":
		err = m.ls(in)
	case "WebFetch", "WebSearch":
		return ask(fmt.Sprintf("toolgate.no_policy: %s reaches the network, and toolgate has no policy input for it; approve it yourself", name)), nil
	default:
		if strings.HasPrefix(name, "mcp__") {
			if c, ok := genericCall(name, in); ok {
				c.ID = m.id
				return Mapped{Calls: []gate.Call{c}, External: true}, nil
			}
			return ask(fmt.Sprintf("toolgate.no_policy: toolgate has no policy input for MCP tool %s; approve it yourself", name)), nil
		}
		if bookkeeping[name] {
			return Mapped{Answer: &Answer{Decision: "allow", Reason: fmt.Sprintf("toolgate: %s reads no file, writes none and runs no command", name)}}, nil
		}
		return ask(fmt.Sprintf("toolgate.no_policy: toolgate has no policy input for Claude Code tool %s; approve it yourself", name)), nil
	}
	if err != nil {
		return Mapped{}, fmt.Errorf("%s input: %w", name, err)
	}
	return Mapped{Calls: m.calls}, nil
}

func ask(reason string) Mapped {
	return Mapped{Answer: &Answer{Decision: "ask", Reason: reason}}
}

// genericCall maps an MCP tool (mcp__<server>__<tool>) onto the input
// toolgate builds for upstream MCP tools (gate.DecideExternal): input.tool
// is the full name, the path set comes from its path-like arguments, with
// the access guessed from the name. Arguments that are not a JSON object
// are left to the gate, which denies them.
func genericCall(name string, args json.RawMessage) (gate.Call, bool) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	return gate.Call{Tool: name, Args: args, Format: gate.FormatMCP}, true
}

// IsExternal says whether a call names a tool of another MCP server, decided
// with gate.DecideExternal.
func IsExternal(tool string) bool { return strings.HasPrefix(tool, "mcp__") }

// mapper builds the calls of one event.
type mapper struct {
	ws, cwd, home string
	id            string
	calls         []gate.Call
}

// add appends a call; its arguments are encoded in the key order given.
func (m *mapper) add(tool string, kv ...any) error {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[i])
		var v bytes.Buffer
		enc := json.NewEncoder(&v)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(kv[i+1]); err != nil {
			return err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(bytes.TrimRight(v.Bytes(), "\n"))
	}
	b.WriteByte('}')
	m.calls = append(m.calls, gate.Call{Tool: tool, Args: b.Bytes(), Format: gate.FormatNative})
	for i := range m.calls {
		m.calls[i].ID = m.id
		if len(m.calls) > 1 {
			m.calls[i].ID = fmt.Sprintf("%s.%d", m.id, i+1)
		}
	}
	return nil
}

// paths are the readings of a path from the tool input that the call is
// judged under; each must pass. A relative path is taken from the cwd. A
// path with "." or ".." components is judged both as the kernel resolves it
// (through symlinks; the gate does that) and folded as text (as a program
// that normalizes paths first would open it), and a leading "~" both as
// the home directory and as a literal name. Nothing is cleaned otherwise:
// folding "link/.." by text alone could hide where the kernel would go.
func (m *mapper) paths(p string) []string {
	if p == "" {
		return []string{""}
	}
	out := m.readings(p)
	// Claude Code trims some tools' paths as JavaScript's trim() does
	// (" ~/.ssh/x" is ~/.ssh/x for Write, Edit, Grep, Glob, LS), others
	// take them as they are: both readings are judged.
	if t := jsTrim(p); t != p && t != "" {
		for _, v := range m.readings(t) {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// jsTrim trims what JavaScript's String.prototype.trim does (white space,
// line terminators, U+FEFF), and Unicode's other spaces besides.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' || unicode.Is(unicode.Zs, r) })
}

// readings are the absolute paths p may stand for: from the home for ~,
// from the cwd when relative; as written and cleaned.
func (m *mapper) readings(p string) []string {
	var raw []string
	if p == "~" || strings.HasPrefix(p, "~/") {
		if m.home != "" {
			raw = append(raw, m.home+strings.TrimPrefix(p, "~"))
		}
	}
	if filepath.IsAbs(p) {
		raw = append(raw, p)
	} else {
		raw = append(raw, strings.TrimSuffix(m.cwd, "/")+"/"+p)
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range raw {
		for _, v := range []string{r, filepath.Clean(r)} {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// rel is p (absolute) relative to the workspace when it lies beneath it by
// its text ("." for the root), and p itself otherwise.
func (m *mapper) rel(p string) string {
	if p == m.ws {
		return "."
	}
	if r, ok := strings.CutPrefix(p, strings.TrimSuffix(m.ws, "/")+"/"); ok && r != "" {
		return r
	}
	return p
}

func decode(in json.RawMessage, v any) error {
	// encoding/json matches keys without regard to case and keeps the last
	// of duplicates, so {"file_path": secret, "File_Path": "a.txt"} would be
	// judged as a.txt while the tool reads the secret. Keys must be unique
	// and spelled exactly as the struct's tags.
	if err := exactKeys(in, v); err != nil {
		return err
	}
	return json.Unmarshal(in, v)
}

func (m *mapper) bash(in json.RawMessage) error {
	var a struct {
		Command string `json:"command"`
	}
	if err := decode(in, &a); err != nil {
		return err
	}
	if wd := m.rel(m.cwd); wd != "." {
		return m.add("exec", "command", a.Command, "working_dir", wd)
	}
	return m.add("exec", "command", a.Command)
}

// line reads a Read offset or limit: a positive whole number, or nothing.
func line(n *float64) (int64, bool) {
	if n == nil || *n < 1 || *n != math.Trunc(*n) || *n > 1e12 {
		return 0, false
	}
	return int64(*n), true
}

func (m *mapper) read(in json.RawMessage) error {
	var a struct {
		FilePath string   `json:"file_path"`
		Offset   *float64 `json:"offset"`
		Limit    *float64 `json:"limit"`
	}
	if err := decode(in, &a); err != nil {
		return err
	}
	for _, p := range m.paths(a.FilePath) {
		kv := []any{"path", m.rel(p)}
		if n, ok := line(a.Offset); ok {
			kv = append(kv, "offset", n)
		}
		if n, ok := line(a.Limit); ok {
			kv = append(kv, "limit", n)
		}
		if err := m.add("read_file", kv...); err != nil {
			return err
		}
	}
	return nil
}

func (m *mapper) write(in json.RawMessage) error {
	var a struct {
		FilePath string `json:"file_path"`
		Content  string `json:"content"`
	}
	if err := decode(in, &a); err != nil {
		return err
	}
	return m.writeFile(a.FilePath, a.Content)
}

func (m *mapper) writeFile(path, content string) error {
	for _, p := range m.paths(path) {
		if err := m.add("write_file", "path", m.rel(p), "content", content); err != nil {
			return err
		}
	}
	return nil
}

// editCall is one replacement; an empty old_string creates the file with
// new_string, which is a write.
func (m *mapper) editCall(path, oldText, newText string) error {
	if oldText == "" {
		return m.writeFile(path, newText)
	}
	for _, p := range m.paths(path) {
		if err := m.add("edit_file", "path", m.rel(p), "old_text", oldText, "new_text", newText); err != nil {
			return err
		}
	}
	return nil
}

func (m *mapper) edit(in json.RawMessage) error {
	var a struct {
		FilePath  string `json:"file_path"`
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	}
	if err := decode(in, &a); err != nil {
		return err
	}
	return m.editCall(a.FilePath, a.OldString, a.NewString)
}

func (m *mapper) multiEdit(in json.RawMessage) error {
	var a struct {
		FilePath string `json:"file_path"`
		Edits    []struct {
			OldString string `json:"old_string"`
			NewString string `json:"new_string"`
		} `json:"edits"`
	}
	if err := decode(in, &a); err != nil {
		return err
	}
	if len(a.Edits) == 0 {
		return errors.New("no edits")
	}
	for _, e := range a.Edits {
		if err := m.editCall(a.FilePath, e.OldString, e.NewString); err != nil {
			return err
		}
	}
	return nil
}

func (m *mapper) notebookEdit(in json.RawMessage) error {
	var a struct {
		NotebookPath string `json:"notebook_path"`
		NewSource    string `json:"new_source"`
	}
	if err := decode(in, &a); err != nil {
		return err
	}
	return m.writeFile(a.NotebookPath, a.NewSource)
}

// bases are the readings of the directory a Glob, Grep or LS works in: its
// path, else the cwd.
func (m *mapper) bases(p string) []string {
	if p == "" {
		return []string{m.cwd}
	}
	return m.paths(p)
}

func (m *mapper) glob(in json.RawMessage) error {
	var a struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
	}
	if err := decode(in, &a); err != nil {
		return err
	}
	var pats []string
	switch {
	case a.Pattern == "":
		pats = []string{""} // the schema refuses it
	case filepath.IsAbs(a.Pattern):
		pats = []string{m.rel(a.Pattern)}
	default:
		// Joined as text: Clean would fold "**/.." and change the pattern.
		for _, b := range m.bases(a.Path) {
			if r := m.rel(b); r != "." {
				pats = append(pats, strings.TrimSuffix(r, "/")+"/"+a.Pattern)
			} else {
				pats = append(pats, a.Pattern)
			}
		}
	}
	for _, p := range pats {
		if err := m.add("glob", "pattern", p); err != nil {
			return err
		}
	}
	return nil
}

func (m *mapper) grep(in json.RawMessage) error {
	var a struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
		Glob    string `json:"glob"`
	}
	if err := decode(in, &a); err != nil {
		return err
	}
	for _, b := range m.bases(a.Path) {
		kv := []any{"pattern", a.Pattern}
		if r := m.rel(b); r != "." {
			kv = append(kv, "path", r)
		}
		if a.Glob != "" {
			kv = append(kv, "glob", a.Glob)
		}
		if err := m.add("search", kv...); err != nil {
			return err
		}
	}
	return nil
}

func (m *mapper) ls(in json.RawMessage) error {
	var a struct {
		Path string `json:"path"`
	}
	if err := decode(in, &a); err != nil {
		return err
	}
	for _, b := range m.bases(a.Path) {
		if err := m.add("list_dir", "path", m.rel(b)); err != nil {
			return err
		}
	}
	return nil
}

// exactKeys checks that the object in has no two keys that are equal
// without regard to case, and that every key matching one of v's json tags
// without regard to case matches it exactly.
func exactKeys(in json.RawMessage, v any) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(in, &obj); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(in))
	if _, err := dec.Token(); err != nil {
		return err
	}
	seen := map[string]string{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		low := strings.ToLower(k)
		if prev, ok := seen[low]; ok {
			return fmt.Errorf("the keys %q and %q name the same field", prev, k)
		}
		seen[low] = k
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	tags := map[string]string{}
	rt := reflect.TypeOf(v)
	for rt != nil && rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	if rt != nil && rt.Kind() == reflect.Struct {
		for i := 0; i < rt.NumField(); i++ {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" {
				tags[strings.ToLower(name)] = name
			}
		}
	}
	for low, k := range seen {
		if tag, ok := tags[low]; ok && tag != k {
			return fmt.Errorf("the key %q must be spelled %q", k, tag)
		}
	}
	return nil
}
