package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"
)

// Filter selects decision records, and the outcomes of the calls whose
// decision it selects. The zero Filter selects every record.
type Filter struct {
	// Decision is allow, deny or ask.
	Decision string
	// Tool is a tool name.
	Tool string
	// Rule is a rule id that must be among the decision's reasons.
	Rule string
	// Since and Until bound the record time, both inclusive; zero means
	// unbounded.
	Since, Until time.Time
}

// Empty reports whether f selects every record.
func (f Filter) Empty() bool {
	return f.Decision == "" && f.Tool == "" && f.Rule == "" && f.Since.IsZero() && f.Until.IsZero()
}

// matchDecision reports whether the decision record r passes f.
func (f Filter) matchDecision(r *Record) bool {
	if f.Decision != "" && r.Decision != f.Decision {
		return false
	}
	if f.Tool != "" && r.Tool != f.Tool {
		return false
	}
	if f.Rule != "" {
		found := false
		for _, rs := range r.Reasons {
			if rs.Rule == f.Rule {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if !f.Since.IsZero() || !f.Until.IsZero() {
		t, ok := recordTime(r)
		if !ok {
			return false
		}
		if !f.Since.IsZero() && t.Before(f.Since) {
			return false
		}
		if !f.Until.IsZero() && t.After(f.Until) {
			return false
		}
	}
	return true
}

// recentCalls bounds how many call ids the readers remember to join an
// outcome to its decision.
const recentCalls = 100000

// recentIDs remembers a value for the most recently added call ids, at
// most max of them; the oldest are forgotten first.
type recentIDs struct {
	max  int
	gen  int64
	m    map[string]recentEntry
	ring []recentSlot
	pos  int
}

type recentEntry struct {
	gen int64
	val string
}

type recentSlot struct {
	id  string
	gen int64
}

func newRecentIDs(max int) *recentIDs {
	return &recentIDs{max: max, m: map[string]recentEntry{}}
}

func (c *recentIDs) add(id, val string) {
	c.gen++
	c.m[id] = recentEntry{gen: c.gen, val: val}
	slot := recentSlot{id: id, gen: c.gen}
	if len(c.ring) < c.max {
		c.ring = append(c.ring, slot)
		return
	}
	old := c.ring[c.pos]
	if e, ok := c.m[old.id]; ok && e.gen == old.gen {
		delete(c.m, old.id)
	}
	c.ring[c.pos] = slot
	c.pos = (c.pos + 1) % c.max
}

func (c *recentIDs) remove(id string) { delete(c.m, id) }

func (c *recentIDs) get(id string) (string, bool) {
	e, ok := c.m[id]
	return e.val, ok
}

// passer applies a Filter to a stream of records.
type passer struct {
	f     Filter
	empty bool
	calls *recentIDs // ids of recent decisions that passed
}

func newPasser(f Filter) *passer {
	return &passer{f: f, empty: f.Empty(), calls: newRecentIDs(recentCalls)}
}

func (p *passer) pass(r *Record) bool {
	if p.empty {
		return true
	}
	switch r.Kind {
	case KindDecision:
		ok := p.f.matchDecision(r)
		if r.ID != "" {
			// The latest decision for an id is the one its outcome follows.
			if ok {
				p.calls.add(r.ID, r.Decision)
			} else {
				p.calls.remove(r.ID)
			}
		}
		return ok
	case KindOutcome:
		if r.ID == "" {
			return false
		}
		_, ok := p.calls.get(r.ID)
		return ok
	}
	return false
}

// Scan streams the records of the files, in order, and calls fn with each
// one that passes f, its file and its 1-based line in the file. Memory
// stays bounded whatever the size of the files. A line that is not a
// record (not JSON, not a record, or a partial last line) stops the scan
// with an error naming its file and line, after every record before it was
// passed to fn. An error from fn stops the scan and is returned as is.
//
// Scan does not check the hash chain; Verify does.
func Scan(paths []string, f Filter, fn func(line int64, file string, r *Record) error) error {
	return scanRaw(paths, f, func(line int64, file string, _ []byte, r *Record) error {
		return fn(line, file, r)
	})
}

// scanRaw is Scan that also passes the record's line as it is in the file
// (without its newline).
func scanRaw(paths []string, f Filter, fn func(line int64, file string, raw []byte, r *Record) error) error {
	p := newPasser(f)
	for _, file := range paths {
		if err := scanFile(file, p, fn); err != nil {
			return err
		}
	}
	return nil
}

func scanFile(file string, p *passer, fn func(line int64, file string, raw []byte, r *Record) error) error {
	fh, err := os.Open(file)
	if err != nil {
		return err
	}
	defer fh.Close()
	br := bufio.NewReaderSize(fh, 1<<20)
	var n int64
	for {
		line, err := readLine(br)
		if len(line) == 0 && err == io.EOF {
			return nil
		}
		n++
		if err == io.EOF {
			return fmt.Errorf("%s:%d: the last line is partial (%d bytes without a newline)", file, n, len(line))
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %v", file, n, err)
		}
		body := line[:len(line)-1]
		r, err := decodeRecord(body)
		if err != nil {
			return fmt.Errorf("%s:%d: %v", file, n, err)
		}
		if !p.pass(r) {
			continue
		}
		if err := fn(n, file, body, r); err != nil {
			return err
		}
	}
}

// decodeRecord reads one line as a record, or says why it is not one.
func decodeRecord(body []byte) (*Record, error) {
	r := new(Record)
	if err := json.Unmarshal(body, r); err != nil {
		return nil, fmt.Errorf("not a record: %v", err)
	}
	if r.V == 0 || r.Kind == "" || r.Hash == "" {
		return nil, errors.New("not a record: no version, kind or hash")
	}
	return r, nil
}

func recordTime(r *Record) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, r.Time)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// Show writes the records of the files that pass f. With asJSON it writes
// their lines exactly as they are in the files; otherwise an aligned table
// (time, seq, tool, decision, rule, what) and a line counting the decisions
// shown. Rows are flushed in blocks, so memory stays bounded; columns are
// aligned within each block.
func Show(w io.Writer, paths []string, f Filter, asJSON bool) error {
	bw := bufio.NewWriter(w)
	if asJSON {
		err := scanRaw(paths, f, func(_ int64, _ string, raw []byte, _ *Record) error {
			bw.Write(raw)
			return bw.WriteByte('\n')
		})
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
		return err
	}
	const block = 1000
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	header := func() { io.WriteString(tw, "TIME\tSEQ\tTOOL\tDECISION\tRULE\tWHAT\n") }
	header()
	var rows int64
	var counts tally
	err := Scan(paths, f, func(_ int64, _ string, r *Record) error {
		decision, rule, what := "", "-", ""
		tool := cut(oneLine(r.Tool), 40)
		if tool == "" {
			tool = "-"
		}
		switch r.Kind {
		case KindDecision:
			counts.add(r.Decision)
			decision = cut(oneLine(r.Decision), 12)
			if len(r.Reasons) > 0 && r.Reasons[0].Rule != "" {
				rule = cut(oneLine(r.Reasons[0].Rule), 60)
			}
			what = ShortWhat(r)
		case KindOutcome:
			decision = outcomeResult(r)
			what = outcomeSummary(r)
		default:
			decision = cut(oneLine(r.Kind), 12)
			what = cut(oneLine(markerSummary(r)), 80)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", showTime(r), r.Seq, tool, decision, rule, what)
		rows++
		if rows%block == 0 {
			return tw.Flush()
		}
		return nil
	})
	if ferr := tw.Flush(); err == nil {
		err = ferr
	}
	if err == nil {
		fmt.Fprintf(bw, "%d decisions shown (%d allow, %d deny, %d ask)\n", counts.Total, counts.Allow, counts.Deny, counts.Ask)
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// showTime is a record's time to the second, or its text when it does not
// parse.
func showTime(r *Record) string {
	if t, ok := recordTime(r); ok {
		return t.Format(time.DateTime)
	}
	if r.Time == "" {
		return "-"
	}
	return cut(oneLine(r.Time), 19)
}

// outcomeResult is what happened to a call: "exit N", "ran" or "not run".
func outcomeResult(r *Record) string {
	if r.Ran != nil && !*r.Ran {
		return "not run"
	}
	if r.ExitCode != nil {
		return "exit " + strconv.Itoa(*r.ExitCode)
	}
	return "ran"
}

// failed reports whether an outcome is a failure: not run, or a non-zero
// exit code.
func failed(r *Record) bool {
	return (r.Ran != nil && !*r.Ran) || (r.ExitCode != nil && *r.ExitCode != 0)
}

// outcomeSummary describes an outcome's size and duration.
func outcomeSummary(r *Record) string {
	var parts []string
	if r.DurationMS != nil {
		parts = append(parts, strconv.FormatInt(*r.DurationMS, 10)+" ms")
	}
	if r.OutputBytes != nil {
		parts = append(parts, strconv.FormatInt(*r.OutputBytes, 10)+" bytes of output")
	}
	if r.Truncated {
		parts = append(parts, "truncated")
	}
	if r.Sandbox != "" {
		parts = append(parts, "sandbox "+oneLine(r.Sandbox))
	}
	if len(parts) == 0 {
		return "-"
	}
	return cut(strings.Join(parts, ", "), 80)
}

// markerSummary describes a genesis, checkpoint or repair record.
func markerSummary(r *Record) string {
	switch r.Kind {
	case KindGenesis:
		if r.PrevFile != "" {
			return "continues " + r.PrevFile
		}
		return "a new log"
	case KindCheckpoint:
		return fmt.Sprintf("covers seq %d, signed by %s", r.Count, r.KeyID)
	case KindRepair:
		return fmt.Sprintf("a torn tail of %d bytes was cut off", r.RemovedBytes)
	}
	return "-"
}

// whatWidth is how long a short form of a call may be.
const whatWidth = 80

// ShortWhat is a one-line form of a decision record's call, at most 80
// characters: the command of an exec call, the path or pattern of a file
// tool, the arguments of any other.
func ShortWhat(r *Record) string {
	s := What(r)
	if s == "" {
		return "-"
	}
	return cut(oneLine(s), whatWidth)
}

// What is the call a decision record describes, in full: the command of an
// exec call, the path or pattern of a file tool, the arguments (as JSON)
// of any other. Record text is not sanitized.
func What(r *Record) string {
	var args map[string]any
	if len(r.Args) > 0 && json.Unmarshal(r.Args, &args) != nil {
		// Arguments that were not an object are logged as a string.
		var s string
		if json.Unmarshal(r.Args, &s) == nil {
			return s
		}
		return string(r.Args)
	}
	str := func(k string) string { s, _ := args[k].(string); return s }
	switch r.Tool {
	case "exec":
		if c := str("command"); c != "" {
			return c
		}
		var cmds []string
		for _, argv := range r.Commands {
			cmds = append(cmds, strings.Join(argv, " "))
		}
		return strings.Join(cmds, "; ")
	case "read_file", "write_file", "edit_file", "list_dir":
		if p := str("path"); p != "" {
			return p
		}
	case "search":
		if p := str("path"); p != "" {
			return str("pattern") + " in " + p
		}
		return str("pattern")
	case "glob":
		return str("pattern")
	}
	if len(r.Args) == 0 {
		return ""
	}
	return string(r.Args)
}

// filePath is the file a file tool's call names (its path, or its pattern
// for glob), and "" for other tools.
func filePath(r *Record) string {
	var args map[string]any
	_ = json.Unmarshal(r.Args, &args)
	str := func(k string) string { s, _ := args[k].(string); return s }
	switch r.Tool {
	case "read_file", "write_file", "edit_file":
		return str("path")
	case "list_dir", "search":
		if p := str("path"); p != "" {
			return p
		}
		return "."
	case "glob":
		return str("pattern")
	}
	return ""
}

// oneLine makes record text safe to show on one line of a terminal or a
// table: line breaks become ⏎, tabs spaces, and control characters,
// bidirectional overrides and invalid UTF-8 visible escapes.
func oneLine(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// \r\n is one line break
		case c == '\n' || c == '\r' || c == '\u2028' || c == '\u2029' || c == '\u0085':
			b.WriteString("⏎")
		case c == '\t':
			b.WriteByte(' ')
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		case (c >= 0x80 && c < 0xa0) || isBidi(c):
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteRune(c)
		}
		i += size
	}
	return b.String()
}

// isBidi reports whether c changes the direction of the text around it,
// which could make a line read differently from what it is.
func isBidi(c rune) bool {
	return c == '\u061c' || c == '\u200e' || c == '\u200f' || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069')
}

// cut shortens s to at most n characters, ending in … when it was longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for k < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		k++
	}
	return s[:i] + "…"
}

// tally counts records by decision.
type tally struct {
	Allow, Deny, Ask, Other, Total int64
}

func (t *tally) add(decision string) {
	t.Total++
	switch decision {
	case "allow":
		t.Allow++
	case "deny":
		t.Deny++
	case "ask":
		t.Ask++
	default:
		t.Other++
	}
}

// counter tallies by key, for at most max distinct keys; later keys are
// counted together under the overflow key, so memory stays bounded.
type counter struct {
	max      int
	m        map[string]*tally
	overflow tally
}

// overflowKey names the keys a counter had no room for.
const overflowKey = "(others)"

func newCounter(max int) *counter { return &counter{max: max, m: map[string]*tally{}} }

func (c *counter) add(key, decision string) {
	t, ok := c.m[key]
	if !ok {
		if len(c.m) >= c.max {
			c.overflow.add(decision)
			return
		}
		t = new(tally)
		c.m[key] = t
	}
	t.add(decision)
}

type keyTally struct {
	Key string
	tally
}

// top returns the n largest keys (all with n <= 0), largest first, then
// by key; the overflow last, and how many keys were left out.
func (c *counter) top(n int) ([]keyTally, int) {
	out := make([]keyTally, 0, len(c.m)+1)
	for k, t := range c.m {
		out = append(out, keyTally{k, *t})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Total != out[j].Total {
			return out[i].Total > out[j].Total
		}
		return out[i].Key < out[j].Key
	})
	more := 0
	if n > 0 && len(out) > n {
		more = len(out) - n
		out = out[:n]
	}
	if c.overflow.Total > 0 {
		out = append(out, keyTally{overflowKey, c.overflow})
	}
	return out, more
}

// sorted returns every key in key order, the overflow last.
func (c *counter) sorted() []keyTally {
	out := make([]keyTally, 0, len(c.m)+1)
	for k, t := range c.m {
		out = append(out, keyTally{k, *t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	if c.overflow.Total > 0 {
		out = append(out, keyTally{overflowKey, c.overflow})
	}
	return out
}

// base is the last element of a slash-separated path.
func base(p string) string {
	if p == "" {
		return ""
	}
	return path.Base(p)
}
