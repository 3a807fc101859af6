package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func intp(n int) *int       { return &n }
func int64p(n int64) *int64 { return &n }
func boolp(b bool) *bool    { return &b }

const xssCommand = `echo '<script>alert(1)</script>'`

// mixedCalls is a session of calls of every kind the readers handle.
func mixedCalls() []Record {
	dec := func(id, tool, args, decision string, reasons ...Reason) Record {
		return Record{Kind: KindDecision, ID: id, Tool: tool, Source: "run", Args: json.RawMessage(args),
			Decision: decision, Reasons: reasons, Policy: "sha256:pol"}
	}
	out := func(id, tool string, exit *int, ran bool, sandbox string) Record {
		return Record{Kind: KindOutcome, ID: id, Tool: tool, ExitCode: exit, Ran: boolp(ran), DurationMS: int64p(12),
			OutputBytes: int64p(345), OutputSHA256: "sha256:abc", Sandbox: sandbox}
	}
	long := "echo " + strings.Repeat("x", 100)
	recs := []Record{
		dec("c1", "exec", `{"command":"go test ./..."}`, "allow"),
		out("c1", "exec", intp(0), true, "bwrap"),
		dec("c2", "exec", `{"command":"rm -rf /"}`, "deny", Reason{"exec.rm_root", "removing / is never allowed"}, Reason{"exec.destructive", "destructive"}),
		dec("c3", "read_file", `{"path":"README.md"}`, "allow"),
		out("c3", "read_file", intp(0), true, ""),
		dec("c4", "write_file", `{"path":"out/a.txt","content":{"masked":true,"bytes":5,"sha256":"x"}}`, "ask", Reason{"files.write_outside", "writes outside the workspace"}),
		out("c4", "write_file", intp(0), true, ""),
		dec("c5", "edit_file", `{"path":"/etc/passwd"}`, "deny", Reason{"files.sensitive", "a sensitive file"}),
		dec("c6", "exec", `{"command":"`+strings.ReplaceAll(xssCommand, "'", `\u0027`)+`\nls"}`, "allow"),
		out("c6", "exec", intp(2), true, "none"),
		dec("c7", "exec", `{"command":"`+long+`"}`, "allow"),
		out("c7", "exec", nil, false, "bwrap"),
		dec("c8", "glob", `{"pattern":"**/*.go"}`, "allow"),
		dec("c9", "search", `{"pattern":"TODO","path":"src"}`, "allow"),
		dec("c10", "list_dir", `{"path":"src"}`, "allow"),
		dec("c11", "web_fetch", `{"url":"https://example.com"}`, "deny", Reason{"gate.unknown_tool", "unknown tool"}),
	}
	recs[8].Sandbox = "none"
	recs[2].Sandbox = "none" // denied: it did not run
	recs[5].Approval = "approved"
	return recs
}

// writeRecords appends recs to a new log at path.
func writeRecords(t testing.TB, path string, recs []Record) {
	t.Helper()
	l, err := Open(Options{Path: path, Program: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if _, err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func mixedLog(t testing.TB) string {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	writeRecords(t, p, mixedCalls())
	return p
}

func show(t *testing.T, paths []string, f Filter, asJSON bool) string {
	t.Helper()
	var b bytes.Buffer
	if err := Show(&b, paths, f, asJSON); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestShowTable(t *testing.T) {
	p := mixedLog(t)
	out := show(t, []string{p}, Filter{}, false)
	ls := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if !strings.HasPrefix(ls[0], "TIME ") || !strings.Contains(ls[0], "  SEQ  TOOL") || !strings.HasSuffix(ls[0], "WHAT") {
		t.Errorf("header: %q", ls[0])
	}
	// genesis + 16 records + footer
	if len(ls) != 1+17+1 {
		t.Fatalf("%d lines:\n%s", len(ls), out)
	}
	if want := "11 decisions shown (7 allow, 3 deny, 1 ask)"; ls[len(ls)-1] != want {
		t.Errorf("footer %q, want %q", ls[len(ls)-1], want)
	}
	// Columns line up: WHAT starts at the same offset on every row.
	col := strings.Index(ls[0], "WHAT")
	for _, l := range ls[1 : len(ls)-1] {
		if len(l) < col || l[col-2:col] != "  " || l[col] == ' ' {
			t.Errorf("misaligned row %q", l)
		}
	}
	cells := regexp.MustCompile(`  +`).ReplaceAllString(out, " | ")
	for _, want := range []string{
		"| exec | allow | - | go test ./...\n",
		"| exec | deny | exec.rm_root | rm -rf /\n",
		"| exec | exit 0 | - | 12 ms, 345 bytes of output, sandbox bwrap\n",
		"| exec | exit 2 | - | 12 ms, 345 bytes of output, sandbox none\n",
		"| exec | not run | - |",
		"| read_file | allow | - | README.md\n",
		"| write_file | ask | files.write_outside | out/a.txt\n",
		"| search | allow | - | TODO in src\n",
		"| glob | allow | - | **/*.go\n",
		"| 0 | - | genesis | - | a new log\n",
		"| web_fetch | deny | gate.unknown_tool | {\"url\":\"https://example.com\"}\n",
		"| exec | allow | - | " + xssCommand + "⏎ls\n",
		"| exec | allow | - | echo " + strings.Repeat("x", 74) + "…\n",
	} {
		if !strings.Contains(cells, want) {
			t.Errorf("%q missing from\n%s", want, cells)
		}
	}
	if strings.Contains(out, "x"+strings.Repeat("x", 75)) {
		t.Errorf("a long command was not cut")
	}
	now := time.Now().UTC().Format("2006-01-02 15:")
	if !strings.HasPrefix(ls[1], now[:11]) {
		t.Errorf("time column: %q", ls[1])
	}

	out = show(t, []string{p}, Filter{Decision: "deny"}, false)
	if !strings.HasSuffix(out, "3 decisions shown (0 allow, 3 deny, 0 ask)\n") || strings.Contains(out, "genesis") || strings.Contains(out, "allow ") {
		t.Errorf("deny filter:\n%s", out)
	}
	out = show(t, []string{p}, Filter{Tool: "exec"}, false)
	for _, want := range []string{"exit 0", "exit 2", "not run", "4 decisions shown (3 allow, 1 deny, 0 ask)"} {
		if !strings.Contains(out, want) {
			t.Errorf("tool filter: %q missing from\n%s", want, out)
		}
	}
	if strings.Contains(out, "read_file") || strings.Contains(out, "genesis") {
		t.Errorf("tool filter let others through:\n%s", out)
	}
	out = show(t, []string{p}, Filter{Rule: "exec.destructive"}, false)
	if !strings.Contains(out, "rm -rf /") || !strings.HasSuffix(out, "1 decisions shown (0 allow, 1 deny, 0 ask)\n") {
		t.Errorf("rule filter (a second reason):\n%s", out)
	}
	out = show(t, []string{p}, Filter{Since: time.Now().Add(time.Hour)}, false)
	if !strings.HasSuffix(out, "0 decisions shown (0 allow, 0 deny, 0 ask)\n") || strings.Count(out, "\n") != 2 {
		t.Errorf("since the future:\n%s", out)
	}
	out = show(t, []string{p}, Filter{Since: time.Now().Add(-time.Hour), Until: time.Now().Add(time.Hour)}, false)
	if !strings.HasSuffix(out, "11 decisions shown (7 allow, 3 deny, 1 ask)\n") || strings.Contains(out, "genesis") {
		t.Errorf("the last hour:\n%s", out)
	}
}

func TestShowJSON(t *testing.T) {
	p := mixedLog(t)
	all := lines(t, p)
	if got := show(t, []string{p}, Filter{}, true); got != string(bytes.Join(all, nil)) {
		t.Errorf("unfiltered JSON is not the file")
	}
	// The exec calls that were allowed, and their outcomes, as they are in
	// the file.
	var want []byte
	for _, l := range all {
		if bytes.Contains(l, []byte(`"tool":"exec"`)) && !bytes.Contains(l, []byte(`"id":"c2"`)) {
			want = append(want, l...)
		}
	}
	got := show(t, []string{p}, Filter{Decision: "allow", Tool: "exec"}, true)
	if got != string(want) || strings.Count(got, "\n") != 6 {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestScanStopsAtAForeignLine(t *testing.T) {
	p := mixedLog(t)
	n := len(lines(t, p))
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{\"hello\":\"world\"}\n")
	f.Close()
	var seen int
	err := Scan([]string{p}, Filter{}, func(line int64, file string, r *Record) error {
		seen++
		if line != int64(seen) || file != p {
			t.Errorf("record %d reported at %s:%d", seen, file, line)
		}
		return nil
	})
	if seen != n || err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("%s:%d: not a record", p, n+1)) {
		t.Errorf("saw %d of %d records, err %v", seen, n, err)
	}
	// A partial last line.
	os.WriteFile(p, append(bytes.Join(lines(t, p)[:n], nil), `{"v":1`...), 0o600)
	seen = 0
	err = Scan([]string{p}, Filter{}, func(int64, string, *Record) error { seen++; return nil })
	if seen != n || err == nil || !strings.Contains(err.Error(), fmt.Sprintf(":%d: the last line is partial", n+1)) {
		t.Errorf("torn: saw %d, err %v", seen, err)
	}
	var b bytes.Buffer
	if err := Show(&b, []string{p}, Filter{}, false); err == nil || !strings.Contains(b.String(), "rm -rf") {
		t.Errorf("show on a torn log: %v\n%s", err, b.String())
	}
}

func TestScanAcrossRotatedFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "audit.jsonl")
	l, err := Open(Options{Path: p, MaxBytes: 1500})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		l.Append(Record{Kind: KindDecision, ID: fmt.Sprint(i), Tool: "exec", Args: json.RawMessage(`{"command":"true"}`), Decision: "allow"})
		l.Append(Record{Kind: KindOutcome, ID: fmt.Sprint(i), Tool: "exec", ExitCode: intp(0)})
	}
	l.Close()
	files, _ := filepath.Glob(p + ".*")
	all := append(files, p)
	var seq []int64
	err = Scan(all, Filter{Tool: "exec"}, func(_ int64, _ string, r *Record) error {
		seq = append(seq, r.Seq)
		return nil
	})
	if err != nil || len(seq) != 60 {
		t.Fatalf("%d records, %v", len(seq), err)
	}
	for i := 1; i < len(seq); i++ {
		if seq[i] <= seq[i-1] {
			t.Fatalf("out of order: %v", seq)
		}
	}
}

func report(t *testing.T, paths []string, o ReportOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := Report(&b, paths, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestReportMarkdown(t *testing.T) {
	p := mixedLog(t)
	md := report(t, []string{p}, ReportOptions{Title: "Weekly review"})
	for _, want := range []string{
		"# Weekly review",
		"**The chain is intact: 17 records (11 decisions, 5 outcomes, 0 checkpoints) in 1 file, last seq 16.**",
		"no public key was given",
		"| allow | 7 | 63.6% |",
		"| deny | 3 | 27.3% |",
		"| ask | 1 | 9.1% |",
		"| **total** | **11** | |",
		"Outcomes: 4 calls ran (1 of them failed), 1 were not run.",
		"| `exec` | 4 | 3 | 1 | 0 |",
		"| `web_fetch` | 1 | 0 | 1 | 0 |",
		"| `exec.rm_root` | 1 | 0 | 1 | 0 |",
		"| `exec.destructive` | 1 | 0 | 1 | 0 |",
		"| " + time.Now().UTC().Format(time.DateOnly) + " | 7 | 3 | 1 | 11 |",
		"| `c2` | `exec` | `deny` | `exec.rm_root` | `rm -rf /` |",
		"| `c5` | `edit_file` | `deny` | `files.sensitive` | `/etc/passwd` |",
		"1 calls.",
		"| `c6` | `exec` | `allow` | - | `" + xssCommand + "⏎ls` |",
		"| `c6` | `exec` | `exit 2` |",
		"| `c7` | `exec` | `not run` |",
		"| `" + hostname(t) + "` |",
		"| `test` | 17 |",
		"Period covered: " + time.Now().UTC().Format(time.DateOnly),
	} {
		if !strings.Contains(md, want) {
			t.Errorf("%q missing from\n%s", want, md)
		}
	}
	// The outcome of c6 ran without the sandbox too, but c6 is one call.
	if strings.Count(md, "| `c6` |") != 2 {
		t.Errorf("c6 rows: %d", strings.Count(md, "| `c6` |"))
	}

	// A line that is not a record: the report says where reading stopped.
	foreign := filepath.Join(t.TempDir(), "foreign.jsonl")
	put(t, foreign, append(lines(t, p), []byte("not json\n")))
	md = report(t, []string{foreign}, ReportOptions{})
	if !strings.Contains(md, "**Reading stopped** at `"+foreign+":18: not a record") || !strings.Contains(md, "| **total** | **11** | |") {
		t.Errorf("foreign line:\n%s", md)
	}

	// A tampered copy: one decision edited.
	bad := filepath.Join(t.TempDir(), "tampered.jsonl")
	ls := lines(t, p)
	ls[1] = bytes.Replace(ls[1], []byte(`"decision":"allow"`), []byte(`"decision":"deny"`), 1)
	put(t, bad, ls)
	res := Verify([]string{bad}, VerifyOptions{})
	if res.Problem == nil {
		t.Fatal("the tampered copy verifies")
	}
	md = report(t, []string{bad}, ReportOptions{})
	for _, want := range []string{"**The chain is NOT intact: 1 records verified before the first problem.**", "`" + res.Problem.String() + "`", "| deny | 4 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("tampered: %q missing from\n%s", want, md)
		}
	}
}

func hostname(t *testing.T) string {
	h, _ := os.Hostname()
	return h
}

func TestReportHTML(t *testing.T) {
	p := mixedLog(t)
	page := report(t, []string{p}, ReportOptions{Format: "html", Title: `Review <b>&</b>`})
	if strings.Contains(page, "<script") || strings.Contains(page, "<b>&") {
		t.Errorf("record text reached the page unescaped")
	}
	for _, want := range []string{
		"<!DOCTYPE html>",
		"<title>Review &lt;b&gt;&amp;&lt;/b&gt;</title>",
		"Content-Security-Policy",
		html.EscapeString(xssCommand) + "⏎ls",
		"The chain is intact: 17 records",
		"<svg ", "</svg>", `class="allow"`, `class="deny"`, `class="ask"`,
		">decisions</text>", ">day (UTC)</text>", ">allow</text>", ">deny</text>", ">ask</text>",
		"<b class=\"ok\">7</b>", "<b class=\"bad\">3</b>",
		"<td class=\"c\">exec.rm_root</td><td class=\"n\">1</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("%q missing from the page", want)
		}
	}
	// Self-contained: nothing is loaded.
	for _, bad := range []string{"src=", "href=", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("the page loads something: %q", bad)
		}
	}

	bad := filepath.Join(t.TempDir(), "tampered.jsonl")
	ls := lines(t, p)
	ls[3] = bytes.Replace(ls[3], []byte(`"decision":"deny"`), []byte(`"decision":"allow"`), 1)
	put(t, bad, ls)
	res := Verify([]string{bad}, VerifyOptions{})
	page = report(t, []string{bad}, ReportOptions{Format: "html"})
	if res.Problem == nil || !strings.Contains(page, html.EscapeString(res.Problem.String())) || !strings.Contains(page, "NOT intact") {
		t.Errorf("tampered: problem %v not on the page", res.Problem)
	}
}

// TestReportDays spreads a log over days: the chain is rebuilt as a forger
// would, so it still verifies.
func TestReportDays(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "audit.jsonl")
	writeRecords(t, p, mixedCalls())
	ls := lines(t, p)
	day0 := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	for i := range ls {
		m, _, err := parseLine(bytes.TrimSuffix(ls[i], []byte("\n")))
		if err != nil {
			t.Fatal(err)
		}
		m["time"] = day0.AddDate(0, 0, i/4*2).Format(time.RFC3339Nano)
		c, _ := Canonical(m)
		ls[i] = append(c, '\n')
	}
	rechain(t, ls)
	put(t, p, ls)
	if res := Verify([]string{p}, VerifyOptions{}); res.Problem != nil {
		t.Fatal(res.Problem)
	}
	md := report(t, []string{p}, ReportOptions{})
	for _, want := range []string{"Period covered: 2026-03-01 09:30:00 UTC to 2026-03-09 09:30:00 UTC.",
		"| 2026-03-01 | 1 | 1 | 0 | 2 |", "| 2026-03-03 | 1 | 0 | 1 | 2 |", "| 2026-03-05 | 2 | 1 | 0 | 3 |", "| 2026-03-09 | 0 | 1 | 0 | 1 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("%q missing from\n%s", want, md)
		}
	}
	page := report(t, []string{p}, ReportOptions{Format: "html"})
	// Nine days, zero-filled: nine bars with their tooltips.
	if n := strings.Count(page, "<g><title>"); n != 9 {
		t.Errorf("%d bars", n)
	}
	for _, want := range []string{"<title>2026-03-02: 0 allow, 0 deny, 0 ask</title>", "<title>2026-03-03: 1 allow, 0 deny, 1 ask</title>", ">2026-03-05</text>"} {
		if !strings.Contains(page, want) {
			t.Errorf("%q missing from the chart", want)
		}
	}
}

func TestReportSigned(t *testing.T) {
	dir := t.TempDir()
	pub, _ := GenerateKey(filepath.Join(dir, "k"), filepath.Join(dir, "k.pub"))
	priv, _ := LoadPrivateKey(filepath.Join(dir, "k"))
	p := filepath.Join(dir, "a.jsonl")
	writeLog(t, p, 12, priv, 5)
	md := report(t, []string{p}, ReportOptions{PublicKey: pub})
	if !strings.Contains(md, "3 of 3 checkpoints verified with key "+KeyID(pub)) {
		t.Errorf("signed:\n%s", md)
	}
	if err := Report(&bytes.Buffer{}, []string{p}, ReportOptions{Format: "pdf"}); err == nil {
		t.Error("an unknown format was accepted")
	}
}

func TestExportOCSF(t *testing.T) {
	p := mixedLog(t)
	var b bytes.Buffer
	if err := ExportOCSF(&b, []string{p}, Filter{}); err != nil {
		t.Fatal(err)
	}
	type event struct {
		ClassUID    int    `json:"class_uid"`
		CategoryUID int    `json:"category_uid"`
		ActivityID  int    `json:"activity_id"`
		TypeUID     int    `json:"type_uid"`
		Time        int64  `json:"time"`
		SeverityID  int    `json:"severity_id"`
		Status      string `json:"status"`
		StatusID    int    `json:"status_id"`
		ActionID    int    `json:"action_id"`
		Disposition string `json:"disposition"`
		Message     string `json:"message"`
		Metadata    struct {
			Version string `json:"version"`
			Product struct {
				Name       string `json:"name"`
				VendorName string `json:"vendor_name"`
			} `json:"product"`
			UID      string `json:"uid"`
			Sequence int64  `json:"sequence"`
			LogName  string `json:"log_name"`
		} `json:"metadata"`
		Actor struct {
			User struct {
				Name string `json:"name"`
			} `json:"user"`
		} `json:"actor"`
		Device struct {
			Hostname string `json:"hostname"`
		} `json:"device"`
		Process *struct {
			CmdLine string `json:"cmd_line"`
		} `json:"process"`
		File *struct {
			Path string `json:"path"`
		} `json:"file"`
		API *struct {
			Operation string `json:"operation"`
		} `json:"api"`
		Unmapped struct {
			Toolgate struct {
				Kind    string   `json:"kind"`
				ID      string   `json:"id"`
				Rules   []string `json:"rules"`
				Policy  string   `json:"policy"`
				Sandbox string   `json:"sandbox"`
			} `json:"toolgate"`
		} `json:"unmapped"`
	}
	events := map[string]event{}
	sc := bufio.NewScanner(&b)
	n := 0
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %d: %v: %s", n+1, err, sc.Bytes())
		}
		n++
		events[e.Unmapped.Toolgate.Kind+":"+e.Unmapped.Toolgate.ID] = e
		if e.TypeUID != e.ClassUID*100+e.ActivityID || e.Metadata.Version != "1.1.0" || e.Metadata.Product.Name != "toolgate" ||
			e.Metadata.LogName != p || !strings.HasPrefix(e.Metadata.UID, "sha256:") || e.Time < time.Now().Add(-time.Hour).UnixMilli() {
			t.Errorf("common fields: %s", sc.Bytes())
		}
		if e.Actor.User.Name == "" || e.Device.Hostname != hostname(t) {
			t.Errorf("actor/device: %s", sc.Bytes())
		}
	}
	if n != 16 {
		t.Fatalf("%d events, want 16 (no genesis)", n)
	}
	for _, c := range []struct {
		key                    string
		class, category, typ   int
		severity, status, act  int
		subject, message, rule string
	}{
		{"decision:c1", 1007, 1, 100701, 1, 1, 1, "go test ./...", "exec call: allow", ""},
		{"outcome:c1", 1007, 1, 100701, 1, 1, 1, "go test ./...", "exec call: exit 0", ""},
		{"decision:c2", 1007, 1, 100701, 3, 2, 2, "rm -rf /", "removing / is never allowed", "exec.rm_root"},
		{"decision:c3", 1001, 1, 100102, 1, 1, 1, "README.md", "read_file call: allow", ""},
		{"decision:c4", 1001, 1, 100101, 2, 1, 1, "out/a.txt", "writes outside the workspace", "files.write_outside"},
		{"outcome:c4", 1001, 1, 100101, 2, 1, 1, "out/a.txt", "write_file call: exit 0", ""},
		{"decision:c5", 1001, 1, 100103, 3, 2, 2, "/etc/passwd", "a sensitive file", "files.sensitive"},
		{"outcome:c6", 1007, 1, 100701, 1, 2, 1, xssCommand + "\nls", "exec call: exit 2", ""},
		{"outcome:c7", 1007, 1, 100701, 1, 2, 1, "echo " + strings.Repeat("x", 100), "exec call: not run", ""},
		{"decision:c8", 1001, 1, 100102, 1, 1, 1, "**/*.go", "glob call: allow", ""},
		{"decision:c9", 1001, 1, 100102, 1, 1, 1, "src", "search call: allow", ""},
		{"decision:c10", 1001, 1, 100102, 1, 1, 1, "src", "list_dir call: allow", ""},
		{"decision:c11", 6003, 6, 600399, 3, 2, 2, "web_fetch", "unknown tool", "gate.unknown_tool"},
	} {
		e, ok := events[c.key]
		if !ok {
			t.Errorf("%s: no event", c.key)
			continue
		}
		if e.ClassUID != c.class || e.CategoryUID != c.category || e.TypeUID != c.typ || e.SeverityID != c.severity ||
			e.StatusID != c.status || e.ActionID != c.act || e.Message != c.message {
			t.Errorf("%s: %+v", c.key, e)
		}
		var subject string
		switch {
		case e.Process != nil:
			subject = e.Process.CmdLine
		case e.File != nil:
			subject = e.File.Path
		case e.API != nil:
			subject = e.API.Operation
		}
		if subject != c.subject {
			t.Errorf("%s: subject %q, want %q", c.key, subject, c.subject)
		}
		if c.rule != "" && (len(e.Unmapped.Toolgate.Rules) == 0 || e.Unmapped.Toolgate.Rules[0] != c.rule) {
			t.Errorf("%s: rules %v", c.key, e.Unmapped.Toolgate.Rules)
		}
		if strings.HasPrefix(c.key, "decision") && e.Unmapped.Toolgate.Policy != "sha256:pol" {
			t.Errorf("%s: policy %q", c.key, e.Unmapped.Toolgate.Policy)
		}
	}
	if e := events["decision:c2"]; e.Disposition != "Blocked" || e.Status != "Failure" {
		t.Errorf("a denial: %+v", e)
	}
	if e := events["outcome:c6"]; e.Unmapped.Toolgate.Sandbox != "none" {
		t.Errorf("sandbox not kept: %+v", e)
	}

	// Filtered: the denials only.
	b.Reset()
	if err := ExportOCSF(&b, []string{p}, Filter{Decision: "deny"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "\n"); got != 3 || strings.Count(b.String(), `"severity_id":3`) != 3 {
		t.Errorf("deny filter: %d events\n%s", got, b.String())
	}
}

func TestBoundedMemory(t *testing.T) {
	c := newRecentIDs(3)
	for i := range 10 {
		c.add(fmt.Sprint(i), "v")
	}
	if len(c.m) != 3 || len(c.ring) != 3 {
		t.Errorf("recent ids: %d kept", len(c.m))
	}
	if _, ok := c.get("6"); ok {
		t.Error("an old id was kept")
	}
	if _, ok := c.get("9"); !ok {
		t.Error("a new id was forgotten")
	}
	// Re-adding an id does not let an eviction of its old slot drop it.
	c.add("9", "w")
	c.add("a", "v")
	c.add("b", "v")
	if v, ok := c.get("9"); !ok || v != "w" {
		t.Errorf("re-added id: %q %v", v, ok)
	}
	k := newCounter(2)
	for _, key := range []string{"a", "b", "c", "d", "a"} {
		k.add(key, "deny")
	}
	top, _ := k.top(0)
	if len(top) != 3 || top[0].Key != "a" || top[0].Total != 2 || top[2].Key != overflowKey || top[2].Total != 2 {
		t.Errorf("counter: %+v", top)
	}
}

func TestOneLineAndCut(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\nb\nc":         "a⏎b⏎c",
		"tab\there":         "tab here",
		"\x1b[31mred":       `\x1b[31mred`,
		"rtl\u202eevil":     `rtl\u202eevil`,
		"bad\xffutf8":       `bad\xffutf8`,
		"plain ascii":       "plain ascii",
		"ünïcödé is fine ⏎": "ünïcödé is fine ⏎",
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
	if got := cut("abcdef", 4); got != "abc…" {
		t.Errorf("cut: %q", got)
	}
	if got := cut("äöü", 3); got != "äöü" {
		t.Errorf("cut: %q", got)
	}
	if got := mdCell("a|b`c", 80); got != "``a\\|b`c``" {
		t.Errorf("mdCell: %q", got)
	}
}
