package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/audit"
)

// slowCollector keeps every record it is sent, then takes delay to answer.
type slowCollector struct {
	delay atomic.Int64 // nanoseconds

	mu      sync.Mutex
	lines   []string
	batches int
}

func (c *slowCollector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	body, _ := io.ReadAll(zr)
	var recs []json.RawMessage
	if err := json.Unmarshal(body, &recs); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	for _, rec := range recs {
		c.lines = append(c.lines, string(rec))
	}
	c.batches++
	c.mu.Unlock()
	time.Sleep(time.Duration(c.delay.Load())) // a kill now leaves a batch received but not acknowledged
}

func (c *slowCollector) got() ([]string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines...), c.batches
}

func writeAuditLog(t *testing.T, path string, from, n int, maxBytes int64) {
	t.Helper()
	l, err := audit.Open(audit.Options{Path: path, MaxBytes: maxBytes, Fsync: audit.FsyncNever})
	if err != nil {
		t.Fatal(err)
	}
	for i := from; i < from+n; i++ {
		if _, err := l.Append(audit.Record{Kind: audit.KindDecision, ID: fmt.Sprint("c", i), Tool: "exec", Decision: "allow"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// logLines is every line of the log, rotated files first.
func logLines(t *testing.T, path string) []string {
	t.Helper()
	files, _ := filepath.Glob(path + ".2*")
	sort.Strings(files)
	var out []string
	for _, p := range append(files, path) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	}
	return out
}

// dedup keeps the first copy of each record.
func dedup(lines []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lines {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

func sameRecords(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("the collector has %d distinct records, the log %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("record %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// TestAuditShipKilled kills `toolgate audit ship` (SIGKILL) while a slow
// collector is receiving, restarts it with the same cursor, and expects
// every record at the collector, in order (a batch may come twice).
func TestAuditShipKilled(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	writeAuditLog(t, path, 0, 300, 20000)
	want := logLines(t, path)
	c := &slowCollector{}
	c.delay.Store(int64(40 * time.Millisecond))
	srv := httptest.NewServer(c)
	defer srv.Close()
	cursor := filepath.Join(dir, "ship.cursor")
	args := []string{"audit", "ship", path, "--to", srv.URL, "--cursor", cursor, "--batch", "7"}

	cmd := toolgateCmd(args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, n := c.got(); n >= 6 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the collector got too little: %s", errb.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if got, _ := c.got(); len(got) >= len(want) {
		t.Fatalf("ship finished before it was killed (%d of %d records)", len(got), len(want))
	}
	if _, err := os.Stat(cursor); err != nil {
		t.Fatalf("no cursor after the first batches: %v", err)
	}

	c.delay.Store(0)
	out, err := toolgateCmd(args...).CombinedOutput()
	if err != nil {
		t.Fatalf("restart: %v\n%s", err, out)
	}
	got, _ := c.got()
	sameRecords(t, dedup(got), want)
	// Resent records are only ever a tail of what came before the restart.
	if len(got)-len(want) > 7 {
		t.Errorf("%d records sent twice, more than a batch", len(got)-len(want))
	}
}

// TestAuditShipFollow runs `toolgate audit ship --follow` and appends
// records, across rotations, after it started.
func TestAuditShipFollow(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	writeAuditLog(t, path, 0, 5, 3000)
	c := &slowCollector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	cmd := toolgateCmd("audit", "ship", path, "--to", srv.URL, "--follow", "--interval", "10ms", "--cursor", filepath.Join(dir, "cur"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	for i := 1; i <= 4; i++ {
		time.Sleep(30 * time.Millisecond)
		writeAuditLog(t, path, i*20, 20, 3000)
	}
	want := logLines(t, path)
	if files, _ := filepath.Glob(path + ".2*"); len(files) < 2 {
		t.Fatalf("%d rotations", len(files))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, _ := c.got()
		if len(got) >= len(want) {
			sameRecords(t, got, want)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the collector has %d of %d records", len(got), len(want))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAuditShipErrors: an unreachable collector and a cursor that does not
// match the log end ship with an error, never silently.
func TestAuditShipErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	writeAuditLog(t, path, 0, 3, 0)
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	_, errs, code := run(t, "", "audit", "ship", path, "--to", srv.URL, "--tries", "2")
	if code != exitError || !strings.Contains(errs, "giving up after 2 tries") {
		t.Errorf("unreachable: exit %d: %s", code, errs)
	}
	cursor := filepath.Join(dir, "cur")
	os.WriteFile(cursor, []byte(`{"genesis":"sha256:00","file":"x","offset":10,"seq":1,"hash":"sha256:00"}`), 0o600)
	c := &slowCollector{}
	ok := httptest.NewServer(c)
	defer ok.Close()
	_, errs, code = run(t, "", "audit", "ship", path, "--to", ok.URL, "--cursor", cursor)
	if code != exitError || !strings.Contains(errs, "cursor does not match the log") {
		t.Errorf("bad cursor: exit %d: %s", code, errs)
	}
	if got, _ := c.got(); len(got) != 0 {
		t.Errorf("%d records sent with a bad cursor", len(got))
	}
	if _, errs, code = run(t, "", "audit", "ship", path); code != exitError || !strings.Contains(errs, "--to") {
		t.Errorf("no --to: exit %d: %s", code, errs)
	}
}
