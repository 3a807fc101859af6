package audit

import (
	"compress/gzip"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// collector is an HTTP collector on loopback that keeps the records it
// accepted, exactly as they came.
type collector struct {
	t *testing.T

	mu        sync.Mutex
	requests  int
	failFirst int // answer 500 to this many requests first
	lines     []string
	batches   int
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.requests++
	fail := c.requests <= c.failFirst
	c.mu.Unlock()
	if fail {
		http.Error(w, "not now", http.StatusInternalServerError)
		return
	}
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Content-Encoding") != "gzip" {
		c.t.Errorf("request %s, Content-Type %q, Content-Encoding %q", r.Method, r.Header.Get("Content-Type"), r.Header.Get("Content-Encoding"))
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		c.t.Errorf("gzip: %v", err)
		http.Error(w, "bad gzip", http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(zr)
	var recs []json.RawMessage
	if err == nil {
		err = json.Unmarshal(body, &recs)
	}
	if err != nil || len(recs) == 0 {
		c.t.Errorf("body: %v (%d records)", err, len(recs))
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	for _, rec := range recs {
		c.lines = append(c.lines, string(rec))
	}
	c.batches++
	c.mu.Unlock()
}

func (c *collector) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines...)
}

func newCollector(t *testing.T) (*collector, string) {
	c := &collector{t: t}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return c, srv.URL
}

// diskLines is every line of the log, rotated files first.
func diskLines(t *testing.T, path string) []string {
	t.Helper()
	rotated, _ := filepath.Glob(path + ".2*")
	sort.Strings(rotated)
	var out []string
	for _, p := range append(rotated, path) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	}
	return out
}

// checkChain checks that each record's prev is the hash before it.
func checkChain(t *testing.T, lines []string) {
	t.Helper()
	prev := ""
	for i, l := range lines {
		var r struct{ Prev, Hash string }
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if i > 0 && r.Prev != prev {
			t.Fatalf("record %d: prev %s, want %s", i, r.Prev, prev)
		}
		prev = r.Hash
	}
}

func appendN(t *testing.T, l *Log, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		if _, err := l.Append(Record{Kind: KindDecision, ID: fmt.Sprint("call-", i), Tool: "exec", Decision: "allow",
			Args: []byte(`{"command":"echo ` + strings.Repeat("y", i%50) + `"}`)}); err != nil {
			t.Fatal(err)
		}
	}
}

func openLog(t *testing.T, path string, maxBytes int64) *Log {
	t.Helper()
	_, key, _ := ed25519.GenerateKey(nil)
	l, err := Open(Options{Path: path, MaxBytes: maxBytes, Key: key, CheckpointEvery: 7, Fsync: FsyncNever})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func ship(t *testing.T, o ShipOptions) (*Shipper, error) {
	t.Helper()
	o.MinBackoff, o.MaxBackoff = time.Millisecond, 20*time.Millisecond
	if o.Interval == 0 {
		o.Interval = 10 * time.Millisecond
	}
	s, err := NewShipper(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return s, s.Run(ctx)
}

func sameLines(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("collector has %d records, the log %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("record %d differs:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// TestShipAllInOrder: every record of a rotated log arrives, in order,
// byte for byte, checkpoints included; a second run with the cursor sends
// only what was appended since.
func TestShipAllInOrder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	l := openLog(t, path, 3000)
	appendN(t, l, 0, 80)
	c, url := newCollector(t)
	cursor := filepath.Join(dir, "ship.cursor")
	s, err := ship(t, ShipOptions{Path: path, URL: url, Cursor: cursor, Batch: 9})
	if err != nil {
		t.Fatal(err)
	}
	want := diskLines(t, path)
	if rotated, _ := filepath.Glob(path + ".2*"); len(rotated) < 3 {
		t.Fatalf("only %d rotations", len(rotated))
	}
	if !strings.Contains(strings.Join(want, "\n"), `"kind":"checkpoint"`) {
		t.Fatal("no checkpoints in the log")
	}
	sameLines(t, c.got(), want)
	checkChain(t, c.got())
	if s.Records != int64(len(want)) {
		t.Errorf("Records %d, want %d", s.Records, len(want))
	}

	// Nothing new: nothing sent.
	before := c.batches
	if _, err := ship(t, ShipOptions{Path: path, URL: url, Cursor: cursor}); err != nil {
		t.Fatal(err)
	}
	if c.batches != before {
		t.Errorf("a run with nothing new sent %d batches", c.batches-before)
	}
	// More records, across another rotation.
	appendN(t, l, 80, 40)
	l.Close()
	if _, err := ship(t, ShipOptions{Path: path, URL: url, Cursor: cursor, Batch: 5}); err != nil {
		t.Fatal(err)
	}
	want = diskLines(t, path)
	sameLines(t, c.got(), want)
	checkChain(t, c.got())
	if r := Verify(append(rotatedFiles(path), path), VerifyOptions{}); r.Problem != nil {
		t.Fatal(r.Problem)
	}
}

func rotatedFiles(path string) []string {
	r, _ := filepath.Glob(path + ".2*")
	sort.Strings(r)
	return r
}

// TestShipCollectorRecovers: a collector that fails the first requests
// gets every record, in order, once.
func TestShipCollectorRecovers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	l := openLog(t, path, 4000)
	appendN(t, l, 0, 60)
	l.Close()
	c, url := newCollector(t)
	c.failFirst = 5
	if _, err := ship(t, ShipOptions{Path: path, URL: url, Cursor: filepath.Join(dir, "cur"), Batch: 10}); err != nil {
		t.Fatal(err)
	}
	if c.requests <= 5 {
		t.Fatalf("%d requests", c.requests)
	}
	sameLines(t, c.got(), diskLines(t, path))
}

// TestShipGivesUp: without Follow, an unreachable collector is an error
// after MaxTries, and the cursor stays where it was.
func TestShipGivesUp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	l := openLog(t, path, 0)
	appendN(t, l, 0, 5)
	l.Close()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	cursor := filepath.Join(dir, "cur")
	_, err := ship(t, ShipOptions{Path: path, URL: url, Cursor: cursor, MaxTries: 3})
	if err == nil || !strings.Contains(err.Error(), "giving up after 3 tries") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(cursor); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cursor written: %v", err)
	}
}

// TestShipCursorMismatch: a cursor that does not describe the log stops
// ship; it never starts over or skips.
func TestShipCursorMismatch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	l := openLog(t, path, 0)
	appendN(t, l, 0, 5)
	l.Close()
	c, url := newCollector(t)
	cursor := filepath.Join(dir, "cur")
	if _, err := ship(t, ShipOptions{Path: path, URL: url, Cursor: cursor, Batch: 3}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(cursor)
	var good ShipCursor
	if err := json.Unmarshal(b, &good); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(*ShipCursor){
		"hash":    func(c *ShipCursor) { c.Hash = "sha256:" + strings.Repeat("0", 64) },
		"offset":  func(c *ShipCursor) { c.Offset -= 3 },
		"beyond":  func(c *ShipCursor) { c.Offset += 1 << 20 },
		"genesis": func(c *ShipCursor) { c.Genesis = "sha256:" + strings.Repeat("1", 64) },
	} {
		bad := good
		edit(&bad)
		b, _ := json.Marshal(bad)
		os.WriteFile(cursor, b, 0o600)
		n := len(c.got())
		_, err := ship(t, ShipOptions{Path: path, URL: url, Cursor: cursor})
		if !errors.Is(err, ErrCursorMismatch) {
			t.Errorf("%s: err = %v", name, err)
		}
		if len(c.got()) != n {
			t.Errorf("%s: records sent", name)
		}
	}
	os.WriteFile(cursor, []byte("garbage"), 0o600)
	if _, err := ship(t, ShipOptions{Path: path, URL: url, Cursor: cursor}); !errors.Is(err, ErrCursorMismatch) {
		t.Errorf("garbage cursor: err = %v", err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestShipFollow: records appended after the start, across rotations, are
// picked up; a line still being written is sent only once it is complete.
func TestShipFollow(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	l := openLog(t, path, 2500)
	appendN(t, l, 0, 10)
	c, url := newCollector(t)
	s, err := NewShipper(ShipOptions{Path: path, URL: url, Cursor: filepath.Join(dir, "cur"), Follow: true,
		Interval: 5 * time.Millisecond, MinBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	waitFor(t, "the first records", func() bool { return len(c.got()) == len(diskLines(t, path)) })
	for i := 1; i <= 5; i++ {
		appendN(t, l, i*10, 10)
		time.Sleep(10 * time.Millisecond)
	}
	l.Close()
	if len(rotatedFiles(path)) < 2 {
		t.Fatalf("%d rotations", len(rotatedFiles(path)))
	}
	waitFor(t, "every record", func() bool { return len(c.got()) >= len(diskLines(t, path)) })
	sameLines(t, c.got(), diskLines(t, path))

	// A torn line: the next record (made on a copy of the file) is written
	// in two parts; only its completion sends it.
	orig, _ := os.ReadFile(path)
	cp := filepath.Join(dir, "copy.jsonl")
	os.WriteFile(cp, orig, 0o600)
	l2, err := Open(Options{Path: cp, Fsync: FsyncNever})
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, l2, 100, 1)
	l2.Close()
	b, _ := os.ReadFile(cp)
	tail := b[len(orig):]
	whole := len(diskLines(t, path)) + 1
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.Write(tail[:len(tail)-20])
	time.Sleep(50 * time.Millisecond)
	if n := len(c.got()); n != whole-1 {
		t.Fatalf("collector has %d records, want %d (the torn one must wait)", n, whole-1)
	}
	f.Write(tail[len(tail)-20:])
	f.Close()
	waitFor(t, "the completed record", func() bool { return len(c.got()) == whole })
	sameLines(t, c.got(), diskLines(t, path))
	checkChain(t, c.got())
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run: %v", err)
	}
}
