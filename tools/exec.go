package tools

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/toolgate/toolgate/sandbox"
)

// FormatExec writes what exec shows the model for a command the sandbox
// ran, in the seed's shape: standard output; then "STDERR:" and standard
// error when it holds more than white space; then "Exit code: N" when the
// code is not zero; "(no output)" when there is nothing; a timeout replaces
// it all with "Error: Command timed out after N seconds". Longer than
// ExecMaxOutput characters, the middle is cut and replaced by
// "... (N chars truncated) ...", keeping the head and the tail. truncated
// says whether anything was cut, here or by the sandbox's capture.
func FormatExec(r sandbox.Result, timeout time.Duration) (out string, truncated bool) {
	if r.TimedOut {
		return "Error: Command timed out after " + seconds(timeout) + " seconds", false
	}
	var parts [][]seg
	if r.Stdout.Bytes > 0 {
		parts = append(parts, textSegs(r.Stdout))
	}
	if r.Stderr.Gap > 0 || strings.TrimFunc(r.Stderr.Head+r.Stderr.Tail, unicode.IsSpace) != "" {
		parts = append(parts, append([]seg{{s: "STDERR:\n"}}, textSegs(r.Stderr)...))
	}
	// The sandbox's limits speak for themselves only through odd exit codes;
	// a model is told which one it met.
	if r.OutputLimited {
		parts = append(parts, []seg{{s: "Error: Command stopped: its output passed the sandbox's limit"}})
	}
	if r.OOM {
		parts = append(parts, []seg{{s: "Error: a process was killed: the sandbox's memory limit was reached"}})
	}
	if r.PidsLimited {
		parts = append(parts, []seg{{s: "Error: the sandbox's process limit was reached; some processes could not start"}})
	}
	if r.ExitCode != 0 {
		parts = append(parts, []seg{{s: "\nExit code: " + strconv.Itoa(r.ExitCode)}})
	}
	for _, n := range r.Notes {
		parts = append(parts, []seg{{s: n}})
	}
	if len(parts) == 0 {
		return "(no output)", false
	}
	var all []seg
	for i, p := range parts {
		if i > 0 {
			all = append(all, seg{s: "\n"})
		}
		all = append(all, p...)
	}
	return headTail(all, ExecMaxOutput)
}

// seg is a piece of output: text, or gap characters the capture dropped.
type seg struct {
	s   string
	gap int64
}

func textSegs(t sandbox.Text) []seg {
	out := []seg{{s: t.Head}}
	if t.Gap > 0 {
		out = append(out, seg{gap: t.Gap})
	}
	if t.Tail != "" {
		out = append(out, seg{s: t.Tail})
	}
	return out
}

// headTail joins the segments; past max characters it keeps max/2 from
// each end around the seed's "... (N chars truncated) ..." line, N with
// thousands separators as Python's "{:,}" writes it.
func headTail(segs []seg, max int) (string, bool) {
	var total int64
	gaps := false
	for _, s := range segs {
		total += int64(utf8.RuneCountInString(s.s)) + s.gap
		gaps = gaps || s.gap > 0
	}
	if total <= int64(max) && !gaps {
		var b strings.Builder
		for _, s := range segs {
			b.WriteString(s.s)
		}
		return b.String(), false
	}
	if total <= int64(max) {
		// Only possible when a tiny capture bound dropped text; say so.
		total = int64(max) + 1
	}
	half := max / 2
	var b strings.Builder
	// Head: the first half characters.
	need := half
	for _, s := range segs {
		if need == 0 {
			break
		}
		if s.gap > 0 {
			break // the capture keeps far more than half on each side
		}
		n := 0
		for i := range s.s {
			if n == need {
				b.WriteString(s.s[:i])
				need = 0
				break
			}
			n++
		}
		if need > 0 {
			b.WriteString(s.s)
			need -= n
		}
	}
	b.WriteString("\n\n... (" + thousands64(total-int64(max)) + " chars truncated) ...\n\n")
	// Tail: the last half characters.
	var tail []string
	need = half
	for i := len(segs) - 1; i >= 0 && need > 0; i-- {
		s := segs[i]
		if s.gap > 0 {
			break
		}
		n := utf8.RuneCountInString(s.s)
		if n <= need {
			tail = append(tail, s.s)
			need -= n
			continue
		}
		skip := n - need
		for j := range s.s {
			if skip == 0 {
				tail = append(tail, s.s[j:])
				break
			}
			skip--
		}
		need = 0
	}
	for i := len(tail) - 1; i >= 0; i-- {
		b.WriteString(tail[i])
	}
	return b.String(), true
}

func thousands64(n int64) string {
	if n <= int64(^uint(0)>>1) {
		return thousands(int(n))
	}
	return strconv.FormatInt(n, 10)
}

// Blocked is what a call the policy refused shows the model: the seed's
// exec string for exec, the same shape naming the tool for the others.
func Blocked(tool string, reasons []string) string {
	what := tool
	switch tool {
	case "exec":
		what = "Command"
	case "":
		what = "Call"
	}
	why := strings.Join(reasons, "; ")
	if why == "" {
		why = "denied by policy"
	}
	return "Error: " + what + " blocked by safety guard (" + why + ")"
}
