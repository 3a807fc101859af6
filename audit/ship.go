//go:build !toolgate_small

package audit

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// ShipOptions configure a Shipper.
type ShipOptions struct {
	// Path is the log (its current file; rotated files are found through
	// the genesis records' prev_file).
	Path string
	// URL is the collector: every batch is POSTed there.
	URL string
	// Cursor is the file that remembers what was delivered ("" keeps
	// nothing: every run starts at the oldest file of the log).
	Cursor string
	// Batch is the most records a batch holds (default 500); BatchBytes
	// bounds its raw size (default 1 MiB; a larger record goes alone).
	Batch      int
	BatchBytes int
	// Follow keeps tailing the log (and its rotations) after its end.
	Follow bool
	// Interval is how often the end of the log is polled (default 200 ms).
	Interval time.Duration
	// MaxTries gives up on a batch after this many failed posts (0: never).
	MaxTries int
	// MinBackoff and MaxBackoff bound the wait between posts of a batch
	// that failed (defaults 200 ms and 30 s); it doubles each time.
	MinBackoff, MaxBackoff time.Duration
	// Timeout bounds one post (default 30 s).
	Timeout time.Duration
	// Client is the HTTP client (default: one with Timeout).
	Client *http.Client
	// Logf, when set, is told about retries and notable events.
	Logf func(format string, args ...any)
}

// ShipCursor is what the cursor file holds: the file (by the hash of its
// genesis record, which rotation does not change; File is its name when
// last seen), the byte offset after the last delivered record, and that
// record's seq and hash.
type ShipCursor struct {
	Genesis string `json:"genesis"`
	File    string `json:"file"`
	Offset  int64  `json:"offset"`
	Seq     int64  `json:"seq"`
	Hash    string `json:"hash"`
}

// ErrCursorMismatch is returned (wrapped) when the cursor does not describe
// the log: ship never guesses where to go on from.
var ErrCursorMismatch = errors.New("the cursor does not match the log")

// errNotReady: the log (or its first line) is not there yet.
var errNotReady = errors.New("the log has no complete genesis record yet")

// notThere is a log file that does not exist (yet): errNotReady.
type notThere struct{ err error }

func (e notThere) Error() string        { return e.err.Error() }
func (e notThere) Is(target error) bool { return target == errNotReady }

// Shipper sends the records of an audit log, in order and at least once,
// to an HTTP collector as gzip'd JSON arrays of the lines as they are on
// disk. It only reads the log, without locking it.
type Shipper struct {
	o      ShipOptions
	client *http.Client

	f       *os.File
	name    string // f's path when last known
	genesis string // hash of f's genesis record
	off     int64  // offset in f after the last delivered record
	seq     int64  // the last delivered record
	hash    string
	buf     []byte // f's bytes from off on, read but not delivered
	scan    lineScan

	// Records and Batches count what this Shipper delivered.
	Records, Batches int64
}

// NewShipper checks o and fills in the defaults.
func NewShipper(o ShipOptions) (*Shipper, error) {
	if o.Path == "" {
		return nil, errors.New("ship: no log path")
	}
	if o.URL == "" {
		return nil, errors.New("ship: no collector URL")
	}
	if o.Batch <= 0 {
		o.Batch = 500
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = 1 << 20
	}
	if o.Interval <= 0 {
		o.Interval = 200 * time.Millisecond
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 200 * time.Millisecond
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(30*time.Second, o.MinBackoff)
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	c := o.Client
	if c == nil {
		c = &http.Client{Timeout: o.Timeout}
	}
	return &Shipper{o: o, client: c, seq: -1}, nil
}

func (s *Shipper) logf(format string, args ...any) {
	if s.o.Logf != nil {
		s.o.Logf(format, args...)
	}
}

// Cursor is where the shipper stands: after the last delivered record.
func (s *Shipper) Cursor() ShipCursor {
	return ShipCursor{Genesis: s.genesis, File: s.name, Offset: s.off, Seq: s.seq, Hash: s.hash}
}

// Run ships until the end of the log (or, with Follow, until ctx ends).
func (s *Shipper) Run(ctx context.Context) error {
	defer func() {
		if s.f != nil {
			s.f.Close()
			s.f = nil
		}
	}()
	for {
		err := s.start()
		if err == nil {
			break
		}
		if !errors.Is(err, errNotReady) || !s.o.Follow {
			return err
		}
		if err := sleep(ctx, s.o.Interval); err != nil {
			return err
		}
	}
	for {
		lines, end, err := s.collect()
		if err != nil {
			return err
		}
		if len(lines) > 0 {
			if err := s.deliver(ctx, lines, end); err != nil {
				return err
			}
			continue
		}
		moved, err := s.next()
		if err != nil {
			return err
		}
		if moved {
			continue
		}
		if !s.o.Follow {
			if len(s.buf) > 0 {
				s.logf("%s ends in a partial line (%d bytes, a record being written or torn); it was not sent", s.name, len(s.buf))
			}
			return nil
		}
		// A partial line is read again next time: a repair may have cut it
		// off and appended something else.
		s.buf = s.buf[:0]
		if err := sleep(ctx, s.o.Interval); err != nil {
			return err
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// start positions the shipper: after the cursor, or at the start of the
// oldest file of the log.
func (s *Shipper) start() error {
	var cur *ShipCursor
	if s.o.Cursor != "" {
		b, err := os.ReadFile(s.o.Cursor)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return fmt.Errorf("cursor: %w", err)
		default:
			cur = new(ShipCursor)
			if err := json.Unmarshal(b, cur); err != nil || cur.Genesis == "" || cur.Offset < 0 {
				return fmt.Errorf("%w: %s is not a ship cursor (%v)", ErrCursorMismatch, s.o.Cursor, err)
			}
		}
	}
	want := ""
	if cur != nil {
		want = cur.Genesis
	}
	files, err := s.chain(want)
	if err != nil {
		if cur != nil && !errors.Is(err, errNotReady) {
			return fmt.Errorf("%w: %s names the file whose genesis is %s (last seen as %s), but %v", ErrCursorMismatch, s.o.Cursor, cur.Genesis, cur.File, err)
		}
		return err
	}
	first := files[0]
	s.f, s.name, s.genesis = first.f, first.path, first.genesis.Hash
	for _, c := range files[1:] {
		c.f.Close()
	}
	s.off, s.buf, s.seq, s.hash = 0, s.buf[:0], -1, ""
	if cur == nil || cur.Offset == 0 {
		return nil
	}
	// The line that ends at the offset must be the record the cursor names.
	var st unix.Stat_t
	if err := unix.Fstat(int(s.f.Fd()), &st); err != nil {
		return err
	}
	if cur.Offset > st.Size {
		return fmt.Errorf("%w: %s says offset %d in %s, which has only %d bytes", ErrCursorMismatch, s.o.Cursor, cur.Offset, s.name, st.Size)
	}
	line, err := lastLine(s.f, cur.Offset)
	if err != nil {
		return fmt.Errorf("%w: %s says offset %d in %s, which is not the end of a record", ErrCursorMismatch, s.o.Cursor, cur.Offset, s.name)
	}
	r, err := s.fields(line)
	if err != nil || r.Hash != cur.Hash || r.Seq != cur.Seq {
		got := "no record"
		if r != nil {
			got = fmt.Sprintf("seq %d hash %s", r.Seq, r.Hash)
		}
		return fmt.Errorf("%w: at offset %d of %s the log has %s, the cursor %s says seq %d hash %s", ErrCursorMismatch, cur.Offset, s.name, got, s.o.Cursor, cur.Seq, cur.Hash)
	}
	s.off, s.seq, s.hash = cur.Offset, r.Seq, r.Hash
	return nil
}

// fields reads the chain fields of one line.
func (s *Shipper) fields(line []byte) (*Record, error) {
	if scanRecord(line, &s.scan, s.hash) {
		r := s.scan.Rec
		return &r, nil
	}
	_, r, err := chainFields(line)
	return r, err
}

type chainFile struct {
	path    string
	f       *os.File
	genesis *Record
}

// chain walks the log back from its current file through the genesis
// records' prev_file, to the file whose genesis hash is want (or, when want
// is "", to the oldest file there is), and returns the files from that one
// to the current one, in order, open.
func (s *Shipper) chain(want string) ([]chainFile, error) {
	var files []chainFile
	fail := func(err error) ([]chainFile, error) {
		for _, c := range files {
			c.f.Close()
		}
		return nil, err
	}
	dir := filepath.Dir(s.o.Path)
	p := s.o.Path
	for range 1 << 20 {
		f, err := os.Open(p)
		if err != nil {
			if len(files) == 0 {
				if errors.Is(err, os.ErrNotExist) {
					return nil, notThere{err}
				}
				return nil, err
			}
			if want == "" && errors.Is(err, os.ErrNotExist) {
				s.logf("%s (which %s continues) is gone; starting at %s", p, files[0].path, files[0].path)
				return files, nil
			}
			return fail(fmt.Errorf("it is not in the log's rotation chain (%v)", err))
		}
		g, err := firstRecord(f)
		if err != nil {
			f.Close()
			if len(files) == 0 && errors.Is(err, errNotReady) {
				return nil, err
			}
			return fail(fmt.Errorf("%s: %v", p, err))
		}
		files = append([]chainFile{{path: p, f: f, genesis: g}}, files...)
		if want != "" && g.Hash == want {
			return files, nil
		}
		if g.PrevFile == "" {
			if want == "" {
				return files, nil
			}
			return fail(fmt.Errorf("it is not in the log's rotation chain (which starts at %s)", p))
		}
		p = filepath.Join(dir, g.PrevFile)
	}
	return fail(errors.New("the rotation chain is too long"))
}

// firstRecord reads the genesis record at the start of f.
func firstRecord(f *os.File) (*Record, error) {
	var line []byte
	b := make([]byte, 4096)
	for off := int64(0); ; {
		n, err := f.ReadAt(b, off)
		if i := bytes.IndexByte(b[:n], '\n'); i >= 0 {
			line = append(line, b[:i]...)
			break
		}
		line = append(line, b[:n]...)
		off += int64(n)
		if err == io.EOF || n == 0 {
			return nil, errNotReady
		}
		if err != nil {
			return nil, err
		}
		if len(line) > 64<<20 {
			return nil, errors.New("the first line is longer than 64 MiB")
		}
	}
	_, r, err := chainFields(line)
	if err != nil {
		return nil, fmt.Errorf("the first line: %v", err)
	}
	if r.Kind != KindGenesis {
		return nil, fmt.Errorf("the first line is a %s record, not a genesis", r.Kind)
	}
	return r, nil
}

// collect returns the next complete lines of the current file (at most a
// batch, all of them after off) and the offset after the last one. A
// partial last line is left for later.
func (s *Shipper) collect() ([][]byte, int64, error) {
	if err := s.fill(); err != nil {
		return nil, 0, err
	}
	var lines [][]byte
	size, pos := 0, 0
	for len(lines) < s.o.Batch {
		i := bytes.IndexByte(s.buf[pos:], '\n')
		if i < 0 {
			break
		}
		if len(lines) > 0 && size+i > s.o.BatchBytes {
			break
		}
		lines = append(lines, s.buf[pos:pos+i])
		size += i + 1
		pos += i + 1
	}
	return lines, s.off + int64(pos), nil
}

// fill reads what the file has past the bytes already buffered, enough
// for a batch.
func (s *Shipper) fill() error {
	want := s.o.BatchBytes + 64<<10
	for {
		if len(s.buf) >= want && bytes.IndexByte(s.buf, '\n') >= 0 {
			return nil
		}
		if cap(s.buf)-len(s.buf) < 64<<10 {
			nb := make([]byte, len(s.buf), 2*cap(s.buf)+64<<10)
			copy(nb, s.buf)
			s.buf = nb
		}
		n, err := s.f.ReadAt(s.buf[len(s.buf):cap(s.buf)], s.off+int64(len(s.buf)))
		s.buf = s.buf[:len(s.buf)+n]
		if err == io.EOF || n == 0 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if len(s.buf) > 256<<20 && bytes.IndexByte(s.buf, '\n') < 0 {
			return fmt.Errorf("%s: a line longer than 256 MiB at offset %d", s.name, s.off)
		}
	}
}

// deliver posts lines (the records from off to end) until the collector
// takes them, then moves the cursor past them.
func (s *Shipper) deliver(ctx context.Context, lines [][]byte, end int64) error {
	var last *Record
	at := s.off
	for _, line := range lines {
		r, err := s.fields(line)
		if err != nil {
			return fmt.Errorf("%s at offset %d: %v; not sent (run 'toolgate audit verify' on it)", s.name, at, err)
		}
		last = r
		at += int64(len(line)) + 1
	}
	body, err := gzipArray(lines)
	if err != nil {
		return err
	}
	backoff := s.o.MinBackoff
	for try := 1; ; try++ {
		err := s.post(ctx, body)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if s.o.MaxTries > 0 && try >= s.o.MaxTries {
			return fmt.Errorf("collector %s: giving up after %d tries: %v (nothing was skipped: the next run goes on from seq %d)", s.o.URL, try, err, s.seq+1)
		}
		s.logf("collector %s: %v; retrying in %s", s.o.URL, err, backoff)
		if err := sleep(ctx, backoff); err != nil {
			return err
		}
		backoff = min(2*backoff, s.o.MaxBackoff)
	}
	s.buf = s.buf[:copy(s.buf, s.buf[end-s.off:])]
	s.off, s.seq, s.hash = end, last.Seq, last.Hash
	s.Records += int64(len(lines))
	s.Batches++
	return s.saveCursor()
}

// gzipArray is the body of a batch: the lines as a JSON array, gzip'd.
func gzipArray(lines [][]byte) ([]byte, error) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte{'['})
	for i, l := range lines {
		if i > 0 {
			zw.Write([]byte{','})
		}
		zw.Write(l)
	}
	zw.Write([]byte{']'})
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (s *Shipper) post(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.o.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	req.Header.Set("User-Agent", "toolgate-audit-ship")
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("answered %s: %q", resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

// saveCursor writes the cursor atomically: a temporary file, fsync'd, then
// renamed over the old one.
func (s *Shipper) saveCursor() error {
	if s.o.Cursor == "" {
		return nil
	}
	b, err := json.Marshal(s.Cursor())
	if err != nil {
		return err
	}
	tmp := s.o.Cursor + ".tmp-" + strconv.Itoa(os.Getpid())
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("cursor: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.o.Cursor)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cursor: %w", err)
	}
	syncDir(filepath.Dir(s.o.Cursor))
	return nil
}

// next moves to the file after the current one when a rotation put it
// aside and every record of it was delivered; it reports whether it did.
func (s *Shipper) next() (bool, error) {
	var mine, st unix.Stat_t
	if err := unix.Fstat(int(s.f.Fd()), &mine); err != nil {
		return false, err
	}
	err := unix.Stat(s.o.Path, &st)
	if err != nil || (st.Ino == mine.Ino && st.Dev == mine.Dev) {
		return false, nil // still the current file (or none is there now)
	}
	// Rotated: nobody writes the old file once it is renamed, but a record
	// may have been appended after collect looked and before the rename.
	if lines, _, err := s.collect(); err != nil || len(lines) > 0 {
		return err == nil, err
	}
	if len(s.buf) > 0 {
		return false, fmt.Errorf("%s was rotated away with a partial last line (%d bytes); run 'toolgate audit verify' on it", s.name, len(s.buf))
	}
	files, err := s.chain(s.genesis)
	if errors.Is(err, errNotReady) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s no longer continues the file being shipped (genesis %s, %s): %v", s.o.Path, s.genesis, s.name, err)
	}
	files[0].f.Close()
	for _, c := range files[2:] {
		c.f.Close()
	}
	if len(files) < 2 {
		return false, nil
	}
	nf := files[1]
	if nf.genesis.Prev != s.hash || nf.genesis.Seq != s.seq+1 {
		nf.f.Close()
		return false, fmt.Errorf("broken chain: %s does not continue %s (its genesis has prev %s seq %d; the last record was %s seq %d)", nf.path, files[0].path, nf.genesis.Prev, nf.genesis.Seq, s.hash, s.seq)
	}
	s.f.Close()
	s.f, s.name, s.genesis, s.off, s.buf = nf.f, nf.path, nf.genesis.Hash, 0, s.buf[:0]
	return true, nil
}
