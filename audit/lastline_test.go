package audit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLastLine: the last line is found whatever its length against the
// reads' sizes (4 KiB first, then doubling), including a file of one line.
func TestLastLine(t *testing.T) {
	dir := t.TempDir()
	for _, lens := range [][]int{{10}, {10, 20}, {4095}, {4096}, {4097}, {100, 4096}, {5000, 9000}, {3, 70000}, {300000}, {1, 2, 3}} {
		var content []byte
		for i, n := range lens {
			content = append(content, bytes.Repeat([]byte{byte('a' + i)}, n)...)
			content = append(content, '\n')
		}
		path := filepath.Join(dir, "log")
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := lastLine(f, int64(len(content)))
		f.Close()
		last := len(lens) - 1
		want := bytes.Repeat([]byte{byte('a' + last)}, lens[last])
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("lines of %v: got %d bytes (%v), want %d bytes of %c", lens, len(got), err, len(want), 'a'+last)
		}
	}
	path := filepath.Join(dir, "torn")
	if err := os.WriteFile(path, []byte("a\nb"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := lastLine(f, 3); !errors.Is(err, ErrTorn) {
		t.Errorf("a file without a final newline: %v", err)
	}
}
