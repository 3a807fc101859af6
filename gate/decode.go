package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Limits bound what one input line may cost.
//
// A zero or negative field means the default from DefaultLimits.
type Limits struct {
	MaxLineBytes int // default 1 MiB (1<<20)
	MaxDepth     int // default 64: JSON nesting
	MaxBatch     int // default 256 calls per line
}

// DefaultLimits returns the limits toolgate applies when none are configured.
func DefaultLimits() Limits {
	return Limits{MaxLineBytes: 1 << 20, MaxDepth: 64, MaxBatch: 256}
}

func (l Limits) orDefaults() Limits {
	d := DefaultLimits()
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = d.MaxLineBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxBatch <= 0 {
		l.MaxBatch = d.MaxBatch
	}
	return l
}

// DecodeError is a stable, fail-closed reason a line (or one call in it) could
// not be decoded. Code is one of the CodeDecode* constants; Message is written
// for the model that sent the line: it says what went wrong and what to send
// instead.
type DecodeError struct {
	Code    string
	Message string
}

func (e *DecodeError) Error() string { return e.Code + ": " + e.Message }

// Decoded is one call found on a line, or the error that stands in for it.
//
// When Err is set, Call holds only what could be recovered (ID and Format,
// when known); Tool and Args are left empty so that nothing can run it.
type Decoded struct {
	Call Call
	Err  *DecodeError
}

// Call formats, as recorded in Call.Format.
const (
	FormatNative    = "native"
	FormatOpenAI    = "openai"
	FormatAnthropic = "anthropic"
	FormatMCP       = "mcp"
)

// shapesHint lists every accepted shape; it ends every "unknown shape" message.
const decShapesHint = `send one of: {"id":"...","name":"...","arguments":{...}}; ` +
	`an OpenAI tool call {"id":"...","type":"function","function":{"name":"...","arguments":"{...}"}}; ` +
	`an Anthropic block {"type":"tool_use","id":"...","name":"...","input":{...}}; ` +
	`MCP tools/call params {"name":"...","arguments":{...}} or a JSON-RPC "tools/call" request; ` +
	`an array of these; or a whole assistant message`

// DecodeLine turns one input line (one JSON value) into calls.
//
// It never panics and never returns an empty slice: a line that cannot be
// decoded yields exactly one Decoded with Err set (with Call.ID filled when an
// id could be recovered). In an array or an assistant message, a call that
// cannot be decoded yields an error Decoded at its position while the others
// decode normally.
//
// Accepted shapes, each becoming one Call:
//
//   - native {"id","name","arguments":{...}} (arguments may also be a JSON
//     string holding an object)
//   - OpenAI {"id","type":"function","function":{"name","arguments":"{...}"}}
//     (arguments may also be an object; "" means {})
//   - Anthropic {"type":"tool_use","id","name","input":{...}}
//   - MCP tools/call params {"name","arguments"}, or a whole JSON-RPC request
//     {"jsonrpc":"2.0","id","method":"tools/call","params":{...}}, where a
//     missing arguments member means {} as the MCP specification allows
//   - a JSON array of any of these, flattened in order
//   - an assistant message: OpenAI {"role":"assistant","tool_calls":[...]},
//     Anthropic {"role":"assistant","content":[blocks]} (tool_use blocks in
//     order; text, thinking and other blocks are ignored), an OpenAI chat
//     completion {"choices":[{"message":{...}}]} and an Anthropic response
//     {"type":"message","content":[...]}
//
// The whole line must be UTF-8 without NUL bytes (raw or \u0000, and no lone
// surrogate escapes), no object may repeat a key, and nesting may not exceed
// lim.MaxDepth; the same rules apply inside an arguments string, whose depth
// counts from where the string sits. Unknown keys on envelopes are ignored.
// Args is always a JSON object, re-encoded without insignificant whitespace.
//
// An object may carry only one thing a call could be read from: a call with
// two of arguments, input, function, params, parameters and args (or with
// tool_calls, function_call, choices or tool_use content beside them), a
// message with both tool_calls and tool_use blocks, the params of a JSON-RPC
// request carrying input or the like instead of arguments, or a top-level
// "name" that differs from the function's or the params' "name" is refused
// with CodeDecodeShape: the gateway must not judge one reading while a runner
// could act on another.
func DecodeLine(line []byte, lim Limits) (out []Decoded) {
	defer func() {
		if r := recover(); r != nil {
			out = []Decoded{{Err: &DecodeError{Code: CodePanic,
				Message: "internal error while decoding the line: send the call again as one JSON object and report this if it persists"}}}
		}
	}()
	lim = lim.orDefaults()

	if len(line) > lim.MaxLineBytes {
		return decFail(CodeDecodeTooLarge, fmt.Sprintf(
			"the line is %d bytes, over the limit of %d: send smaller arguments or split the calls across lines",
			len(line), lim.MaxLineBytes))
	}
	if e := decCheckBytes(line); e != nil {
		return []Decoded{{Err: e}}
	}

	d := getLineDecoder(lim)
	defer putLineDecoder(d)

	root, e := d.parse(line, 0, "")
	if e != nil {
		id := ""
		if root >= 0 {
			id = d.recoverID(root)
		}
		return []Decoded{{Call: Call{ID: id}, Err: e}}
	}
	d.line = line
	out = make([]Decoded, 0, 1)
	switch r := d.nodes[root]; r.kind {
	case decArray:
		if r.count == 0 {
			return decFail(CodeDecodeEmpty, "the array holds no calls: send at least one tool call")
		}
		if int(r.count) > lim.MaxBatch {
			return decTooMany(int(r.count), lim.MaxBatch)
		}
		for c := root + 1; c < r.skip; c = d.nodes[c].skip {
			if d.nodes[c].kind == decArray {
				out = decAppendErr(out, d.nodes[c].bad, Call{}, CodeDecodeShape,
					"nested arrays are not accepted: send a flat array of calls")
				continue
			}
			out = d.value(out, c)
		}
	default:
		out = d.value(out, root)
	}
	if len(out) > lim.MaxBatch {
		return decTooMany(len(out), lim.MaxBatch)
	}
	return out
}

// decFail is the result of a line that fails as a whole.
func decFail(code, msg string) []Decoded {
	return []Decoded{{Err: &DecodeError{Code: code, Message: msg}}}
}

func decTooMany(n, max int) []Decoded {
	return decFail(CodeDecodeTooLarge, fmt.Sprintf(
		"the line holds %d calls, over the limit of %d: send at most %d calls per line", n, max, max))
}

// decAppendErr appends an error Decoded. A fault already found inside the value
// (bad) wins over the error the caller would report, so that a NUL byte or a
// repeated key is named as such even where the shape is also wrong.
func decAppendErr(out []Decoded, bad *DecodeError, c Call, code, msg string) []Decoded {
	if bad != nil {
		return append(out, Decoded{Call: c, Err: bad})
	}
	return append(out, Decoded{Call: c, Err: &DecodeError{Code: code, Message: msg}})
}

// decCheckBytes rejects raw NUL bytes and invalid UTF-8 before any parsing.
// Escaped forms (\u0000, lone surrogates) are caught per string while parsing.
func decCheckBytes(b []byte) *DecodeError {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return &DecodeError{Code: CodeDecodeNUL, Message: fmt.Sprintf(
			"the line holds a NUL byte at offset %d: remove it", i)}
	}
	if !utf8.Valid(b) {
		i := 0
		for i < len(b) {
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			i += size
		}
		return &DecodeError{Code: CodeDecodeUTF8, Message: fmt.Sprintf(
			"the line holds bytes that are not UTF-8 at offset %d: send UTF-8 text only", i)}
	}
	return nil
}

// The parse builds a flat tree of the line: nodes in document order, each
// container followed by its descendants and pointing (skip) past them.

type decKind uint8

const (
	decNull decKind = iota
	decBool
	decNumber
	decString
	decObject
	decArray
)

type decNode struct {
	kind  decKind
	depth int32  // containers around this node
	skip  int32  // index of the first node after this subtree
	count int32  // members or elements, for containers
	start int    // byte offset of '{' or '[' in the parsed text
	end   int    // byte offset just past '}' or ']'
	key   string // member name when the parent is an object
	str   string // string value, or number text
	// err is a fault found at this node (a repeated key or a bad escape);
	// bad is the first fault anywhere in the subtree, nbad how many there are.
	err  *DecodeError
	bad  *DecodeError
	nbad int32
}

type decFrame struct {
	node    int32
	obj     bool
	wantKey bool
	key     string // pending member name
	keys    int    // where this object's keys start in lineDecoder.keys
	set     map[string]struct{}
}

// decManyKeys is the member count above which duplicate checks use a map.
const decManyKeys = 16

type lineDecoder struct {
	lim   Limits
	rd    bytes.Reader
	valid validSource // the token sources parse uses
	slow  jsonSource
	nodes []decNode
	stack []decFrame
	keys  []string
	line  []byte // the text the outer node offsets refer to
}

var lineDecoderPool = sync.Pool{New: func() any { return new(lineDecoder) }}

func getLineDecoder(lim Limits) *lineDecoder {
	d := lineDecoderPool.Get().(*lineDecoder)
	d.lim = lim
	d.nodes, d.keys, d.stack = d.nodes[:0], d.keys[:0], d.stack[:0]
	return d
}

func putLineDecoder(d *lineDecoder) {
	if cap(d.nodes) > 4096 || cap(d.keys) > 4096 || cap(d.stack) > 256 {
		return // let an unusually large line's buffers go
	}
	clear(d.nodes)
	clear(d.keys[:cap(d.keys)]) // parse may leave names past len after an error
	d.nodes, d.keys, d.stack = d.nodes[:0], d.keys[:0], d.stack[:0]
	d.rd.Reset(nil)
	d.valid, d.slow = validSource{}, jsonSource{}
	d.line = nil
	lineDecoderPool.Put(d)
}

// parse reads exactly one JSON value from text and appends its nodes. base is
// the number of containers already around the text and member the name of
// the arguments member when text is an arguments string ("" for the line).
// It returns the root's index (or -1 when nothing was read) and a fatal error:
// invalid JSON, trailing data or nesting too deep. Faults that concern one
// part of the value (repeated keys, bad escapes) are recorded on the nodes.
func (d *lineDecoder) parse(text []byte, base int32, member string) (int32, *DecodeError) {
	var src decSource
	if json.Valid(text) {
		d.valid = validSource{b: text}
		src = &d.valid
	} else {
		d.rd.Reset(text)
		dec := json.NewDecoder(&d.rd)
		dec.UseNumber()
		d.slow = jsonSource{dec: dec}
		src = &d.slow
	}
	d.stack = d.stack[:0]
	d.keys = d.keys[:0]
	root := int32(-1)
	prev := 0
	for {
		tok, off, err := src.next()
		if err != nil {
			if err == io.EOF && root >= 0 && len(d.stack) == 0 {
				return root, nil
			}
			complete := root >= 0 && len(d.stack) == 0
			d.abandon()
			switch {
			case complete:
				return root, decJSONError(member, "trailing", prev)
			case err == io.EOF && root < 0:
				return root, decJSONError(member, "empty", off)
			case err == io.EOF:
				return root, decJSONError(member, "early", off)
			}
			return root, decJSONError(member, decSyntaxDetail(err, off), off)
		}
		if root >= 0 && len(d.stack) == 0 {
			return root, decJSONError(member, "trailing", prev)
		}
		region := text[prev:off]
		prev = off
		switch tok.kind {
		case '{', '[':
			if int(base)+len(d.stack)+1 > d.lim.MaxDepth {
				d.abandon()
				return root, &DecodeError{Code: CodeDecodeTooDeep, Message: fmt.Sprintf(
					"nesting is deeper than %d levels: send flatter arguments", d.lim.MaxDepth)}
			}
			obj := tok.kind == '{'
			k := decArray
			if obj {
				k = decObject
			}
			i := d.add(k, base)
			d.nodes[i].start = off - 1
			if root < 0 {
				root = i
			}
			d.stack = append(d.stack, decFrame{node: i, obj: obj, wantKey: obj, keys: len(d.keys)})
		case '}', ']':
			f := &d.stack[len(d.stack)-1]
			n := &d.nodes[f.node]
			n.end = off
			n.skip = int32(len(d.nodes))
			if f.obj {
				d.keys = d.keys[:f.keys]
			}
			d.stack[len(d.stack)-1] = decFrame{}
			d.stack = d.stack[:len(d.stack)-1]
		case 's':
			if len(d.stack) > 0 {
				if f := &d.stack[len(d.stack)-1]; f.obj && f.wantKey {
					d.addKey(f, tok.str, region)
					continue
				}
			}
			i := d.add(decString, base)
			d.nodes[i].str = tok.str
			if root < 0 {
				root = i
			}
			if e := decCheckEscapes(region); e != nil {
				d.fault(i, e)
			}
		case 'n':
			i := d.add(decNumber, base)
			d.nodes[i].str = tok.str
			if root < 0 {
				root = i
			}
		case 'b':
			i := d.add(decBool, base)
			d.nodes[i].str = tok.str
			if root < 0 {
				root = i
			}
		default: // 'z'
			i := d.add(decNull, base)
			if root < 0 {
				root = i
			}
		}
	}
}

// add appends a value node under the innermost open container.
func (d *lineDecoder) add(k decKind, base int32) int32 {
	i := int32(len(d.nodes))
	d.nodes = append(d.nodes, decNode{kind: k, depth: base + int32(len(d.stack)), skip: i + 1})
	if len(d.stack) > 0 {
		f := &d.stack[len(d.stack)-1]
		d.nodes[f.node].count++
		if f.obj {
			d.nodes[i].key = f.key
			f.key = ""
			f.wantKey = true
		}
	}
	return i
}

// addKey records a member name, checking it for repeats and bad escapes.
func (d *lineDecoder) addKey(f *decFrame, key string, region []byte) {
	f.key = key
	f.wantKey = false
	if e := decCheckEscapes(region); e != nil {
		d.fault(f.node, e)
	}
	dup := false
	if f.set != nil {
		_, dup = f.set[key]
		f.set[key] = struct{}{}
	} else {
		for _, k := range d.keys[f.keys:] {
			if k == key {
				dup = true
				break
			}
		}
		d.keys = append(d.keys, key)
		if len(d.keys)-f.keys > decManyKeys {
			f.set = make(map[string]struct{}, 2*decManyKeys)
			for _, k := range d.keys[f.keys:] {
				f.set[k] = struct{}{}
			}
			d.keys = d.keys[:f.keys]
		}
	}
	if dup {
		d.fault(f.node, &DecodeError{Code: CodeDecodeDupKey, Message: fmt.Sprintf(
			"an object repeats the key %s: send each key once", strconv.Quote(key))})
	}
}

// fault records e at node i and counts it in every open container around it.
func (d *lineDecoder) fault(i int32, e *DecodeError) {
	n := &d.nodes[i]
	if n.err == nil {
		n.err = e
	}
	mark := func(n *decNode) {
		n.nbad++
		if n.bad == nil {
			n.bad = e
		}
	}
	mark(n)
	for j := len(d.stack) - 1; j >= 0; j-- {
		if d.stack[j].node != i {
			mark(&d.nodes[d.stack[j].node])
		}
	}
}

// abandon closes every open container so that a partial tree can be read.
func (d *lineDecoder) abandon() {
	for j := range d.stack {
		n := &d.nodes[d.stack[j].node]
		n.skip = int32(len(d.nodes))
		d.stack[j] = decFrame{}
	}
	d.stack = d.stack[:0]
}

// decJSONError is the error for text that is not exactly one JSON value: the
// line itself (member == "") or the arguments string of member. why is
// "empty", "early", "trailing" or a syntax error's own words.
func decJSONError(member, why string, off int) *DecodeError {
	what, code, hint := "the line", CodeDecodeJSON, "send one JSON value per line"
	if member != "" {
		what, code, hint = "the arguments string", CodeDecodeArgs, decArgsHint(member, true)
	}
	var msg string
	switch why {
	case "empty":
		msg = what + " holds no JSON value"
	case "early":
		msg = what + " ends inside its JSON value"
	case "trailing":
		msg = fmt.Sprintf("%s has data after its JSON value at offset %d", what, off)
	default:
		msg = what + " is not valid JSON (" + why + ")"
	}
	return &DecodeError{Code: code, Message: msg + ": " + hint}
}

func decSyntaxDetail(err error, off int) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at offset %d", se.Error(), se.Offset)
	}
	if err == io.ErrUnexpectedEOF {
		return fmt.Sprintf("unexpected end at offset %d", off)
	}
	return err.Error()
}

// decCheckEscapes looks at the raw text of one string token (with the separators
// before it, which hold no backslash) for a \u0000 escape or a lone surrogate,
// which encoding/json would otherwise pass on or silently replace.
func decCheckEscapes(raw []byte) *DecodeError {
	i := bytes.IndexByte(raw, '\\')
	if i < 0 {
		return nil
	}
	for i < len(raw)-1 {
		if raw[i] != '\\' {
			i++
			continue
		}
		if raw[i+1] != 'u' {
			i += 2
			continue
		}
		r, ok := decHex4(raw, i+2)
		if !ok {
			i += 2
			continue
		}
		switch {
		case r == 0:
			return &DecodeError{Code: CodeDecodeNUL, Message: `a string holds a NUL character (\u0000): remove it`}
		case r >= 0xDC00 && r <= 0xDFFF:
			return decLoneSurrogate(r)
		case r >= 0xD800 && r <= 0xDBFF:
			lo, ok := rune(0), false
			if i+7 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				lo, ok = decHex4(raw, i+8)
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return decLoneSurrogate(r)
			}
			i += 12
		default:
			i += 6
		}
	}
	return nil
}

func decLoneSurrogate(r rune) *DecodeError {
	return &DecodeError{Code: CodeDecodeUTF8, Message: fmt.Sprintf(
		`a string holds a lone surrogate escape (\u%04x), which is not UTF-8: send the character itself or a valid surrogate pair`, r)}
}

func decHex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// fields holds the indices of the members that tell shapes apart (0: absent;
// no member can be at index 0, which is always a root).
type decFields struct {
	id, name, arguments, input, typ, function, role, content,
	toolCalls, choices, message, jsonrpc, method, params,
	parameters, args, functionCall int32
}

func (d *lineDecoder) fields(n int32) decFields {
	var f decFields
	end := d.nodes[n].skip
	for c := n + 1; c < end; c = d.nodes[c].skip {
		p := (*int32)(nil)
		switch d.nodes[c].key {
		case "id":
			p = &f.id
		case "name":
			p = &f.name
		case "arguments":
			p = &f.arguments
		case "input":
			p = &f.input
		case "type":
			p = &f.typ
		case "function":
			p = &f.function
		case "role":
			p = &f.role
		case "content":
			p = &f.content
		case "tool_calls":
			p = &f.toolCalls
		case "choices":
			p = &f.choices
		case "message":
			p = &f.message
		case "jsonrpc":
			p = &f.jsonrpc
		case "method":
			p = &f.method
		case "params":
			p = &f.params
		case "parameters":
			p = &f.parameters
		case "args":
			p = &f.args
		case "function_call":
			p = &f.functionCall
		}
		if p != nil && *p == 0 {
			*p = c
		}
	}
	return f
}

// str returns the string value of member i, and whether it is a string.
func (d *lineDecoder) str(i int32) (string, bool) {
	if i == 0 || d.nodes[i].kind != decString {
		return "", false
	}
	return d.nodes[i].str, true
}

// value decodes one object that is a call or a message and appends the result.
func (d *lineDecoder) value(out []Decoded, n int32) []Decoded {
	nd := &d.nodes[n]
	if nd.kind != decObject {
		return decAppendErr(out, nd.bad, Call{}, CodeDecodeShape,
			fmt.Sprintf("%s is not a tool call: %s", decKindName(nd.kind), decShapesHint))
	}
	f := d.fields(n)
	switch {
	case f.method != 0 || f.jsonrpc != 0:
		return append(out, d.rpc(n, &f))
	case f.choices != 0:
		return d.completion(out, n, &f)
	case f.role != 0:
		return d.message(out, n, &f)
	case f.typ != 0:
		t, ok := d.str(f.typ)
		switch {
		case ok && t == "message":
			return d.message(out, n, &f)
		case ok && t == "tool_use":
			return append(out, d.anthropic(n, &f))
		case ok && t == "function":
			return append(out, d.openai(n, &f))
		case ok:
			return decAppendErr(out, nd.bad, Call{ID: d.recoverID(n)}, CodeDecodeShape,
				fmt.Sprintf("type %s is not a tool call: %s", strconv.Quote(t), decShapesHint))
		}
		return decAppendErr(out, nd.bad, Call{ID: d.recoverID(n)}, CodeDecodeShape,
			`"type" must be a string: `+decShapesHint)
	case f.function != 0:
		return append(out, d.openai(n, &f))
	case f.name != 0 || f.arguments != 0:
		format := FormatNative
		if f.id == 0 {
			format = FormatMCP
		}
		return append(out, d.plain(n, &f, format, false))
	}
	return decAppendErr(out, nd.bad, Call{ID: d.recoverID(n)}, CodeDecodeShape,
		"the object matches no tool call format: "+decShapesHint)
}

// decKindName names a kind of JSON value with its article, for messages.
func decKindName(k decKind) string {
	switch k {
	case decNull:
		return "null"
	case decBool:
		return "a boolean"
	case decNumber:
		return "a number"
	case decString:
		return "a string"
	case decArray:
		return "an array"
	}
	return "an object"
}

// recoverID returns the object's "id" when it is a string or number and
// appears once; otherwise "".
func (d *lineDecoder) recoverID(n int32) string {
	nd := &d.nodes[n]
	if nd.kind != decObject {
		return ""
	}
	id, seen := "", false
	for c := n + 1; c < nd.skip; c = d.nodes[c].skip {
		if d.nodes[c].key != "id" {
			continue
		}
		if seen {
			return ""
		}
		seen = true
		if k := d.nodes[c].kind; k == decString || k == decNumber {
			id = d.nodes[c].str
		}
	}
	return id
}

func decShapeErr(c Call, msg string) Decoded {
	return Decoded{Call: c, Err: &DecodeError{Code: CodeDecodeShape, Message: msg}}
}

// callID reads an id member: a string or a number (as its text); absent or
// null means no id.
func (d *lineDecoder) callID(i int32) (string, *DecodeError) {
	if i == 0 {
		return "", nil
	}
	switch d.nodes[i].kind {
	case decString, decNumber:
		return d.nodes[i].str, nil
	case decNull:
		return "", nil
	}
	return "", &DecodeError{Code: CodeDecodeShape,
		Message: `"id" must be a string or a number: send the call id as a string`}
}

// toolName reads a name member, which must be a non-empty string.
func (d *lineDecoder) toolName(i int32, where string) (string, *DecodeError) {
	if i == 0 {
		return "", &DecodeError{Code: CodeDecodeShape, Message: fmt.Sprintf(
			`%s has no "name": send the tool name as a non-empty string`, where)}
	}
	s, ok := d.str(i)
	if !ok {
		return "", &DecodeError{Code: CodeDecodeShape, Message: fmt.Sprintf(
			`the "name" of %s is %s: send the tool name as a non-empty string`, where, decKindName(d.nodes[i].kind))}
	}
	if s == "" {
		return "", &DecodeError{Code: CodeDecodeShape, Message: fmt.Sprintf(
			`the "name" of %s is empty: send the tool name as a non-empty string`, where)}
	}
	return s, nil
}

// head reads the id and name shared by every call shape. It reports a fault
// found anywhere inside the call first.
func (d *lineDecoder) head(n, idIdx, nameIdx int32, format, where string) (Call, *DecodeError) {
	c := Call{ID: d.recoverID(n), Format: format}
	if b := d.nodes[n].bad; b != nil {
		return c, b
	}
	id, e := d.callID(idIdx)
	if e != nil {
		return c, e
	}
	c.ID = id
	name, e := d.toolName(nameIdx, where)
	if e != nil {
		return c, e
	}
	c.Tool = name
	return c, nil
}

func decDone(c Call, e *DecodeError) Decoded {
	if e != nil {
		c.Tool, c.Args = "", nil
		return Decoded{Call: c, Err: e}
	}
	return Decoded{Call: c}
}

// plain decodes the native shape and MCP tools/call params. optional is set
// for the params of a JSON-RPC request, where a missing arguments member
// means {}: there, any other member a runner could read arguments from is
// refused, since the call would be judged on {} while it might run on that.
func (d *lineDecoder) plain(n int32, f *decFields, format string, optional bool) Decoded {
	where := "the call"
	if optional {
		where = "the params object"
	}
	c, e := d.head(n, f.id, f.name, format, where)
	if e == nil {
		e = d.oneSource(f, where, "", decNativeWant)
		if e != nil && !optional {
			c.Format = "" // which shape was meant is unknown
		}
	}
	if e == nil && optional && f.arguments == 0 {
		if a, _, k := d.sources(f); k > 0 {
			e = &DecodeError{Code: CodeDecodeShape, Message: fmt.Sprintf(
				`ambiguous call: the params object carries %s but no "arguments", which tools/call reads: send the tool arguments as "arguments"`,
				strconv.Quote(a))}
		}
	}
	if e == nil {
		c.Args, e = d.args(f.arguments, "arguments", true, optional)
	}
	return decDone(c, e)
}

// openai decodes {"id","type":"function","function":{"name","arguments"}}.
func (d *lineDecoder) openai(n int32, f *decFields) Decoded {
	c := Call{ID: d.recoverID(n), Format: FormatOpenAI}
	if b := d.nodes[n].bad; b != nil {
		return decDone(c, b)
	}
	if f.typ != 0 {
		if t, ok := d.str(f.typ); !ok || t != "function" {
			return decShapeErr(c, `an OpenAI tool call must have "type":"function": send {"id":"...","type":"function","function":{"name":"...","arguments":"{...}"}}`)
		}
	}
	if f.function == 0 || d.nodes[f.function].kind != decObject {
		return decShapeErr(c, `an OpenAI tool call needs a "function" object: send {"id":"...","type":"function","function":{"name":"...","arguments":"{...}"}}`)
	}
	if e := d.oneSource(f, "the call", "function", decOpenAIWant); e != nil {
		c.Format = "" // which shape was meant is unknown
		return decDone(c, e)
	}
	ff := d.fields(f.function)
	c, e := d.head(n, f.id, ff.name, FormatOpenAI, "the function")
	if e == nil {
		e = d.oneSource(&ff, "the function", "", decOpenAIWant)
	}
	if e == nil {
		e = d.sameName(f.name, ff.name, `the function's "name"`)
	}
	if e == nil {
		c.Args, e = d.args(ff.arguments, "arguments", true, false)
	}
	return decDone(c, e)
}

// anthropic decodes {"type":"tool_use","id","name","input":{...}}.
func (d *lineDecoder) anthropic(n int32, f *decFields) Decoded {
	c, e := d.head(n, f.id, f.name, FormatAnthropic, "the tool_use block")
	if e == nil {
		if e = d.oneSource(f, "the tool_use block", "", decAnthropicWant); e != nil {
			c.Format = "" // which shape was meant is unknown
		}
	}
	if e == nil {
		c.Args, e = d.args(f.input, "input", false, false)
	}
	return decDone(c, e)
}

// rpc decodes a JSON-RPC 2.0 tools/call request.
func (d *lineDecoder) rpc(n int32, f *decFields) Decoded {
	c := Call{ID: d.recoverID(n), Format: FormatMCP}
	if b := d.nodes[n].bad; b != nil {
		return decDone(c, b)
	}
	const want = `send {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"...","arguments":{...}}}`
	if f.jsonrpc != 0 {
		if v, ok := d.str(f.jsonrpc); !ok || v != "2.0" {
			return decShapeErr(c, `"jsonrpc" must be "2.0": `+want)
		}
	}
	m, ok := d.str(f.method)
	if !ok {
		return decShapeErr(c, `a JSON-RPC request needs "method":"tools/call": `+want)
	}
	if m != "tools/call" {
		return decShapeErr(c, fmt.Sprintf(`method %s is not a tool call: %s`, strconv.Quote(m), want))
	}
	if f.params == 0 || d.nodes[f.params].kind != decObject {
		return decShapeErr(c, `a tools/call request needs a "params" object: `+want)
	}
	if e := d.oneSource(f, "the request", "params", want); e != nil {
		c.Format = "" // which shape was meant is unknown
		return decDone(c, e)
	}
	id, e := d.callID(f.id)
	if e != nil {
		return decDone(c, e)
	}
	pf := d.fields(f.params)
	if e := d.sameName(f.name, pf.name, `the params' "name"`); e != nil {
		return decDone(c, e)
	}
	r := d.plain(f.params, &pf, FormatMCP, true)
	r.Call.ID = id
	return r
}

// completion decodes an OpenAI chat completion: the calls of every choice's
// message, in order.
func (d *lineDecoder) completion(out []Decoded, n int32, f *decFields) []Decoded {
	const want = `send the "message" of the choice, or the completion with "choices":[{"message":{"role":"assistant","tool_calls":[...]}}]`
	if e := d.oneSource(f, "the completion", "choices", want); e != nil {
		return decAppendErr(out, d.nodes[n].bad, Call{}, e.Code, e.Message)
	}
	ch := d.nodes[f.choices]
	if ch.kind != decArray {
		return decAppendErr(out, d.nodes[n].bad, Call{}, CodeDecodeShape, `"choices" must be an array: `+want)
	}
	mark := len(out)
	var calls []int32
	for c := f.choices + 1; c < ch.skip; c = d.nodes[c].skip {
		calls = append(calls, c)
		if d.nodes[c].kind != decObject {
			out = decAppendErr(out, d.nodes[c].bad, Call{}, CodeDecodeShape, "a choice must be an object: "+want)
			continue
		}
		cf := d.fields(c)
		if cf.message == 0 || d.nodes[cf.message].kind != decObject {
			out = decAppendErr(out, d.nodes[c].bad, Call{}, CodeDecodeShape, `a choice needs a "message" object: `+want)
			continue
		}
		if e := d.outside(c, []int32{cf.message}); e != nil {
			out = append(out, Decoded{Err: e})
			continue
		}
		mf := d.fields(cf.message)
		before := len(out)
		out = d.message(out, cf.message, &mf)
		if len(out) == before+1 && out[before].Err != nil && out[before].Err.Code == CodeDecodeEmpty {
			out = out[:before] // a choice without calls; emptiness is judged below
		}
	}
	if e := d.outside(n, calls); e != nil {
		return append(out[:mark], Decoded{Err: e})
	}
	if len(out) == mark {
		return append(out, Decoded{Err: &DecodeError{Code: CodeDecodeEmpty,
			Message: "the completion holds no tool calls: send a completion whose message has tool_calls"}})
	}
	return out
}

// message decodes an assistant message: OpenAI tool_calls, or else the
// tool_use blocks of an Anthropic content array.
func (d *lineDecoder) message(out []Decoded, n int32, f *decFields) []Decoded {
	bad := d.nodes[n].bad
	if f.role != 0 {
		r, ok := d.str(f.role)
		if !ok || r != "assistant" {
			msg := `only an assistant message carries tool calls: send the message with "role":"assistant"`
			if ok {
				msg = fmt.Sprintf(`a message with role %s carries no tool calls: send the assistant message`, strconv.Quote(r))
			}
			return decAppendErr(out, bad, Call{}, CodeDecodeShape, msg)
		}
	}
	if e := d.oneSource(f, "the message", "", decMessageWant); e != nil {
		return decAppendErr(out, bad, Call{}, e.Code, e.Message)
	}
	mark := len(out)
	var calls []int32
	if tc := f.toolCalls; tc != 0 && d.nodes[tc].kind != decNull {
		if d.nodes[tc].kind != decArray {
			return decAppendErr(out, bad, Call{}, CodeDecodeShape,
				`"tool_calls" must be an array: send "tool_calls":[{"id":"...","type":"function","function":{...}}]`)
		}
		for c := tc + 1; c < d.nodes[tc].skip; c = d.nodes[c].skip {
			calls = append(calls, c)
			if d.nodes[c].kind != decObject {
				out = decAppendErr(out, d.nodes[c].bad, Call{}, CodeDecodeShape, fmt.Sprintf(
					`a tool_calls entry is %s: send {"id":"...","type":"function","function":{"name":"...","arguments":"{...}"}}`,
					decKindName(d.nodes[c].kind)))
				continue
			}
			cf := d.fields(c)
			out = append(out, d.openai(c, &cf))
		}
	}
	if len(calls) == 0 && f.content != 0 && d.nodes[f.content].kind == decArray {
		ct := f.content
		for c := ct + 1; c < d.nodes[ct].skip; c = d.nodes[c].skip {
			if d.nodes[c].kind != decObject {
				calls = append(calls, c)
				out = decAppendErr(out, d.nodes[c].bad, Call{}, CodeDecodeShape, fmt.Sprintf(
					`a content block is %s: send blocks as objects with a "type"`, decKindName(d.nodes[c].kind)))
				continue
			}
			cf := d.fields(c)
			t, ok := d.str(cf.typ)
			if !ok {
				calls = append(calls, c)
				out = decAppendErr(out, d.nodes[c].bad, Call{ID: d.recoverID(c)}, CodeDecodeShape,
					`a content block has no "type": send {"type":"tool_use","id":"...","name":"...","input":{...}}`)
				continue
			}
			if t != "tool_use" {
				continue // text, thinking and the like: faults in them are caught below
			}
			calls = append(calls, c)
			out = append(out, d.anthropic(c, &cf))
		}
	}
	if e := d.outside(n, calls); e != nil {
		return append(out[:mark], Decoded{Err: e})
	}
	if len(out) == mark {
		return append(out, Decoded{Err: &DecodeError{Code: CodeDecodeEmpty,
			Message: `the message holds no tool calls: send "tool_calls" (OpenAI) or "tool_use" content blocks (Anthropic)`}})
	}
	return out
}

// What to send instead, for the messages about ambiguous calls.
const (
	decNativeWant    = `send one shape, e.g. {"id":"...","name":"...","arguments":{...}}`
	decOpenAIWant    = `send one shape, e.g. {"id":"...","type":"function","function":{"name":"...","arguments":"{...}"}}`
	decAnthropicWant = `send one shape, e.g. {"type":"tool_use","id":"...","name":"...","input":{...}}`
	decMessageWant   = `send one shape: "tool_calls" (OpenAI) or "tool_use" content blocks (Anthropic), not both`
)

// sources counts the members of an object that some runner could read a
// call or its arguments from, and names the first two. Every call shape reads
// exactly one of them, so an object with two is ambiguous: it could be judged
// on one while a runner acts on the other.
//
// arguments, input, function, params, parameters (Llama-style calls and
// OpenAI function definitions) and args (LangChain) count whenever present,
// even as null. tool_calls, function_call (the legacy OpenAI message field),
// choices and content count only when they could carry a call: not null, not
// an empty array, and for content an array holding a tool_use block, since
// SDKs send "content":null, "function_call":null and "tool_calls":[] on
// ordinary messages.
func (d *lineDecoder) sources(f *decFields) (first, second string, k int) {
	add := func(name string) {
		switch k {
		case 0:
			first = name
		case 1:
			second = name
		}
		k++
	}
	for _, m := range [...]struct {
		i     int32
		name  string
		loose bool
	}{
		{f.arguments, "arguments", false},
		{f.input, "input", false},
		{f.function, "function", false},
		{f.params, "params", false},
		{f.parameters, "parameters", false},
		{f.args, "args", false},
		{f.toolCalls, "tool_calls", true},
		{f.functionCall, "function_call", true},
		{f.choices, "choices", true},
	} {
		if m.i == 0 {
			continue
		}
		if m.loose {
			nd := &d.nodes[m.i]
			if nd.kind == decNull || (nd.kind == decArray && nd.count == 0) {
				continue
			}
		}
		add(m.name)
	}
	if c := f.content; c != 0 && d.nodes[c].kind == decArray {
		for b := c + 1; b < d.nodes[c].skip; b = d.nodes[b].skip {
			if d.nodes[b].kind != decObject {
				continue
			}
			if bf := d.fields(b); bf.typ != 0 {
				if t, ok := d.str(bf.typ); ok && t == "tool_use" {
					add("content")
					break
				}
			}
		}
	}
	return first, second, k
}

// oneSource refuses an object carrying more than one member a call could be
// read from (see sources), and, when own is set, one carrying any other
// member than own: own is the member the shape reads, and the object's other
// members are then what some other runner would read instead.
func (d *lineDecoder) oneSource(f *decFields, where, own, want string) *DecodeError {
	a, b, k := d.sources(f)
	if k == 0 || (k == 1 && (own == "" || a == own)) {
		return nil
	}
	if k == 1 {
		b = own
	}
	return &DecodeError{Code: CodeDecodeShape, Message: fmt.Sprintf(
		"ambiguous call: %s carries both %s and %s: %s", where, decSourceName(a), decSourceName(b), want)}
}

// decSourceName names a member found by sources, for messages.
func decSourceName(m string) string {
	if m == "content" {
		return `tool_use blocks in "content"`
	}
	return strconv.Quote(m)
}

// sameName refuses a call whose top-level "name" (top, 0 when absent) is not
// the name the shape reads (inner): one runner would run the one, another
// the other. A missing inner name is reported by head.
func (d *lineDecoder) sameName(top, inner int32, what string) *DecodeError {
	if top == 0 || inner == 0 {
		return nil
	}
	a, aok := d.str(top)
	b, bok := d.str(inner)
	if aok && bok && a == b {
		return nil
	}
	show := func(i int32, s string, ok bool) string {
		if ok {
			return strconv.Quote(s)
		}
		return decKindName(d.nodes[i].kind)
	}
	return &DecodeError{Code: CodeDecodeShape, Message: fmt.Sprintf(
		`ambiguous call: "name" is %s but %s is %s: send the tool name once`,
		show(top, a, aok), what, show(inner, b, bok))}
}

// outside returns the first fault in n's subtree that lies in none of the
// calls (each reported on its own), or nil.
func (d *lineDecoder) outside(n int32, calls []int32) *DecodeError {
	nd := &d.nodes[n]
	if nd.nbad == 0 {
		return nil
	}
	var inside int32
	for _, c := range calls {
		inside += d.nodes[c].nbad
	}
	if inside == nd.nbad {
		return nil
	}
	k := 0
	for i := n; i < nd.skip; {
		if k < len(calls) && calls[k] == i {
			i = d.nodes[i].skip
			k++
			continue
		}
		if e := d.nodes[i].err; e != nil {
			return e
		}
		i++
	}
	return nd.bad
}

// args reads an arguments member: an object, or (when fromString) a JSON
// string holding one, where "" means {}. optional lets a missing member
// mean {}.
func (d *lineDecoder) args(i int32, member string, fromString, optional bool) (json.RawMessage, *DecodeError) {
	if i == 0 {
		if optional {
			return json.RawMessage("{}"), nil
		}
		return nil, &DecodeError{Code: CodeDecodeArgs, Message: fmt.Sprintf("the call has no %s: %s",
			strconv.Quote(member), decArgsHint(member, fromString))}
	}
	n := &d.nodes[i]
	switch {
	case n.kind == decObject:
		return decCompact(d.line[n.start:n.end]), nil
	case n.kind == decString && fromString:
		return d.argsString(n.str, n.depth, member)
	}
	return nil, &DecodeError{Code: CodeDecodeArgs, Message: fmt.Sprintf("%s is %s: %s",
		strconv.Quote(member), decKindName(n.kind), decArgsHint(member, fromString))}
}

// decArgsHint says how to send an arguments member.
func decArgsHint(member string, fromString bool) string {
	if fromString {
		return fmt.Sprintf(`send %s as a JSON object or a string holding one, e.g. {} or "{}"`, strconv.Quote(member))
	}
	return fmt.Sprintf(`send %s as a JSON object, e.g. {}`, strconv.Quote(member))
}

// argsString parses the JSON text held in an arguments string with the same
// rules as the line, nesting counted from where the string sits.
func (d *lineDecoder) argsString(s string, depth int32, member string) (json.RawMessage, *DecodeError) {
	if s == "" {
		return json.RawMessage("{}"), nil
	}
	text := []byte(s)
	wrap := func(e *DecodeError) *DecodeError {
		return &DecodeError{Code: e.Code, Message: "in the arguments string, " + e.Message}
	}
	if e := decCheckBytes(text); e != nil {
		return nil, wrap(e)
	}
	mark := len(d.nodes)
	defer func() {
		clear(d.nodes[mark:])
		d.nodes = d.nodes[:mark]
	}()
	root, e := d.parse(text, depth, member)
	if e != nil {
		if e.Code == CodeDecodeArgs {
			return nil, e
		}
		return nil, wrap(e)
	}
	r := &d.nodes[root]
	if r.bad != nil {
		return nil, wrap(r.bad)
	}
	if r.kind != decObject {
		return nil, &DecodeError{Code: CodeDecodeArgs, Message: fmt.Sprintf(
			"the arguments string holds %s: %s", decKindName(r.kind), decArgsHint(member, true))}
	}
	return decCompact(text[r.start:r.end]), nil
}

// decCompact copies valid JSON without insignificant whitespace. It relies on
// the text having been validated: outside strings, only whitespace is
// dropped; strings are copied byte for byte.
func decCompact(src []byte) json.RawMessage {
	dst := make([]byte, 0, len(src))
	in, esc := false, false
	start := 0
	for i, c := range src {
		switch {
		case in:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				in = false
			}
		case c == '"':
			in = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			dst = append(dst, src[start:i]...)
			start = i + 1
		}
	}
	return append(dst, src[start:]...)
}
