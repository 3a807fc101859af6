package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// section is one row of the brief: a title, its measured lines and notes.
type section struct {
	Row     int      `json:"row"`
	Title   string   `json:"title"`
	Lines   []*line  `json:"lines,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	Skipped string   `json:"skipped,omitempty"`
	Error   string   `json:"error,omitempty"`
	Seconds float64  `json:"seconds"`
}

// line is one figure: the median over the repetitions and its range, and,
// when it has a baseline measured in the same rounds, the ratio to it
// (median and range of the per-round ratios).
type line struct {
	Name    string  `json:"name"`
	Unit    string  `json:"unit"`
	Value   spread  `json:"value"`
	Ratio   *spread `json:"ratio,omitempty"`
	RatioOf string  `json:"ratio_of,omitempty"`
	Target  string  `json:"target,omitempty"`
	Pass    *bool   `json:"pass,omitempty"`
}

func (s *section) add(name, unit string, xs []float64) *line {
	l := &line{Name: name, Unit: unit, Value: summarize(xs)}
	s.Lines = append(s.Lines, l)
	return l
}

func (s *section) note(format string, a ...any) {
	s.Notes = append(s.Notes, fmt.Sprintf(format, a...))
}

// vs records the ratio of this line to the baseline named of, from ratios
// paired round by round.
func (l *line) vs(of string, rs []float64) *line {
	r := summarize(rs)
	l.Ratio, l.RatioOf = &r, of
	return l
}

func (l *line) judge(ok bool, target string) *line {
	l.Target, l.Pass = target, &ok
	return l
}

// atMost: the median must not exceed limit.
func (l *line) atMost(limit float64) *line {
	return l.judge(l.Value.N > 0 && l.Value.Median <= limit, "≤ "+fmtLimit(limit)+" "+l.Unit)
}

// atLeast: the median must reach limit.
func (l *line) atLeast(limit float64) *line {
	return l.judge(l.Value.N > 0 && l.Value.Median >= limit, "≥ "+fmtLimit(limit)+" "+l.Unit)
}

// ratioAtMost: the median ratio to the baseline must not exceed limit.
func (l *line) ratioAtMost(limit float64) *line {
	return l.judge(l.Ratio != nil && l.Ratio.N > 0 && l.Ratio.Median <= limit, "≤ "+fmtRatio(limit)+"×")
}

// fmtLimit prints a target's number as it was written.
func fmtLimit(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// fmtNum prints a figure with as many digits as a reader needs.
func fmtNum(x float64) string {
	a := math.Abs(x)
	switch {
	case x == 0:
		return "0"
	case a >= 10000:
		return thousands(int64(math.Round(x)))
	case a >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	default:
		return strconv.FormatFloat(x, 'f', 3, 64)
	}
}

func fmtRatio(x float64) string {
	switch a := math.Abs(x); {
	case a >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	default:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// cells returns the table cells of one line: measure, median, range,
// ratio, target, result.
func (l *line) cells() [6]string {
	var c [6]string
	c[0] = l.Name
	if l.Value.N > 0 {
		c[1] = fmtNum(l.Value.Median) + " " + l.Unit
		if l.Value.N > 1 {
			c[2] = fmtNum(l.Value.Min) + "–" + fmtNum(l.Value.Max)
		}
	}
	if l.Ratio != nil && l.Ratio.N > 0 {
		c[3] = fmtRatio(l.Ratio.Median) + "×"
		if l.Ratio.N > 1 {
			c[3] += " (" + fmtRatio(l.Ratio.Min) + "–" + fmtRatio(l.Ratio.Max) + ")"
		}
		c[3] += " " + l.RatioOf
	}
	c[4] = l.Target
	if l.Pass != nil {
		c[5] = "FAIL"
		if *l.Pass {
			c[5] = "PASS"
		}
	}
	return c
}

// writeTable prints the sections as one plain table: a title line per
// row, then its figures in aligned columns, then its notes.
func writeTable(w io.Writer, secs []*section) {
	head := [6]string{"measure", "median", "min–max", "ratio (min–max) vs", "target", "result"}
	right := [6]bool{false, true, true, false, false, false}
	width := [6]int{}
	for i, h := range head {
		width[i] = utf8.RuneCountInString(h)
	}
	for _, s := range secs {
		for _, l := range s.Lines {
			for i, c := range l.cells() {
				width[i] = max(width[i], utf8.RuneCountInString(c))
			}
		}
	}
	row := func(c [6]string) string {
		var b strings.Builder
		b.WriteString("   ")
		for i, v := range c {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(v))
			if right[i] {
				b.WriteString(pad + v)
			} else {
				b.WriteString(v + pad)
			}
			if i < len(c)-1 {
				b.WriteString("  ")
			}
		}
		return strings.TrimRight(b.String(), " ")
	}
	fmt.Fprintln(w, row(head))
	total := 3 + 2*5
	for _, x := range width {
		total += x
	}
	fmt.Fprintln(w, strings.Repeat("-", total))
	for _, s := range secs {
		fmt.Fprintf(w, "%d. %s\n", s.Row, s.Title)
		switch {
		case s.Skipped != "":
			fmt.Fprintf(w, "   SKIPPED: %s\n", s.Skipped)
		case s.Error != "":
			fmt.Fprintf(w, "   ERROR: %s\n", s.Error)
		}
		for _, l := range s.Lines {
			fmt.Fprintln(w, row(l.cells()))
		}
		for _, n := range s.Notes {
			fmt.Fprintf(w, "   · %s\n", n)
		}
	}
}

// tally counts the targets met and missed.
func tally(secs []*section) (met, missed int) {
	for _, s := range secs {
		for _, l := range s.Lines {
			if l.Pass != nil {
				if *l.Pass {
					met++
				} else {
					missed++
				}
			}
		}
	}
	return met, missed
}
