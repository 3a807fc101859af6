//go:build !toolgate_small

package audit

import (
	"bufio"
	"crypto/ed25519"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ReportOptions tune Report.
type ReportOptions struct {
	// Format is "md" (Markdown, the default) or "html" (one self-contained
	// page with an inline SVG chart, no scripts, no external resources).
	Format string
	// PublicKey, when set, checks the checkpoints' signatures.
	PublicKey ed25519.PublicKey
	// Title heads the report (default "toolgate audit report").
	Title string
}

// Limits of a report: memory stays bounded whatever the size of the log.
const (
	reportDenied    = 200   // denied calls listed
	reportNoSandbox = 200   // calls without the sandbox listed
	reportFailures  = 100   // failures listed
	reportTools     = 50    // tools listed
	reportRules     = 20    // rules listed
	reportWriters   = 100   // writers listed
	maxToolKeys     = 1000  // distinct tools counted one by one
	maxRuleKeys     = 1000  // distinct rules counted one by one
	maxDayKeys      = 10000 // distinct days counted one by one
	maxWriterKeys   = 1000  // distinct writers counted one by one
	maxBars         = 200   // bars in the chart
)

// Report writes a summary of the log for a reviewer: the files and the
// period they cover, whether the chain is intact (Verify), the decisions
// by decision, tool, rule and day, the denied calls, the calls run without
// the sandbox, the failures, and who wrote the records. Record text is
// escaped. A damaged log is not an error: the report says what is wrong and
// summarizes the records that could be read. The error is for bad options
// and failed writes.
func Report(w io.Writer, paths []string, o ReportOptions) error {
	if len(paths) == 0 {
		return errors.New("audit report: no log files")
	}
	format := strings.ToLower(o.Format)
	switch format {
	case "", "md", "markdown":
		format = "md"
	case "html":
	default:
		return fmt.Errorf("audit report: unknown format %q (want md or html)", o.Format)
	}
	d := collect(paths, o)
	bw := bufio.NewWriter(w)
	var err error
	if format == "html" {
		err = reportPage().Execute(bw, d)
	} else {
		writeMarkdown(bw, d)
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

type reportData struct {
	Title     string
	Generated string
	Files     []reportFile
	From, To  string
	Chain     reportChain
	ReadError string

	Records, Decisions, Outcomes, Markers int64
	ByDecision                            tally
	Ran, Failed, NotRun                   int64

	Tools       []keyTally
	ToolsMore   int
	Rules       []keyTally
	RulesMore   int
	Days        []keyTally
	Chart       *barChart
	Writers     []writerRow
	WritersMore int

	Denied         []callRow
	DeniedMore     int64
	NoSandbox      []callRow
	NoSandboxCalls int64
	NoSandboxMore  int64
	Failures       []callRow
	FailuresMore   int64
}

type reportFile struct {
	Path    string
	Bytes   int64
	Records int64
}

type reportChain struct {
	Intact  bool
	Summary string
	Problem string // Problem.String(), when not intact
	Notes   []string
}

type callRow struct {
	Time, ID, Tool, Rule, Result, What string
	Seq                                int64
}

type writerRow struct {
	Host, User, Program string
	Records             int64
}

// collect reads the log once for the counts and lists and runs Verify.
func collect(paths []string, o ReportOptions) *reportData {
	d := &reportData{Title: o.Title, Generated: time.Now().UTC().Format(time.DateTime) + " UTC"}
	if d.Title == "" {
		d.Title = "toolgate audit report"
	}
	perFile := map[string]int64{}
	tools, rules := newCounter(maxToolKeys), newCounter(maxRuleKeys)
	days, writers := newCounter(maxDayKeys), newCounter(maxWriterKeys)
	noSandbox := newRecentIDs(recentCalls)
	var first, last time.Time
	err := Scan(paths, Filter{}, func(_ int64, file string, r *Record) error {
		d.Records++
		perFile[file]++
		t, ok := recordTime(r)
		if ok {
			if first.IsZero() || t.Before(first) {
				first = t
			}
			if t.After(last) {
				last = t
			}
		}
		if r.Writer != nil {
			writers.add(r.Writer.Host+"\x00"+r.Writer.User+"\x00"+r.Writer.Program, "")
		}
		switch r.Kind {
		case KindDecision:
			d.Decisions++
			d.ByDecision.add(r.Decision)
			tools.add(r.Tool, r.Decision)
			seen := map[string]bool{}
			for _, rs := range r.Reasons {
				if !seen[rs.Rule] {
					seen[rs.Rule] = true
					rules.add(rs.Rule, r.Decision)
				}
			}
			day := "(no time)"
			if ok {
				day = t.Format(time.DateOnly)
			}
			days.add(day, r.Decision)
			if r.Decision == "deny" {
				if len(d.Denied) < reportDenied {
					d.Denied = append(d.Denied, row(r))
				} else {
					d.DeniedMore++
				}
			}
		case KindOutcome:
			d.Outcomes++
			switch {
			case r.Ran != nil && !*r.Ran:
				d.NotRun++
			case failed(r):
				d.Ran++
				d.Failed++
			default:
				d.Ran++
			}
			if failed(r) {
				if len(d.Failures) < reportFailures {
					d.Failures = append(d.Failures, row(r))
				} else {
					d.FailuresMore++
				}
			}
		default:
			d.Markers++
		}
		if r.Sandbox == "none" && (r.Kind == KindOutcome || (r.Kind == KindDecision && r.Decision != "deny")) {
			// One row per call: its decision and outcome both say so. A
			// denied call did not run at all.
			if _, dup := noSandbox.get(r.ID); r.ID == "" || !dup {
				if r.ID != "" {
					noSandbox.add(r.ID, "")
				}
				d.NoSandboxCalls++
				if len(d.NoSandbox) < reportNoSandbox {
					d.NoSandbox = append(d.NoSandbox, row(r))
				} else {
					d.NoSandboxMore++
				}
			}
		}
		return nil
	})
	if err != nil {
		d.ReadError = err.Error()
	}
	for _, p := range paths {
		f := reportFile{Path: p, Records: perFile[p], Bytes: -1}
		if st, err := os.Stat(p); err == nil {
			f.Bytes = st.Size()
		}
		d.Files = append(d.Files, f)
	}
	if !first.IsZero() {
		d.From, d.To = first.Format(time.DateTime)+" UTC", last.Format(time.DateTime)+" UTC"
	}
	d.Chain = chainStatus(paths, o.PublicKey)
	d.Tools, d.ToolsMore = tools.top(reportTools)
	d.Rules, d.RulesMore = rules.top(reportRules)
	d.Days = days.sorted()
	d.Chart = dayChart(d.Days)
	ws, more := writers.top(reportWriters)
	d.WritersMore = more
	for _, w := range ws {
		parts := strings.SplitN(w.Key, "\x00", 3)
		for len(parts) < 3 {
			parts = append(parts, "")
		}
		d.Writers = append(d.Writers, writerRow{Host: parts[0], User: parts[1], Program: parts[2], Records: w.Total})
	}
	return d
}

// row is a record's line in a report's tables.
func row(r *Record) callRow {
	c := callRow{Time: showTime(r), ID: r.ID, Tool: r.Tool, Seq: r.Seq, What: "-", Rule: "-"}
	if len(r.Reasons) > 0 && r.Reasons[0].Rule != "" {
		c.Rule = r.Reasons[0].Rule
	}
	switch r.Kind {
	case KindDecision:
		c.Result = r.Decision
		c.What = ShortWhat(r)
	case KindOutcome:
		c.Result = outcomeResult(r)
		c.What = outcomeSummary(r)
	}
	return c
}

func chainStatus(paths []string, pub ed25519.PublicKey) reportChain {
	res := Verify(paths, VerifyOptions{PublicKey: pub})
	if res.Problem != nil {
		c := reportChain{Problem: res.Problem.String(),
			Summary: fmt.Sprintf("NOT intact: %d records verified before the first problem", res.Records)}
		if res.Repairable {
			c.Notes = append(c.Notes, "Only the last line is damaged (a writer died in mid-write); 'toolgate audit repair' cuts it off.")
		}
		c.Notes = append(c.Notes, "The counts below are of the records as they are now in the files: after the problem they cannot be trusted.")
		return c
	}
	files := "files"
	if res.Files == 1 {
		files = "file"
	}
	c := reportChain{Intact: true, Summary: fmt.Sprintf("intact: %d records (%d decisions, %d outcomes, %d checkpoints) in %d %s, last seq %d",
		res.Records, res.Decisions, res.Outcomes, res.Checkpoints, res.Files, files, res.LastSeq)}
	if pub != nil {
		c.Notes = append(c.Notes, fmt.Sprintf("%d of %d checkpoints verified with key %s; %d records after the last verified checkpoint are not covered by a signature yet.",
			res.Verified, res.Checkpoints, KeyID(pub), res.UnsignedTail))
	} else {
		c.Notes = append(c.Notes, fmt.Sprintf("%d checkpoints; their signatures were not checked (no public key was given), so a rewrite of the whole log would go unnoticed.", res.Checkpoints))
	}
	return c
}

func pct(n, total int64) string {
	if total == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(n)/float64(total), 'f', 1, 64) + "%"
}

// The chart: decisions per day (or week, month, year when the log spans
// too many days for one bar each), stacked by decision.

type barChart struct {
	Width, Height                  int
	Unit, XTitle                   string
	Left, Top, Right, Bottom       float64
	Bars                           []chartBar
	YTicks                         []chartTick
	XLabels                        []chartLabel
	Legend                         []chartLegend
	Note                           string
	YTitleX, YTitleY, XTitleX, XTY float64
}

type chartBar struct {
	Title string
	Segs  []chartSeg
}

type chartSeg struct {
	X, Y, W, H float64
	Class      string
}

type chartTick struct {
	Y     float64
	Label string
}

type chartLabel struct {
	X, Y float64
	Text string
}

type chartLegend struct {
	X, Y  float64
	Class string
	Text  string
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

func dayChart(days []keyTally) *barChart {
	byDay := map[time.Time]tally{}
	var lo, hi time.Time
	for _, k := range days {
		t, err := time.Parse(time.DateOnly, k.Key)
		if err != nil {
			continue
		}
		byDay[t] = k.tally
		if lo.IsZero() || t.Before(lo) {
			lo = t
		}
		if t.After(hi) {
			hi = t
		}
	}
	if len(byDay) == 0 {
		return nil
	}
	span := int(hi.Sub(lo).Hours()/24) + 1
	unit := "day"
	switch {
	case span <= 92:
	case span <= 92*7:
		unit = "week"
	case (hi.Year()-lo.Year())*12+int(hi.Month()-lo.Month())+1 <= 92:
		unit = "month"
	default:
		unit = "year"
	}
	start := func(t time.Time) time.Time {
		switch unit {
		case "week":
			return t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
		case "month":
			return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		case "year":
			return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		}
		return t
	}
	next := func(t time.Time) time.Time {
		switch unit {
		case "week":
			return t.AddDate(0, 0, 7)
		case "month":
			return t.AddDate(0, 1, 0)
		case "year":
			return t.AddDate(1, 0, 0)
		}
		return t.AddDate(0, 0, 1)
	}
	label := func(t time.Time) string {
		switch unit {
		case "month":
			return t.Format("2006-01")
		case "year":
			return t.Format("2006")
		}
		return t.Format(time.DateOnly)
	}
	buckets := map[time.Time]tally{}
	for t, n := range byDay {
		b := buckets[start(t)]
		b.Allow += n.Allow
		b.Deny += n.Deny
		b.Ask += n.Ask
		b.Other += n.Other
		b.Total += n.Total
		buckets[start(t)] = b
	}
	var keys []time.Time
	for t := start(lo); !t.After(hi); t = next(t) {
		keys = append(keys, t)
	}
	c := &barChart{Width: 820, Height: 320, Unit: unit, Left: 64, Top: 44, Right: 800, Bottom: 236}
	if len(keys) > maxBars {
		c.Note = fmt.Sprintf("Only the last %d %ss are drawn.", maxBars, unit)
		keys = keys[len(keys)-maxBars:]
	}
	c.XTitle = map[string]string{"day": "day (UTC)", "week": "week starting (UTC)", "month": "month (UTC)", "year": "year (UTC)"}[unit]
	var top int64
	hasOther := false
	for _, k := range keys {
		top = max(top, buckets[k].Total)
		hasOther = hasOther || buckets[k].Other > 0
	}
	step := niceStep(top)
	ymax := ((top + step - 1) / step) * step
	if ymax == 0 {
		ymax = step
	}
	plotH, plotW := c.Bottom-c.Top, c.Right-c.Left
	scale := plotH / float64(ymax)
	for v := int64(0); v <= ymax; v += step {
		c.YTicks = append(c.YTicks, chartTick{Y: round1(c.Bottom - float64(v)*scale), Label: strconv.FormatInt(v, 10)})
	}
	slot := plotW / float64(len(keys))
	bw := min(slot*0.8, 48)
	every := (len(keys) + 15) / 16
	for i, k := range keys {
		b := buckets[k]
		x := c.Left + float64(i)*slot + (slot-bw)/2
		bar := chartBar{Title: fmt.Sprintf("%s: %d allow, %d deny, %d ask", label(k), b.Allow, b.Deny, b.Ask)}
		if b.Other > 0 {
			bar.Title += fmt.Sprintf(", %d other", b.Other)
		}
		y := c.Bottom
		for _, s := range []struct {
			n     int64
			class string
		}{{b.Allow, "allow"}, {b.Deny, "deny"}, {b.Ask, "ask"}, {b.Other, "other"}} {
			if s.n == 0 {
				continue
			}
			h := float64(s.n) * scale
			y -= h
			bar.Segs = append(bar.Segs, chartSeg{X: round1(x), Y: round1(y), W: round1(bw), H: round1(h), Class: s.class})
		}
		c.Bars = append(c.Bars, bar)
		if i%every == 0 {
			c.XLabels = append(c.XLabels, chartLabel{X: round1(x + bw/2), Y: c.Bottom + 14, Text: label(k)})
		}
	}
	c.YTitleX, c.YTitleY = 16, round1(c.Top+plotH/2)
	c.XTitleX, c.XTY = round1(c.Left+plotW/2), float64(c.Height-8)
	lx := c.Left
	for _, l := range []string{"allow", "deny", "ask", "other"} {
		if l == "other" && !hasOther {
			continue
		}
		c.Legend = append(c.Legend, chartLegend{X: lx, Y: 14, Class: l, Text: l})
		lx += 80
	}
	return c
}

// niceStep is a tick step (1, 2 or 5 times a power of ten) giving at most
// about five ticks up to top.
func niceStep(top int64) int64 {
	raw := float64(top) / 5
	step := int64(1)
	for {
		for _, m := range []int64{1, 2, 5} {
			if float64(step*m) >= raw {
				return step * m
			}
		}
		step *= 10
	}
}

// Markdown.

// mdText makes record text safe in Markdown: a code span, so that no
// Markdown or HTML in it is interpreted, on one line; in a table, pipes
// are escaped.
func mdText(s string, width int, inTable bool) string {
	s = cut(oneLine(s), width)
	if s == "" || s == "-" {
		return "-"
	}
	run, longest := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || (strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ")) {
		s = " " + s + " "
	}
	if inTable {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	return fence + s + fence
}

func mdCell(s string, width int) string { return mdText(s, width, true) }

func writeMarkdown(w *bufio.Writer, d *reportData) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# %s\n\nGenerated %s.\n\n", oneLine(d.Title), d.Generated)

	p("## Log\n\n| File | Bytes | Records |\n|---|--:|--:|\n")
	for _, f := range d.Files {
		size := "missing"
		if f.Bytes >= 0 {
			size = strconv.FormatInt(f.Bytes, 10)
		}
		p("| %s | %s | %d |\n", mdCell(f.Path, 200), size, f.Records)
	}
	if d.From != "" {
		p("\nPeriod covered: %s to %s.\n", d.From, d.To)
	} else {
		p("\nPeriod covered: no record has a time.\n")
	}

	p("\n## Chain\n\n")
	if d.Chain.Intact {
		p("**The chain is %s.**\n", d.Chain.Summary)
	} else {
		p("**The chain is %s.** The first problem:\n\n%s\n", d.Chain.Summary, mdText(d.Chain.Problem, 1000, false))
	}
	for _, n := range d.Chain.Notes {
		p("\n%s\n", n)
	}
	if d.ReadError != "" {
		p("\n**Reading stopped** at %s; the records after it are not summarized.\n", mdText(d.ReadError, 1000, false))
	}

	p("\n## Decisions\n\n%d records: %d decisions, %d outcomes, %d others (genesis, checkpoint, repair).\n\n", d.Records, d.Decisions, d.Outcomes, d.Markers)
	p("| Decision | Calls | Share |\n|---|--:|--:|\n")
	t := d.ByDecision
	p("| allow | %d | %s |\n| deny | %d | %s |\n| ask | %d | %s |\n", t.Allow, pct(t.Allow, t.Total), t.Deny, pct(t.Deny, t.Total), t.Ask, pct(t.Ask, t.Total))
	if t.Other > 0 {
		p("| other | %d | %s |\n", t.Other, pct(t.Other, t.Total))
	}
	p("| **total** | **%d** | |\n", t.Total)
	p("\nOutcomes: %d calls ran (%d of them failed), %d were not run.\n", d.Ran, d.Failed, d.NotRun)

	tallyTable := func(name string, rows []keyTally) {
		p("| %s | Total | Allow | Deny | Ask |\n|---|--:|--:|--:|--:|\n", name)
		for _, k := range rows {
			key := mdCell(k.Key, 80)
			if k.Key == overflowKey {
				key = "*(others)*"
			}
			p("| %s | %d | %d | %d | %d |\n", key, k.Total, k.Allow, k.Deny, k.Ask)
		}
	}
	p("\n## By tool\n\n")
	tallyTable("Tool", d.Tools)
	if d.ToolsMore > 0 {
		p("\nand %d more tools.\n", d.ToolsMore)
	}
	p("\n## By rule (top %d)\n\nA decision counts once for each rule among its reasons.\n\n", reportRules)
	tallyTable("Rule", d.Rules)
	if d.RulesMore > 0 {
		p("\nand %d more rules.\n", d.RulesMore)
	}
	p("\n## By day (UTC)\n\n| Day | Allow | Deny | Ask | Total |\n|---|--:|--:|--:|--:|\n")
	for _, k := range d.Days {
		p("| %s | %d | %d | %d | %d |\n", k.Key, k.Allow, k.Deny, k.Ask, k.Total)
	}

	callTable := func(rows []callRow, result string) {
		p("| Time (UTC) | Seq | ID | Tool | %s | Rule | What |\n|---|--:|---|---|---|---|---|\n", result)
		for _, c := range rows {
			p("| %s | %d | %s | %s | %s | %s | %s |\n", c.Time, c.Seq, mdCell(c.ID, 40), mdCell(c.Tool, 40), mdCell(c.Result, 20), mdCell(c.Rule, 60), mdCell(c.What, whatWidth))
		}
	}
	p("\n## Denied calls\n\n")
	if len(d.Denied) == 0 {
		p("None.\n")
	} else {
		callTable(d.Denied, "Decision")
		if d.DeniedMore > 0 {
			p("\nand %d more.\n", d.DeniedMore)
		}
	}
	p("\n## Calls run without the sandbox\n\n")
	if d.NoSandboxCalls == 0 {
		p("None.\n")
	} else {
		p("%d calls.\n\n", d.NoSandboxCalls)
		callTable(d.NoSandbox, "Result")
		if d.NoSandboxMore > 0 {
			p("\nand %d more.\n", d.NoSandboxMore)
		}
	}
	p("\n## Failures\n\nOutcomes with a non-zero exit code, or of calls that did not run.\n\n")
	if len(d.Failures) == 0 {
		p("None.\n")
	} else {
		callTable(d.Failures, "Result")
		if d.FailuresMore > 0 {
			p("\nand %d more.\n", d.FailuresMore)
		}
	}
	p("\n## Writers\n\n| Host | User | Program | Records |\n|---|---|---|--:|\n")
	for _, wr := range d.Writers {
		p("| %s | %s | %s | %d |\n", mdCell(wr.Host, 80), mdCell(wr.User, 80), mdCell(wr.Program, 80), wr.Records)
	}
	if d.WritersMore > 0 {
		p("\nand %d more writers.\n", d.WritersMore)
	}
}

// HTML. html/template escapes every value; the page has no scripts and
// loads nothing, and its Content-Security-Policy forbids both anyway.

var reportFuncs = template.FuncMap{
	"pct":  pct,
	"line": func(s string, width int) string { return cut(oneLine(s), width) },
	"bytes": func(n int64) string {
		if n < 0 {
			return "missing"
		}
		return strconv.FormatInt(n, 10)
	},
}

// reportPage is parsed the first time a report is written, not at every
// start of every toolgate command.
var reportPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(reportFuncs).Parse(reportTemplate))
})

const reportTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1f24; margin: 2em auto; max-width: 1100px; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #d0d7de; padding-bottom: .2em; }
.meta { color: #57606a; }
table { border-collapse: collapse; margin: .6em 0; }
th, td { border: 1px solid #d0d7de; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
code, td.c { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .92em; word-break: break-all; }
.ok { color: #1a7f37; }
.bad { color: #cf222e; }
.status { padding: .6em .9em; border-radius: 6px; border: 1px solid; }
.status.ok { background: #dafbe1; border-color: #1a7f37; }
.status.bad { background: #ffebe9; border-color: #cf222e; }
.cards { display: flex; gap: 1em; flex-wrap: wrap; }
.card { border: 1px solid #d0d7de; border-radius: 6px; padding: .5em 1em; min-width: 7em; }
.card b { display: block; font-size: 1.5em; }
svg { max-width: 100%; height: auto; }
svg text { font: 11px system-ui, sans-serif; fill: #1b1f24; }
svg .grid { stroke: #d0d7de; stroke-width: 1; }
svg .axis { stroke: #57606a; stroke-width: 1; }
.allow { fill: #2da44e; }
.deny { fill: #cf222e; }
.ask { fill: #d4a72c; }
.other { fill: #8c959f; }
.more { color: #57606a; font-style: italic; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="meta">Generated {{.Generated}}.</p>

<h2>Log</h2>
<table>
<tr><th>File</th><th class="n">Bytes</th><th class="n">Records</th></tr>
{{range .Files}}<tr><td class="c">{{line .Path 300}}</td><td class="n">{{bytes .Bytes}}</td><td class="n">{{.Records}}</td></tr>
{{end}}</table>
<p>Period covered: {{if .From}}{{.From}} to {{.To}}{{else}}no record has a time{{end}}.</p>

<h2>Chain</h2>
{{if .Chain.Intact}}<p class="status ok"><strong>The chain is {{.Chain.Summary}}.</strong></p>
{{else}}<p class="status bad"><strong>The chain is {{.Chain.Summary}}.</strong> The first problem:<br><code>{{line .Chain.Problem 2000}}</code></p>
{{end}}{{range .Chain.Notes}}<p>{{.}}</p>
{{end}}{{if .ReadError}}<p class="bad"><strong>Reading stopped</strong> at <code>{{line .ReadError 2000}}</code>; the records after it are not summarized.</p>
{{end}}
<h2>Decisions</h2>
<p>{{.Records}} records: {{.Decisions}} decisions, {{.Outcomes}} outcomes, {{.Markers}} others (genesis, checkpoint, repair).</p>
<div class="cards">
<div class="card">allow<b class="ok">{{.ByDecision.Allow}}</b>{{pct .ByDecision.Allow .ByDecision.Total}}</div>
<div class="card">deny<b class="bad">{{.ByDecision.Deny}}</b>{{pct .ByDecision.Deny .ByDecision.Total}}</div>
<div class="card">ask<b>{{.ByDecision.Ask}}</b>{{pct .ByDecision.Ask .ByDecision.Total}}</div>
{{if .ByDecision.Other}}<div class="card">other<b>{{.ByDecision.Other}}</b>{{pct .ByDecision.Other .ByDecision.Total}}</div>
{{end}}<div class="card">total<b>{{.ByDecision.Total}}</b>decisions</div>
</div>
<p>Outcomes: {{.Ran}} calls ran ({{.Failed}} of them failed), {{.NotRun}} were not run.</p>
{{with .Chart}}{{template "chart" .}}{{end}}

<h2>By day (UTC)</h2>
<table>
<tr><th>Day</th><th class="n">Allow</th><th class="n">Deny</th><th class="n">Ask</th><th class="n">Total</th></tr>
{{range .Days}}<tr><td>{{.Key}}</td><td class="n">{{.Allow}}</td><td class="n">{{.Deny}}</td><td class="n">{{.Ask}}</td><td class="n">{{.Total}}</td></tr>
{{end}}</table>

<h2>By tool</h2>
{{template "tally" .Tools}}{{if .ToolsMore}}<p class="more">and {{.ToolsMore}} more tools.</p>{{end}}

<h2>By rule (top 20)</h2>
<p>A decision counts once for each rule among its reasons.</p>
{{template "tally" .Rules}}{{if .RulesMore}}<p class="more">and {{.RulesMore}} more rules.</p>{{end}}

<h2>Denied calls</h2>
{{if .Denied}}{{template "calls" .Denied}}{{if .DeniedMore}}<p class="more">and {{.DeniedMore}} more.</p>{{end}}{{else}}<p>None.</p>{{end}}

<h2>Calls run without the sandbox</h2>
{{if .NoSandbox}}<p>{{.NoSandboxCalls}} calls.</p>{{template "calls" .NoSandbox}}{{if .NoSandboxMore}}<p class="more">and {{.NoSandboxMore}} more.</p>{{end}}{{else}}<p>None.</p>{{end}}

<h2>Failures</h2>
<p>Outcomes with a non-zero exit code, or of calls that did not run.</p>
{{if .Failures}}{{template "calls" .Failures}}{{if .FailuresMore}}<p class="more">and {{.FailuresMore}} more.</p>{{end}}{{else}}<p>None.</p>{{end}}

<h2>Writers</h2>
<table>
<tr><th>Host</th><th>User</th><th>Program</th><th class="n">Records</th></tr>
{{range .Writers}}<tr><td class="c">{{line .Host 80}}</td><td class="c">{{line .User 80}}</td><td class="c">{{line .Program 80}}</td><td class="n">{{.Records}}</td></tr>
{{end}}</table>
{{if .WritersMore}}<p class="more">and {{.WritersMore}} more writers.</p>{{end}}
</body>
</html>
{{define "tally"}}<table>
<tr><th>Name</th><th class="n">Total</th><th class="n">Allow</th><th class="n">Deny</th><th class="n">Ask</th></tr>
{{range .}}<tr><td class="c">{{line .Key 80}}</td><td class="n">{{.Total}}</td><td class="n">{{.Allow}}</td><td class="n">{{.Deny}}</td><td class="n">{{.Ask}}</td></tr>
{{end}}</table>
{{end}}{{define "calls"}}<table>
<tr><th>Time (UTC)</th><th class="n">Seq</th><th>ID</th><th>Tool</th><th>Result</th><th>Rule</th><th>What</th></tr>
{{range .}}<tr><td>{{.Time}}</td><td class="n">{{.Seq}}</td><td class="c">{{line .ID 40}}</td><td class="c">{{line .Tool 40}}</td><td>{{line .Result 20}}</td><td class="c">{{line .Rule 60}}</td><td class="c">{{.What}}</td></tr>
{{end}}</table>
{{end}}{{define "chart"}}<figure>
<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="Decisions per {{.Unit}}, stacked by decision">
<title>Decisions per {{.Unit}}</title>
{{range .YTicks}}<line class="grid" x1="{{$.Left}}" x2="{{$.Right}}" y1="{{.Y}}" y2="{{.Y}}"/><text x="{{$.Left}}" dx="-6" y="{{.Y}}" dy="4" text-anchor="end">{{.Label}}</text>
{{end}}{{range .Bars}}<g><title>{{.Title}}</title>{{range .Segs}}<rect class="{{.Class}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"/>{{end}}</g>
{{end}}<line class="axis" x1="{{.Left}}" x2="{{.Right}}" y1="{{.Bottom}}" y2="{{.Bottom}}"/>
<line class="axis" x1="{{.Left}}" x2="{{.Left}}" y1="{{.Top}}" y2="{{.Bottom}}"/>
{{range .XLabels}}<text x="{{.X}}" y="{{.Y}}" text-anchor="end" transform="rotate(-40 {{.X}} {{.Y}})">{{.Text}}</text>
{{end}}<text x="{{.YTitleX}}" y="{{.YTitleY}}" text-anchor="middle" transform="rotate(-90 {{.YTitleX}} {{.YTitleY}})">decisions</text>
<text x="{{.XTitleX}}" y="{{.XTY}}" text-anchor="middle">{{.XTitle}}</text>
{{range .Legend}}<rect class="{{.Class}}" x="{{.X}}" y="{{.Y}}" width="12" height="12"/><text x="{{.X}}" dx="16" y="{{.Y}}" dy="10">{{.Text}}</text>
{{end}}</svg>
<figcaption>Decisions per {{.Unit}} (UTC), stacked: allow, deny, ask.{{if .Note}} {{.Note}}{{end}}</figcaption>
</figure>
{{end}}`
