package audit

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Fsync says when appends reach the disk.
type Fsync string

const (
	// FsyncAlways syncs every record before Append returns: a record a
	// caller was told about survives a crash. The default.
	FsyncAlways Fsync = "always"
	// FsyncBatch syncs at most every batchInterval and on Close.
	FsyncBatch Fsync = "batch"
	// FsyncNever leaves it to the kernel.
	FsyncNever Fsync = "never"
)

// ParseFsync reads an --fsync value.
func ParseFsync(s string) (Fsync, error) {
	switch Fsync(s) {
	case FsyncAlways, FsyncBatch, FsyncNever:
		return Fsync(s), nil
	}
	return "", fmt.Errorf("unknown fsync mode %q (want always, batch or never)", s)
}

const batchInterval = 200 * time.Millisecond

// Options configure a Log.
type Options struct {
	Path  string
	Fsync Fsync
	// MaxBytes rotates the file once it is this large (0: never). The new
	// file's genesis names the old one and continues its chain.
	MaxBytes int64
	// Key signs checkpoints; nil means no checkpoints.
	Key ed25519.PrivateKey
	// CheckpointEvery appends a signed checkpoint after every N records of
	// the log (default 1000); Close appends one too.
	CheckpointEvery int64
	// Program names the writer ("toolgate check", …).
	Program string
}

// ErrTorn is returned when the log ends in a partial line: a writer died in
// the middle of a write. Nothing is appended after it until `toolgate audit
// repair` cuts it off, so the damage stays visible.
var ErrTorn = errors.New("the audit log ends in a torn (partial) line; run 'toolgate audit repair' on it")

// Log appends records to an audit file shared with other processes.
type Log struct {
	o      Options
	writer Writer

	mu   sync.Mutex
	f    *os.File
	ino  uint64
	size int64 // file size after our last write (-1: unknown)
	seq  int64 // seq and hash of the last record (valid when size matches)
	hash string

	mine      int64 // records this process appended since its last checkpoint
	dirty     bool  // written but not synced (batch mode)
	lastSync  time.Time
	oldSyncs  int // syncOld's syncs (tests)
	lastCkSeq int64
	closed    bool
	buf       []byte // the line being written, reused
	deferSync bool   // inside AppendAll: sync at the end of the group
	grouped   bool   // inside AppendAll: lines wait in pend for one write
	pend      []byte // sealed lines of a group not yet written
	failed    error  // set when the log can no longer be appended to safely
}

// Open opens (creating it, and its directory, when missing) the log at
// o.Path. A new file starts with a genesis record.
func Open(o Options) (*Log, error) {
	if o.Path == "" {
		return nil, errors.New("audit: no log path")
	}
	if o.Fsync == "" {
		o.Fsync = FsyncAlways
	}
	if _, err := ParseFsync(string(o.Fsync)); err != nil {
		return nil, err
	}
	if o.CheckpointEvery <= 0 {
		o.CheckpointEvery = 1000
	}
	if err := os.MkdirAll(filepath.Dir(o.Path), 0o700); err != nil {
		return nil, fmt.Errorf("audit log directory: %w", err)
	}
	l := &Log{o: o, writer: whoAmI(o.Program), size: -1}
	if err := l.open(); err != nil {
		return nil, err
	}
	// Make sure the file has its genesis now, so an unusable log is found
	// at start-up rather than at the first call.
	if err := l.locked(func() error { return nil }); err != nil {
		l.f.Close()
		return nil, err
	}
	return l, nil
}

func whoAmI(program string) Writer {
	w := Writer{UID: os.Getuid(), PID: os.Getpid(), Program: program}
	w.Host, _ = os.Hostname()
	if u, err := user.Current(); err == nil {
		w.User = u.Username
	} else {
		w.User = strconv.Itoa(w.UID)
	}
	return w
}

func (l *Log) open() error {
	f, err := os.OpenFile(l.o.Path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return err
	}
	if l.f != nil {
		// Another writer rotated the file: what this one wrote to it and
		// did not sync yet is synced before it is let go.
		if err := l.syncOld(); err != nil {
			f.Close()
			return err
		}
		l.f.Close()
	}
	l.f, l.ino, l.size = f, st.Ino, -1
	return nil
}

// syncOld syncs the current file if it holds records not synced yet
// (dirty): before it is rotated away or another writer's rotation makes
// this one open the new file, whose fsyncs would not cover them.
func (l *Log) syncOld() error {
	if !l.dirty {
		return nil
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("audit log fsync: %w", err)
	}
	l.dirty = false
	l.oldSyncs++
	return nil
}

// locked runs fn holding the file lock, with l.seq and l.hash describing
// the file's last record (a genesis is written first into an empty file).
// The file is reopened when another writer rotated it away.
func (l *Log) locked(fn func() error) error {
	for range 16 {
		if err := unix.Flock(int(l.f.Fd()), unix.LOCK_EX); err != nil {
			return fmt.Errorf("audit log lock: %w", err)
		}
		var st unix.Stat_t
		err := unix.Stat(l.o.Path, &st)
		if err == nil && st.Ino == l.ino {
			err = l.sync()
			if err == nil {
				err = fn()
			}
			unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
			return err
		}
		unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
		// Rotated (or removed) under us: follow the name.
		if err := l.open(); err != nil {
			return err
		}
	}
	return errors.New("audit log keeps being replaced; giving up")
}

// sync brings l.seq/l.hash up to date with the file (under the lock).
func (l *Log) sync() error {
	var st unix.Stat_t
	if err := unix.Fstat(int(l.f.Fd()), &st); err != nil {
		return err
	}
	if st.Size == l.size {
		return nil // nobody wrote since we did
	}
	if st.Size == 0 {
		l.size = 0
		return l.genesis("", ZeroHash, 0)
	}
	last, err := lastLine(l.f, st.Size)
	if err != nil {
		return err
	}
	_, r, err := parseLine(last)
	if err != nil || r == nil || r.Hash == "" {
		return fmt.Errorf("the audit log's last line is not a record (%v); run 'toolgate audit verify' on it", err)
	}
	l.seq, l.hash, l.size = r.Seq, r.Hash, st.Size
	return nil
}

// lastLine returns the last line of f (without its newline), reading
// backwards from size. A file that does not end in a newline is torn.
func lastLine(f *os.File, size int64) ([]byte, error) {
	one := make([]byte, 1)
	if _, err := f.ReadAt(one, size-1); err != nil {
		return nil, err
	}
	if one[0] != '\n' {
		return nil, ErrTorn
	}
	end := size - 1
	var buf []byte
	// A record is a few KB: read that much first, then twice as much each
	// time, so the usual case costs one small read and one small buffer.
	chunk := int64(4 << 10)
	for pos := end; pos > 0; chunk = min(2*chunk, 1<<20) {
		n := chunk
		if pos < n {
			n = pos
		}
		b := make([]byte, n)
		if _, err := f.ReadAt(b, pos-n); err != nil && err != io.EOF {
			return nil, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return append(b[i+1:], buf...), nil
		}
		buf = append(b, buf...)
		pos -= n
		if len(buf) > 64<<20 {
			return nil, errors.New("the audit log's last line is longer than 64 MiB")
		}
	}
	return buf[:end], nil
}

// genesis writes the first record of the file.
func (l *Log) genesis(prevFile, prevHash string, seq int64) error {
	r := &Record{Kind: KindGenesis, PrevFile: prevFile}
	return l.write(r, seq, prevHash)
}

// write seals r as the record after (seq-1, prev) and appends it with one
// write call; under the lock, with l.size the file's size or -1.
func (l *Log) write(r *Record, seq int64, prev string) error {
	r.V = Version
	r.Seq = seq
	r.Time = time.Now().UTC().Format(time.RFC3339Nano)
	r.Prev = prev
	if r.Writer == nil {
		w := l.writer
		r.Writer = &w
	}
	if l.grouped {
		line, err := r.sealAppend(l.pend)
		if err != nil {
			return fmt.Errorf("audit record: %w", err)
		}
		l.pend = line
		l.seq, l.hash = seq, r.Hash
		return nil
	}
	line, err := r.sealAppend(l.buf[:0])
	if err != nil {
		return fmt.Errorf("audit record: %w", err)
	}
	if cap(line) <= 64<<10 {
		l.buf = line[:0] // reused for the next record (a huge one is not kept)
	}
	if err := l.put(line); err != nil {
		return err
	}
	l.seq, l.hash = seq, r.Hash
	return nil
}

// writePending writes the lines a group sealed, with one write call, and
// ends the grouping.
func (l *Log) writePending() error {
	var err error
	if len(l.pend) > 0 {
		err = l.put(l.pend)
	}
	l.dropPending()
	return err
}

// dropPending ends a grouping and empties its buffer (kept for the next
// group unless a huge group grew it).
func (l *Log) dropPending() {
	l.grouped = false
	if l.pend = l.pend[:0]; cap(l.pend) > 1<<20 {
		l.pend = nil
	}
}

// put appends sealed lines to the file with one write call, syncs as the
// mode asks and keeps l.size; under the lock.
func (l *Log) put(line []byte) error {
	n, err := l.f.Write(line)
	if err != nil || n != len(line) {
		l.size = -1
		if err == nil {
			err = io.ErrShortWrite
		}
		return fmt.Errorf("audit log write: %w", err)
	}
	if err := l.flush(false); err != nil {
		return err
	}
	if l.size >= 0 {
		// The file was l.size bytes (callers hold the lock and know) and
		// an O_APPEND write of n bytes made it n longer.
		l.size += int64(n)
	} else {
		var st unix.Stat_t
		if err := unix.Fstat(int(l.f.Fd()), &st); err == nil {
			l.size = st.Size
		}
	}
	return nil
}

func (l *Log) flush(force bool) error {
	if l.deferSync && !force {
		l.dirty = true
		return nil // AppendAll syncs once, at the end of its group
	}
	switch l.o.Fsync {
	case FsyncAlways:
		return l.fsync()
	case FsyncBatch:
		l.dirty = true
		if force || time.Since(l.lastSync) >= batchInterval {
			return l.fsync()
		}
	case FsyncNever:
		if force {
			return nil
		}
	}
	return nil
}

func (l *Log) fsync() error {
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("audit log fsync: %w", err)
	}
	l.dirty, l.lastSync = false, time.Now()
	return nil
}

// Append writes r as the next record of the log and returns it sealed
// (Seq, Time, Prev and Hash set). With FsyncAlways the record is on disk
// when Append returns; an error means the record may not be, and the caller
// must treat the call as not logged.
func (l *Log) Append(r Record) (Record, error) {
	return l.appendOne(r, false)
}

// appendOne is Append; with deferred, the record's own fsync is left for
// what follows (AppendDeferred).
func (l *Log) appendOne(r Record, deferred bool) (Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return r, errors.New("audit log is closed")
	}
	if l.failed != nil {
		return r, l.failed
	}
	err := l.locked(func() error {
		l.deferSync = deferred
		err := l.write(&r, l.seq+1, l.hash)
		l.deferSync = false
		if err != nil {
			return err
		}
		l.mine++
		if l.o.Key != nil && r.Seq%l.o.CheckpointEvery == 0 {
			if err := l.checkpoint(); err != nil {
				return err
			}
		}
		if l.o.MaxBytes > 0 && l.size >= l.o.MaxBytes {
			return l.rotate()
		}
		return nil
	})
	return r, err
}

// AppendDeferred writes r as Append does, but with FsyncAlways it leaves r
// unsynced until the next Append, AppendAll, Sync or Close, whose fsync
// then covers it too: one sync for two records. The caller must call Sync
// (a no-op once a later append synced) before it tells anyone about r.
// A checkpoint or rotation it triggers is synced as usual.
func (l *Log) AppendDeferred(r Record) (Record, error) {
	return l.appendOne(r, l.o.Fsync == FsyncAlways)
}

// Sync puts on disk, with FsyncAlways, what AppendDeferred left unsynced;
// nothing otherwise (FsyncBatch keeps its own schedule).
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || !l.dirty || l.o.Fsync != FsyncAlways {
		return nil
	}
	return l.fsync()
}

// AppendAll writes rs as the next records of the log, in order, under one
// hold of the file lock and (with FsyncAlways) one fsync after the last:
// a group commit. It returns how many records were written; when that is
// less than len(rs) the error says why, and the rest were not logged. With
// FsyncAlways every record written is on disk when AppendAll returns, as
// with Append.
func (l *Log) AppendAll(rs []Record) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0, errors.New("audit log is closed")
	}
	if l.failed != nil {
		return 0, l.failed
	}
	sealed, done := 0, 0 // records sealed; records written and synced as the mode asks
	err := l.locked(func() error {
		l.deferSync = true
		defer func() {
			if len(l.pend) > 0 {
				// Sealed, never written: the chain in memory is ahead of
				// the file; an unknown size has the next hold of the lock
				// read it back from the file.
				l.size = -1
			}
			l.deferSync = false
			l.dropPending()
		}()
		// The group's lines are sealed one after the other and written
		// with one call at its end (or before a rotation): a write call
		// per record cost a stream of calls a few per cent.
		for i := range rs {
			l.grouped = true
			if err := l.write(&rs[i], l.seq+1, l.hash); err != nil {
				return err
			}
			sealed++
			l.mine++
			if l.o.Key != nil && rs[i].Seq%l.o.CheckpointEvery == 0 {
				if err := l.checkpoint(); err != nil {
					return err
				}
			}
			if l.o.MaxBytes > 0 && l.size >= 0 && l.size+int64(len(l.pend)) >= l.o.MaxBytes {
				if err := l.endGroup(); err != nil {
					return err
				}
				done = sealed
				if err := l.rotate(); err != nil {
					return err
				}
			}
		}
		if err := l.endGroup(); err != nil {
			return err
		}
		done = sealed
		return nil
	})
	return done, err
}

// endGroup syncs what a group commit wrote, as its mode asks.
func (l *Log) endGroup() error {
	if err := l.writePending(); err != nil {
		return err
	}
	l.deferSync = false
	err := l.flush(false)
	l.deferSync = true
	return err
}

// checkpoint appends a signed checkpoint over the last record; under the
// lock.
func (l *Log) checkpoint() error {
	cp := &Record{Kind: KindCheckpoint, Count: l.seq, Head: l.hash, KeyID: KeyID(l.o.Key.Public().(ed25519.PublicKey))}
	cp.Sig = sign(l.o.Key, cp.Count, cp.Head)
	if err := l.write(cp, l.seq+1, l.hash); err != nil {
		return err
	}
	l.mine, l.lastCkSeq = 0, l.seq
	return nil
}

// rotate renames the full file aside and puts a new one in its place whose
// genesis continues the chain; under the old file's lock. The new file is
// complete before it appears under the name, so no writer can see it empty.
func (l *Log) rotate() error {
	// What is written to the file rotated away and not yet synced (a
	// deferred record, a batch) goes to disk first: the new file's syncs
	// do not cover it.
	if err := l.syncOld(); err != nil {
		return err
	}
	old := l.o.Path + "." + time.Now().UTC().Format("20060102T150405.000000000Z")
	tmp := l.o.Path + ".new-" + strconv.Itoa(os.Getpid())
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("audit log rotation: %w", err)
	}
	prevSeq, prevHash := l.seq, l.hash
	oldF := l.f
	l.f, l.size = f, 0 // a new, empty file
	// On failure, back to the old file, whose state is then read again.
	undo := func() {
		l.f, l.size = oldF, -1
		f.Close()
		os.Remove(tmp)
	}
	if err := l.genesis(filepath.Base(old), prevHash, prevSeq+1); err != nil {
		undo()
		return err
	}
	if err := l.fsync(); err != nil {
		undo()
		return err
	}
	if err := os.Rename(l.o.Path, old); err != nil {
		undo()
		return fmt.Errorf("audit log rotation: %w", err)
	}
	if err := os.Rename(tmp, l.o.Path); err != nil {
		// Put the old file back so its chain goes on; failing that, stop:
		// a new file at the path would start a new chain unnoticed.
		if rerr := os.Rename(old, l.o.Path); rerr == nil {
			undo()
			return fmt.Errorf("audit log rotation: %w", err)
		}
		l.failed = fmt.Errorf("audit log rotation left the log at %s and could not put it back: %w; nothing more is appended", old, err)
		return l.failed
	}
	syncDir(filepath.Dir(l.o.Path))
	oldF.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err == nil {
		l.ino = st.Ino
	}
	return nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Close appends a final checkpoint (when signing and this process wrote
// records since its last one), syncs and closes the file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	var err error
	if l.o.Key != nil && l.mine > 0 {
		err = l.locked(l.checkpoint)
	}
	if l.dirty || l.o.Fsync == FsyncBatch {
		if e := l.f.Sync(); e != nil && err == nil {
			err = e
		}
	}
	if e := l.f.Close(); e != nil && err == nil {
		err = e
	}
	return err
}

// Path is the file the log writes.
func (l *Log) Path() string { return l.o.Path }

// DefaultPath is where the log goes when no --audit is given:
// $TOOLGATE_AUDIT, else $XDG_STATE_HOME/toolgate/audit.jsonl, else
// ~/.local/state/toolgate/audit.jsonl.
func DefaultPath() (string, error) {
	if p := os.Getenv("TOOLGATE_AUDIT"); p != "" {
		return p, nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "toolgate", "audit.jsonl"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		// No $HOME (a service, a bare environment): the account's home.
		if u, uerr := user.Current(); uerr == nil && u.HomeDir != "" {
			home = u.HomeDir
		} else {
			return "", errors.New("no audit log path: set --audit, TOOLGATE_AUDIT or HOME")
		}
	}
	return filepath.Join(home, ".local", "state", "toolgate", "audit.jsonl"), nil
}
