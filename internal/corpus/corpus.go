package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Case is one entry of the corpus: one intent, written one or more ways, and
// the verdict every way must get.
type Case struct {
	File       string         `json:"-"` // base name of the file the case came from
	Note       string         `json:"note"`
	Category   string         `json:"category"`
	Tool       string         `json:"tool"` // "exec" when the file leaves it out; "" for raw cases
	Commands   []string       `json:"commands"`
	WorkingDir string         `json:"working_dir"`
	Args       map[string]any `json:"args"`
	Raw        []string       `json:"raw"`
	Want       string         `json:"want"`
}

// Categories are the kinds of case the corpus holds, one file each.
var Categories = []string{
	"destruction", "privilege", "workspace", "secrets", "remote",
	"unanalysable", "persistence", "ask", "malformed", "benign",
}

// Tools are the tool names a case may call.
var Tools = []string{"exec", "read_file", "write_file", "edit_file", "list_dir", "search", "glob"}

// Verdicts are the decisions a case may want.
var Verdicts = []string{"allow", "deny", "ask"}

// Placeholders substituted by Lines.
const (
	PlaceholderWS   = "{{WS}}"
	PlaceholderHome = "{{HOME}}"
)

// Load reads every *.json file in dir, strictly, and returns their cases in
// file-name order. Any problem in any file is an error naming the file and,
// where there is one, the case.
func Load(dir string) ([]Case, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("corpus: %v", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("corpus: no *.json files in %s", dir)
	}
	sort.Strings(names)
	var all []Case
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("corpus: %v", err)
		}
		cases, err := parseFile(filepath.Base(name), data)
		if err != nil {
			return nil, err
		}
		all = append(all, cases...)
	}
	return all, nil
}

// parseFile decodes and validates one corpus file.
func parseFile(file string, data []byte) ([]Case, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("corpus: %s: %s", file, fmt.Sprintf(format, a...))
	}
	if err := checkDuplicateKeys(data); err != nil {
		return nil, fail("%v", err)
	}
	var top struct {
		Cases []json.RawMessage `json:"cases"`
	}
	if err := decodeStrict(data, &top); err != nil {
		return nil, fail("%v", err)
	}
	if top.Cases == nil {
		return nil, fail(`missing "cases"`)
	}
	seen := make(map[string]int)
	cases := make([]Case, 0, len(top.Cases))
	for i, raw := range top.Cases {
		var c Case
		if err := decodeStrict(raw, &c); err != nil {
			return nil, fail("case %d: %v", i+1, err)
		}
		c.File = file
		if err := c.validate(); err != nil {
			if c.Note != "" {
				return nil, fail("case %d (%q): %v", i+1, c.Note, err)
			}
			return nil, fail("case %d: %v", i+1, err)
		}
		if j, ok := seen[c.Note]; ok {
			return nil, fail("case %d (%q): note already used by case %d", i+1, c.Note, j)
		}
		seen[c.Note] = i + 1
		cases = append(cases, c)
	}
	return cases, nil
}

// decodeStrict decodes exactly one JSON value into v, refusing unknown
// fields and trailing data, and keeping numbers as json.Number.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the top-level value")
	}
	return nil
}

// checkDuplicateKeys reports the first object key that appears twice in the
// same object: encoding/json would silently keep the last one.
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		delim, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		switch delim {
		case '{':
			keys := make(map[string]bool)
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					return err
				}
				key := tok.(string)
				if keys[key] {
					return fmt.Errorf("duplicate key %q", key)
				}
				keys[key] = true
				if err := walk(); err != nil {
					return err
				}
			}
		case '[':
			for dec.More() {
				if err := walk(); err != nil {
					return err
				}
			}
		}
		_, err = dec.Token() // the closing delimiter
		return err
	}
	if err := walk(); err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

// validate checks one decoded case and fills in the default tool.
func (c *Case) validate() error {
	if strings.TrimSpace(c.Note) == "" {
		return errors.New("missing note")
	}
	if !slices.Contains(Categories, c.Category) {
		return fmt.Errorf("unknown category %q (want one of %s)", c.Category, strings.Join(Categories, ", "))
	}
	if !slices.Contains(Verdicts, c.Want) {
		return fmt.Errorf("unknown want %q (want one of %s)", c.Want, strings.Join(Verdicts, ", "))
	}
	n := 0
	for _, present := range []bool{c.Commands != nil, c.Args != nil, c.Raw != nil} {
		if present {
			n++
		}
	}
	if n != 1 {
		return errors.New("need exactly one of commands, args, raw")
	}
	if c.WorkingDir != "" && c.Commands == nil {
		return errors.New("working_dir is only for commands")
	}
	malformed := c.Category == "malformed"
	switch {
	case c.Raw != nil:
		if !malformed {
			return errors.New("raw is only for category malformed")
		}
		if c.Tool != "" {
			return errors.New("a raw case names no tool")
		}
		if len(c.Raw) == 0 {
			return errors.New("empty raw")
		}
		for i, line := range c.Raw {
			if strings.ContainsAny(line, "\r\n") {
				return fmt.Errorf("raw line %d holds a line break: each raw entry is one line", i+1)
			}
		}
		return nil
	case c.Commands != nil:
		if c.Tool == "" {
			c.Tool = "exec"
		}
		if c.Tool != "exec" {
			return fmt.Errorf("commands are only for exec, not %q", c.Tool)
		}
		if len(c.Commands) == 0 {
			return errors.New("empty commands")
		}
		seen := make(map[string]bool)
		for _, cmd := range c.Commands {
			if cmd == "" && !malformed {
				return errors.New("empty command outside category malformed")
			}
			if seen[cmd] {
				return fmt.Errorf("command %q listed twice", cmd)
			}
			seen[cmd] = true
		}
	default: // args
		if c.Tool == "" {
			c.Tool = "exec"
		}
		if c.Tool == "exec" && !malformed {
			return errors.New("exec takes commands, not args (args for exec only in category malformed)")
		}
	}
	if !slices.Contains(Tools, c.Tool) {
		return fmt.Errorf("unknown tool %q (want one of %s)", c.Tool, strings.Join(Tools, ", "))
	}
	return nil
}

// nativeCall is toolgate's native call shape.
type nativeCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments any    `json:"arguments"`
}

// Lines returns the input lines a gateway reads for this case, one per
// spelling, in the native shape {"id","name","arguments"}, with {{WS}} and
// {{HOME}} replaced by ws and home. Raw lines are returned as written apart
// from the placeholders. IDs are the note followed by "#n".
func (c Case) Lines(ws, home string) []string {
	sub := strings.NewReplacer(PlaceholderWS, ws, PlaceholderHome, home).Replace
	id := func(i int) string { return fmt.Sprintf("%s#%d", c.Note, i+1) }
	var lines []string
	switch {
	case c.Raw != nil:
		for _, r := range c.Raw {
			lines = append(lines, sub(r))
		}
	case c.Commands != nil:
		for i, cmd := range c.Commands {
			args := map[string]any{"command": sub(cmd)}
			if c.WorkingDir != "" {
				args["working_dir"] = sub(c.WorkingDir)
			}
			lines = append(lines, encodeLine(nativeCall{ID: id(i), Name: c.Tool, Arguments: args}))
		}
	default:
		lines = append(lines, encodeLine(nativeCall{ID: id(0), Name: c.Tool, Arguments: substitute(c.Args, sub)}))
	}
	return lines
}

// substitute returns a copy of v with sub applied to every string in it,
// keys included.
func substitute(v any, sub func(string) string) any {
	switch v := v.(type) {
	case string:
		return sub(v)
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[sub(k)] = substitute(e, sub)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			s[i] = substitute(e, sub)
		}
		return s
	default:
		return v
	}
}

// encodeLine marshals v as one JSON line without HTML escaping, so lines
// read in logs as the agent would have written them.
func encodeLine(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only json.Number values from a validated file and strings reach
		// here; failing to encode them is a bug in this package.
		panic(fmt.Sprintf("corpus: encoding call: %v", err))
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
