package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Version is the record format; it is part of every hash.
const Version = 1

// Record kinds.
const (
	KindGenesis    = "genesis"    // first record of a file
	KindDecision   = "decision"   // a call and what the policy decided
	KindOutcome    = "outcome"    // what an executed call did
	KindCheckpoint = "checkpoint" // a signature over the chain so far
	KindRepair     = "repair"     // a torn tail was cut off
)

// ZeroHash is the prev of the very first genesis record.
const ZeroHash = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

// hashPrefix separates record hashes from every other use of SHA-256.
const hashPrefix = "toolgate-audit-record-v1\n"

// Record is one line of the log. Which fields are set depends on Kind.
type Record struct {
	V    int    `json:"v"`
	Seq  int64  `json:"seq"`
	Time string `json:"time"` // RFC 3339, UTC, nanoseconds
	Kind string `json:"kind"`

	// The call (decision and outcome records).
	ID     string          `json:"id,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Source string          `json:"source,omitempty"` // the front end: check, run, …
	Args   json.RawMessage `json:"args,omitempty"`   // masked and redacted
	// Commands are the normalized argv of every command found in an exec
	// call; Paths the resolved paths it touches.
	Commands [][]string `json:"commands,omitempty"`
	Paths    []string   `json:"paths,omitempty"`

	Decision       string   `json:"decision,omitempty"`
	Reasons        []Reason `json:"reasons,omitempty"`
	Policy         string   `json:"policy,omitempty"` // policy digest
	PolicyRevision string   `json:"policy_revision,omitempty"`
	Sandbox        string   `json:"sandbox,omitempty"`
	Approval       string   `json:"approval,omitempty"`

	// Outcome.
	ExitCode     *int   `json:"exit_code,omitempty"`
	DurationMS   *int64 `json:"duration_ms,omitempty"`
	OutputBytes  *int64 `json:"output_bytes,omitempty"`
	OutputSHA256 string `json:"output_sha256,omitempty"`
	Truncated    bool   `json:"truncated,omitempty"`
	Ran          *bool  `json:"ran,omitempty"`

	Writer *Writer `json:"writer,omitempty"`

	// Genesis: the file this one continues (after a rotation).
	PrevFile string `json:"prev_file,omitempty"`

	// Checkpoint: Count records up to and including seq Count-… are
	// covered; Head is the hash of the last one; Sig signs both.
	Count int64  `json:"count,omitempty"`
	Head  string `json:"head,omitempty"`
	KeyID string `json:"key_id,omitempty"`
	Sig   string `json:"sig,omitempty"`

	// Repair: what was cut off.
	RemovedBytes  int64  `json:"removed_bytes,omitempty"`
	RemovedSHA256 string `json:"removed_sha256,omitempty"`

	Prev string `json:"prev"`
	Hash string `json:"hash,omitempty"`
}

// Reason is one rule that contributed to a decision.
type Reason struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// Writer says who wrote a record.
type Writer struct {
	Host    string `json:"host"`
	User    string `json:"user"`
	UID     int    `json:"uid"`
	PID     int    `json:"pid"`
	Program string `json:"program"`
}

// maxExactInt bounds a record's integer fields. A canonical JSON number is
// an IEEE-754 double (RFC 8785), which holds every integer within
// ±(2^53-1), the range RFC 8259 calls interoperable; beyond it some
// integers round to a neighbour (2^53+1 would be written as 2^53), and a
// logged number could differ from the one meant. So the writer refuses a
// record with such an integer rather than log a different one, and verify
// does not take a line with one for a record.
const maxExactInt = 1<<53 - 1

// checkInts refuses a record with an integer field beyond ±maxExactInt,
// naming the field.
func (r *Record) checkInts() error {
	type field struct {
		name string
		n    int64
	}
	fs := [9]field{{"v", int64(r.V)}, {"seq", r.Seq}, {"count", r.Count}}
	k := 3
	if r.ExitCode != nil {
		fs[k] = field{"exit_code", int64(*r.ExitCode)}
		k++
	}
	for _, f := range [...]struct {
		name string
		p    *int64
	}{{"duration_ms", r.DurationMS}, {"output_bytes", r.OutputBytes}} {
		if f.p != nil {
			fs[k] = field{f.name, *f.p}
			k++
		}
	}
	fs[k] = field{"removed_bytes", r.RemovedBytes}
	k++
	if r.Writer != nil {
		fs[k], fs[k+1] = field{"writer.uid", int64(r.Writer.UID)}, field{"writer.pid", int64(r.Writer.PID)}
		k += 2
	}
	for _, f := range fs[:k] {
		if f.n < -maxExactInt || f.n > maxExactInt {
			return inexactError(f.name, strconv.FormatInt(f.n, 10))
		}
	}
	return nil
}

// inexactError says that the integer field field, written lit, is beyond
// what a canonical JSON number holds exactly.
func inexactError(field, lit string) error {
	return fmt.Errorf("%s is %s, more than 2^53-1 in magnitude: a canonical JSON number (an IEEE-754 double) does not hold it exactly", field, lit)
}

// exactLiteral says whether the JSON number lit is within ±maxExactInt.
func exactLiteral[S ~string | ~[]byte](lit S) bool {
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	short := len(digits) > 0 && len(digits) <= 15
	for i := 0; short && i < len(digits); i++ {
		short = '0' <= digits[i] && digits[i] <= '9'
	}
	if short {
		return true // an integer below 10^15
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	return err == nil && math.Abs(f) <= maxExactInt
}

// inexactField returns the first integer field of the decoded record m
// whose number is beyond ±maxExactInt, with its literal, or "". Only the
// fields Record has as integers count: args is free-form, and its numbers
// are canonical JSON numbers like any other.
func inexactField(m map[string]any) (field, lit string) {
	for _, k := range [...]string{"v", "seq", "count", "exit_code", "duration_ms", "output_bytes", "removed_bytes"} {
		if n, ok := m[k].(json.Number); ok && !exactLiteral(n) {
			return k, string(n)
		}
	}
	if w, ok := m["writer"].(map[string]any); ok {
		for _, k := range [...]string{"uid", "pid"} {
			if n, ok := w[k].(json.Number); ok && !exactLiteral(n) {
				return "writer." + k, string(n)
			}
		}
	}
	return "", ""
}

// seal sets r.Hash and returns the record's line: its canonical JSON and a
// newline. The hash covers every field but itself.
func (r *Record) seal() ([]byte, error) {
	return r.sealAppend(nil)
}

// sealSlow is seal the generic way: encoding/json, decoded into maps,
// canonicalized. sealAppend falls back to it for what its direct encoding
// does not handle, and tests hold the two to the same bytes.
func (r *Record) sealSlow() ([]byte, error) {
	r.Hash = ""
	if err := r.checkInts(); err != nil {
		return nil, err
	}
	c := *r // keeps r on the stack of seal's callers
	raw, err := json.Marshal(&c)
	if err != nil {
		return nil, err
	}
	v, err := decodeValue(raw)
	if err != nil {
		return nil, err
	}
	m := v.(map[string]any)
	h, err := hashOf(m)
	if err != nil {
		return nil, err
	}
	r.Hash = h
	m["hash"] = h
	line, err := Canonical(m)
	if err != nil {
		return nil, err
	}
	return append(line, '\n'), nil
}

// hashOf hashes a decoded record without its "hash" member.
func hashOf(m map[string]any) (string, error) {
	h, had := m["hash"]
	delete(m, "hash")
	c, err := Canonical(m)
	if had {
		m["hash"] = h
	}
	if err != nil {
		return "", err
	}
	return sumOf(c), nil
}

// sumOf is the record hash of canonical bytes.
func sumOf(canonical []byte) string {
	h := sha256.New()
	h.Write([]byte(hashPrefix))
	h.Write(canonical)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// chainFields decodes a line into its generic object and the fields the
// chain needs, without a second pass through encoding/json.
func chainFields(line []byte) (map[string]any, *Record, error) {
	v, err := decodeValue(line)
	if err != nil {
		return nil, nil, fmt.Errorf("not JSON: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil, errors.New("not a JSON object")
	}
	r := &Record{}
	ok = true
	for _, f := range [...]struct {
		k   string
		dst *string
	}{{"kind", &r.Kind}, {"id", &r.ID}, {"prev", &r.Prev}, {"hash", &r.Hash},
		{"head", &r.Head}, {"key_id", &r.KeyID}, {"sig", &r.Sig}, {"prev_file", &r.PrevFile}} {
		if x, present := m[f.k]; present {
			v, isStr := x.(string)
			*f.dst, ok = v, ok && isStr
		}
	}
	var version int64
	for _, f := range [...]struct {
		k   string
		dst *int64
	}{{"v", &version}, {"seq", &r.Seq}, {"count", &r.Count}} {
		if x, present := m[f.k]; present {
			n, isNum := x.(json.Number)
			v, err := n.Int64()
			*f.dst, ok = v, ok && isNum && err == nil
		}
	}
	r.V = int(version)
	if !ok || r.Hash == "" || r.Kind == "" || r.V == 0 {
		return m, nil, errors.New("not a record (a field is missing or of the wrong type)")
	}
	if field, lit := inexactField(m); field != "" {
		return m, nil, fmt.Errorf("not a record: %v", inexactError(field, lit))
	}
	return m, r, nil
}

// decodeValue decodes one JSON value with numbers kept as written and
// nothing after it.
func decodeValue(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("more than one JSON value")
	}
	// More says no at a ] or } too (it asks whether an array or object
	// goes on), so a record line with a stray closer after it would pass
	// for the record: only white space may follow the value.
	for _, c := range b[d.InputOffset():] {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return nil, fmt.Errorf("invalid character %q after top-level value", c)
		}
	}
	return v, nil
}

// parseLine reads one log line (without its newline). It returns the
// decoded object, the typed record, and an error saying why the line is not
// a record: not JSON, not an object, not canonical, or a wrong hash.
func parseLine(line []byte) (map[string]any, *Record, error) {
	v, err := decodeValue(line)
	if err != nil {
		return nil, nil, fmt.Errorf("not JSON: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil, errors.New("not a JSON object")
	}
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		return m, nil, fmt.Errorf("not a record: %v", err)
	}
	return m, &r, nil
}
