package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// Repair cuts a torn final line off the log at path — the only damage a
// crashed writer can leave — and appends a repair record saying how many
// bytes it removed and their SHA-256. It refuses any other damage: that is
// evidence, and stays as it is. o configures the log for the repair record
// (o.Path is set to path).
func Repair(path string, o Options) (removed int64, err error) {
	res := Verify([]string{path}, VerifyOptions{})
	if res.Problem == nil {
		return 0, errors.New("the log is intact; nothing to repair")
	}
	if !res.Repairable {
		return 0, fmt.Errorf("refusing to repair: %s (only a torn last line can be repaired)", res.Problem)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return 0, err
	}
	size := st.Size()
	// The torn part is everything after the last newline.
	start := size
	buf := make([]byte, 64<<10)
	for start > 0 {
		n := int64(len(buf))
		if start < n {
			n = start
		}
		if _, err := f.ReadAt(buf[:n], start-n); err != nil && err != io.EOF {
			unix.Flock(int(f.Fd()), unix.LOCK_UN)
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			start = start - n + int64(i) + 1
			break
		}
		start -= n
	}
	torn := make([]byte, size-start)
	if _, err := f.ReadAt(torn, start); err != nil && err != io.EOF {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return 0, err
	}
	if len(torn) == 0 {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return 0, errors.New("the log changed since it was verified; run repair again")
	}
	if err := f.Truncate(start); err != nil {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return 0, err
	}
	if err := f.Sync(); err != nil {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return 0, err
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)

	sum := sha256.Sum256(torn)
	o.Path = path
	l, err := Open(o)
	if err != nil {
		return int64(len(torn)), fmt.Errorf("cut %d bytes but could not record the repair: %w", len(torn), err)
	}
	_, err = l.Append(Record{Kind: KindRepair, RemovedBytes: int64(len(torn)), RemovedSHA256: "sha256:" + hex.EncodeToString(sum[:])})
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	return int64(len(torn)), err
}
