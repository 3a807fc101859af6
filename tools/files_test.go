package tools

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// newWorkspace creates a workspace holding files (path -> content; a
// content starting with "-> " makes a symlink to the rest) and opens it.
func newWorkspace(t testing.TB, files map[string]string) (*Workspace, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if target, ok := strings.CutPrefix(content, "-> "); ok {
			mustMkdir(t, filepath.Dir(p))
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if strings.HasSuffix(name, "/") {
			mustMkdir(t, p)
			continue
		}
		mustWrite(t, p, content)
	}
	return openTestWorkspace(t, root, false), root
}

// withUmask runs the test with a known umask, so modes can be compared.
func withUmask(t *testing.T, mask int) {
	old := unix.Umask(mask)
	t.Cleanup(func() { unix.Umask(old) })
}

// noTempFiles fails if a temporary file of writeAtomic was left anywhere
// under root.
func noTempFiles(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".toolgate-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func want(t *testing.T, what string, r Result, output string, isError bool) {
	t.Helper()
	if r.Output != output || r.IsError != isError {
		t.Errorf("%s = %q (IsError %v)\nwant %q (IsError %v)", what, r.Output, r.IsError, output, isError)
	}
}

// quickly fails the test if f does not return within a few seconds: the
// tools must never block on a FIFO.
func quickly(t *testing.T, what string, f func() Result) Result {
	t.Helper()
	done := make(chan Result, 1)
	go func() { done <- f() }()
	select {
	case r := <-done:
		return r
	case <-time.After(5 * time.Second):
		t.Fatalf("%s blocked", what)
		return Result{}
	}
}

func TestReadFile(t *testing.T) {
	w, root := newWorkspace(t, map[string]string{
		"a.txt":        "one\ntwo\nthree\n",
		"noeol.txt":    "one\ntwo",
		"empty.txt":    "",
		"bad.txt":      "a\xffb\xc3(c\n",
		"dir/":         "",
		"exact.bin":    strings.Repeat("x", ReadMaxBytes),
		"big.bin":      strings.Repeat("x", ReadMaxBytes+1),
		"crlf.txt":     "a\r\nb\r\n",
		"sub/deep.txt": "deep\n",
	})
	want(t, "whole file", w.ReadFile("a.txt", 0, 0), "one\ntwo\nthree\n", false)
	want(t, "absolute path", w.ReadFile(root+"/sub/deep.txt", 0, 0), "deep\n", false)
	want(t, "missing", w.ReadFile("nope.txt", 0, 0), "Error: File not found: nope.txt", true)
	want(t, "through a file", w.ReadFile("a.txt/x", 0, 0), "Error: File not found: a.txt/x", true)
	want(t, "directory", w.ReadFile("dir", 0, 0), "Error: Not a file: dir", true)
	want(t, "root", w.ReadFile(".", 0, 0), "Error: Not a file: .", true)
	want(t, "too large", w.ReadFile("big.bin", 0, 0),
		"Error: File too large: big.bin is 524289 bytes; read_file reads at most 524288 bytes. Use exec with head, tail or grep to read parts of it.", true)
	if r := w.ReadFile("exact.bin", 0, 0); r.IsError || !r.Truncated {
		t.Errorf("a file of exactly ReadMaxBytes: IsError %v, Truncated %v", r.IsError, r.Truncated)
	}
	want(t, "invalid UTF-8", w.ReadFile("bad.txt", 0, 0), "a\uFFFDb\uFFFD(c\n", false)
	want(t, "empty", w.ReadFile("empty.txt", 0, 0), "", false)
	want(t, "NUL", w.ReadFile("a\x00b", 0, 0), "Error: Path contains a NUL byte", true)
	want(t, "negative offset", w.ReadFile("a.txt", -1, 0), "Error: offset must be at least 1", true)
	want(t, "negative limit", w.ReadFile("a.txt", 0, -1), "Error: limit must be at least 1", true)

	for _, c := range []struct {
		file          string
		offset, limit int
		out           string
		isError       bool
	}{
		{"a.txt", 1, 0, "1\tone\n2\ttwo\n3\tthree", false},
		{"a.txt", 2, 0, "2\ttwo\n3\tthree", false},
		{"a.txt", 0, 1, "1\tone", false},
		{"a.txt", 2, 1, "2\ttwo", false},
		{"a.txt", 3, 5, "3\tthree", false},
		{"a.txt", 1, 3, "1\tone\n2\ttwo\n3\tthree", false},
		{"a.txt", 4, 0, "Error: offset 4 is beyond end of file (3 lines)", true},
		{"a.txt", 10, 2, "Error: offset 10 is beyond end of file (3 lines)", true},
		{"noeol.txt", 2, 0, "2\ttwo", false},
		{"noeol.txt", 3, 0, "Error: offset 3 is beyond end of file (2 lines)", true},
		{"empty.txt", 1, 0, "", false},
		{"empty.txt", 0, 5, "", false},
		{"empty.txt", 2, 0, "Error: offset 2 is beyond end of file (0 lines)", true},
		{"crlf.txt", 2, 1, "2\tb\r", false},
	} {
		want(t, "ReadFile("+c.file+", "+strconv.Itoa(c.offset)+", "+strconv.Itoa(c.limit)+")",
			w.ReadFile(c.file, c.offset, c.limit), c.out, c.isError)
	}
}

func TestReadFileTruncates(t *testing.T) {
	// Runes, not bytes: "é" is two bytes, so the cut must land between runes.
	long := strings.Repeat("é", ReadMaxChars+7)
	w, _ := newWorkspace(t, map[string]string{"long.txt": long, "fits.txt": strings.Repeat("é", ReadMaxChars)})
	r := w.ReadFile("long.txt", 0, 0)
	wantOut := strings.Repeat("é", ReadMaxChars) + "\n\n... (truncated, 7 more chars)"
	if r.Output != wantOut || !r.Truncated || r.IsError {
		t.Errorf("truncated read: %d bytes, Truncated %v, IsError %v; tail %q", len(r.Output), r.Truncated, r.IsError, r.Output[len(r.Output)-40:])
	}
	if r := w.ReadFile("fits.txt", 0, 0); r.Truncated || r.Output != strings.Repeat("é", ReadMaxChars) {
		t.Error("a file of exactly ReadMaxChars runes was cut")
	}
	// The cut applies to the numbered output too.
	r = w.ReadFile("long.txt", 1, 1)
	if !r.Truncated || !strings.HasSuffix(r.Output, "\n\n... (truncated, 9 more chars)") {
		t.Errorf("numbered output: Truncated %v, tail %q", r.Truncated, r.Output[len(r.Output)-40:])
	}
}

func TestFIFONeverBlocks(t *testing.T) {
	bothModes(t, func(t *testing.T, fx *fixture) {
		if err := unix.Mkfifo(filepath.Join(fx.root, "dir", "fifo"), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		if err := os.Symlink("dir/fifo", filepath.Join(fx.root, "fifolink")); err != nil {
			t.Fatal(err)
		}
		w := fx.w
		want(t, "ReadFile(fifo)", quickly(t, "ReadFile", func() Result { return w.ReadFile("dir/fifo", 0, 0) }), "Error: Not a file: dir/fifo", true)
		want(t, "ReadFile(fifolink)", quickly(t, "ReadFile", func() Result { return w.ReadFile("fifolink", 0, 0) }), "Error: Not a file: fifolink", true)
		want(t, "EditFile(fifo)", quickly(t, "EditFile", func() Result { return w.EditFile("dir/fifo", "a", "b") }), "Error: Not a file: dir/fifo", true)
		want(t, "ListDir(fifo)", quickly(t, "ListDir", func() Result { return w.ListDir("dir/fifo") }), "Error: Not a directory: dir/fifo", true)
		want(t, "Search(path=fifo)", quickly(t, "Search", func() Result { return w.Search("x", "dir/fifo", "", 0) }), "No matches found for pattern: x", false)
		want(t, "Search(dir)", quickly(t, "Search", func() Result { return w.Search("inner", "dir", "", 0) }), "dir/inner.txt:1: inner", false)
		want(t, "Glob(fifo)", quickly(t, "Glob", func() Result { return w.Glob("dir/fi*") }), "dir/fifo", false)
		// Writing replaces the FIFO with a file and never opens it.
		want(t, "WriteFile(fifo)", quickly(t, "WriteFile", func() Result { return w.WriteFile("dir/fifo", "x") }),
			"Successfully wrote 1 bytes to "+filepath.Join(fx.root, "dir", "fifo"), false)
	})
}

func TestWriteFile(t *testing.T) {
	withUmask(t, 0o022)
	w, root := newWorkspace(t, map[string]string{"a.txt": "old", "dir/": "", "private.txt": "secret"})
	if err := os.Chmod(filepath.Join(root, "private.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	want(t, "new nested file", w.WriteFile("x/y/z.txt", "hello"), "Successfully wrote 5 bytes to "+root+"/x/y/z.txt", false)
	if got := mustRead(t, filepath.Join(root, "x/y/z.txt")); got != "hello" {
		t.Errorf("x/y/z.txt holds %q", got)
	}
	for _, d := range []string{"x", "x/y"} {
		if fi, err := os.Stat(filepath.Join(root, d)); err != nil || fi.Mode().Perm() != 0o755 || !fi.IsDir() {
			t.Errorf("%s: %v, %v; want a 0755 directory", d, fi, err)
		}
	}
	if fi, _ := os.Stat(filepath.Join(root, "x/y/z.txt")); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, want 0644", fi.Mode().Perm())
	}
	want(t, "bytes, not runes", w.WriteFile("u.txt", "héllo"), "Successfully wrote 6 bytes to "+root+"/u.txt", false)
	want(t, "empty", w.WriteFile("empty.txt", ""), "Successfully wrote 0 bytes to "+root+"/empty.txt", false)
	want(t, "cleaned path", w.WriteFile("./dir/../dir//c.txt", "c"), "Successfully wrote 1 bytes to "+root+"/dir/c.txt", false)
	want(t, "absolute path", w.WriteFile(root+"/abs.txt", "a"), "Successfully wrote 1 bytes to "+root+"/abs.txt", false)
	want(t, "replace", w.WriteFile("a.txt", "new"), "Successfully wrote 3 bytes to "+root+"/a.txt", false)
	if got := mustRead(t, filepath.Join(root, "a.txt")); got != "new" {
		t.Errorf("a.txt holds %q", got)
	}
	w.WriteFile("private.txt", "still secret")
	if fi, _ := os.Stat(filepath.Join(root, "private.txt")); fi.Mode().Perm() != 0o600 {
		t.Errorf("replacing private.txt changed its mode to %v", fi.Mode().Perm())
	}
	want(t, "directory", w.WriteFile("dir", "x"), "Error: Is a directory: dir", true)
	want(t, "root", w.WriteFile(".", "x"), "Error: Is a directory: .", true)
	want(t, "parent is a file", w.WriteFile("a.txt/b.txt", "x"), "Error writing file: a.txt/b.txt: not a directory", true)
	noTempFiles(t, root)
}

// TestWriteIsAtomic: a reader running beside a writer sees the old or the
// new content, never a mix or an empty file.
func TestWriteIsAtomic(t *testing.T) {
	w, root := newWorkspace(t, map[string]string{})
	a, b := strings.Repeat("a", 256<<10), strings.Repeat("b", 256<<10)
	w.WriteFile("f.txt", a)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			w.WriteFile("f.txt", []string{a, b}[i%2])
		}
	}()
	for {
		select {
		case <-done:
			noTempFiles(t, root)
			return
		default:
		}
		got := mustRead(t, filepath.Join(root, "f.txt"))
		if got != a && got != b {
			t.Fatalf("a reader saw a partial file of %d bytes", len(got))
		}
	}
}

func TestEditFile(t *testing.T) {
	w, root := newWorkspace(t, map[string]string{
		"a.txt":   "line one\nline two\nline three\nline four\n",
		"run.sh":  "#!/bin/sh\necho hi\n",
		"dup.txt": "x\nx\nx\n",
		"dir/":    "",
		"big.txt": strings.Repeat("x", ReadMaxBytes+1),
		"link":    "-> run.sh",
	})
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o750); err != nil {
		t.Fatal(err)
	}
	want(t, "edit", w.EditFile("a.txt", "line two\n", "line 2\n"), "Successfully edited "+root+"/a.txt", false)
	if got := mustRead(t, filepath.Join(root, "a.txt")); got != "line one\nline 2\nline three\nline four\n" {
		t.Errorf("a.txt holds %q", got)
	}
	want(t, "keep mode", w.EditFile("run.sh", "hi", "bye"), "Successfully edited "+root+"/run.sh", false)
	if fi, _ := os.Stat(filepath.Join(root, "run.sh")); fi.Mode().Perm() != 0o750 {
		t.Errorf("run.sh mode %v after the edit, want 0750", fi.Mode().Perm())
	}
	want(t, "delete", w.EditFile("a.txt", "line one\n", ""), "Successfully edited "+root+"/a.txt", false)
	want(t, "several", w.EditFile("dup.txt", "x", "y"), "Warning: old_text appears 3 times. Please provide more context to make it unique.", true)
	if got := mustRead(t, filepath.Join(root, "dup.txt")); got != "x\nx\nx\n" {
		t.Errorf("dup.txt changed: %q", got)
	}
	want(t, "missing", w.EditFile("nope.txt", "a", "b"), "Error: File not found: nope.txt", true)
	want(t, "directory", w.EditFile("dir", "a", "b"), "Error: Not a file: dir", true)
	want(t, "too large", w.EditFile("big.txt", "x", "y"),
		"Error: File too large: big.txt is 524289 bytes; edit_file edits files of at most 524288 bytes. Use exec to change it.", true)
	want(t, "empty old_text", w.EditFile("a.txt", "", "y"), "Error: old_text must not be empty", true)
	want(t, "no similar text", w.EditFile("a.txt", "something else entirely\n", "y"),
		"Error: old_text not found in a.txt. No similar text found. Verify the file content.", true)
	// Editing through a link replaces the link with the edited file.
	want(t, "through a link", w.EditFile("link", "bye", "ciao"), "Successfully edited "+root+"/link", false)
	if got := mustRead(t, filepath.Join(root, "run.sh")); got != "#!/bin/sh\necho bye\n" {
		t.Errorf("the link target changed: %q", got)
	}
	if fi, _ := os.Lstat(filepath.Join(root, "link")); !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o750 {
		t.Errorf("link after the edit: %v", fi.Mode())
	}
	noTempFiles(t, root)
}

func TestEditBestMatch(t *testing.T) {
	w, _ := newWorkspace(t, map[string]string{
		"f.txt":     "line one\nline two\nline three\nline four\n",
		"one.txt":   "alpha\nbeta\ngamma\n",
		"tie.txt":   "a\nb\nc\nd\na\nb\nc\nd\n",
		"short.txt": "alpha\n",
	})
	want(t, "best match", w.EditFile("f.txt", "line two\nline 3\nline four\n", "x"),
		"Error: old_text not found in f.txt.\nBest match (67% similar) at line 2:\n"+
			"--- old_text (provided)\n"+
			"+++ f.txt (actual, line 2)\n"+
			"@@ -1,3 +2,3 @@\n"+
			" line two\n"+
			"-line 3\n"+
			"+line three\n"+
			" line four", true)
	want(t, "no similar line", w.EditFile("one.txt", "gamma delta", "x"),
		"Error: old_text not found in one.txt. No similar text found. Verify the file content.", true)
	want(t, "half is not enough", w.EditFile("one.txt", "beta\ngama\n", "x"),
		"Error: old_text not found in one.txt. No similar text found. Verify the file content.", true)
	want(t, "first best window wins", w.EditFile("tie.txt", "b\nX\nd\n", "x"),
		"Error: old_text not found in tie.txt.\nBest match (67% similar) at line 2:\n"+
			"--- old_text (provided)\n"+
			"+++ tie.txt (actual, line 2)\n"+
			"@@ -1,3 +2,3 @@\n"+
			" b\n"+
			"-X\n"+
			"+c\n"+
			" d", true)
	want(t, "file shorter than old_text", w.EditFile("one.txt", "alpha\nbeta\ngamma\ndelta\n", "x"),
		"Error: old_text not found in one.txt.\nBest match (86% similar) at line 1:\n"+
			"--- old_text (provided)\n"+
			"+++ one.txt (actual, line 1)\n"+
			"@@ -1,4 +1,3 @@\n"+
			" alpha\n"+
			" beta\n"+
			" gamma\n"+
			"-delta", true)
	want(t, "one-line range", w.EditFile("short.txt", "alpha\nbeta\n", "x"),
		"Error: old_text not found in short.txt.\nBest match (67% similar) at line 1:\n"+
			"--- old_text (provided)\n"+
			"+++ short.txt (actual, line 1)\n"+
			"@@ -1,2 +1 @@\n"+
			" alpha\n"+
			"-beta", true)
}

// TestSimilarityMatchesDifflib checks the ratio and hunk against values
// computed with Python's difflib for the same inputs.
func TestSimilarityMatchesDifflib(t *testing.T) {
	for _, c := range []struct {
		file, old string
		ratio     float64
		start     int
	}{
		{"a\nb\nc\nd\ne\n", "b\nc\nx\n", 4.0 / 6, 0},
		{"a\nb\nc\nd\na\nb\nc\nd\n", "b\nX\nd\n", 4.0 / 6, 1},
		{"alpha\nbeta\ngamma\n", "alpha\nbeta\ngamma\ndelta\n", 6.0 / 7, 0},
		{"a\nb\nc\n", "a\nb\nc\nd\ne\n", 6.0 / 8, 0},
		{"x\ny\n", "q\n", 0, 0},
		{"1\n2\n3\n4\n5\n6\n", "2\n9\n4\n9\n6\n", 6.0 / 10, 1},
	} {
		ratio, start := bestMatch(splitKeepEnds(c.file), splitKeepEnds(c.old))
		if ratio != c.ratio || start != c.start {
			t.Errorf("bestMatch(%q, %q) = %v at %d, want %v at %d", c.file, c.old, ratio, start, c.ratio, c.start)
		}
	}
	// A large old_text stays within the budget and still answers.
	var file, old strings.Builder
	for i := range 3000 {
		file.WriteString("line " + strconv.Itoa(i) + "\n")
		if i >= 1000 && i < 2500 {
			if i%100 == 0 {
				old.WriteString("changed\n")
			} else {
				old.WriteString("line " + strconv.Itoa(i) + "\n")
			}
		}
	}
	ratio, start := bestMatch(splitKeepEnds(file.String()), splitKeepEnds(old.String()))
	if start != 1000 || ratio < 0.98 {
		t.Errorf("large best match = %v at %d", ratio, start)
	}
}

func TestListDir(t *testing.T) {
	bothModes(t, func(t *testing.T, fx *fixture) {
		w := fx.w
		mustMkdir(t, filepath.Join(fx.root, "empty"))
		want(t, "root", w.ListDir("."),
			"📁 deep\n📁 dir\n📁 empty\n📁 inlink\n📄 a.txt\n📄 escape\n📄 escapeabs\n📄 escfile\n📄 infile\n📄 loop", false)
		want(t, "empty root path", w.ListDir(""), w.ListDir(".").Output, false)
		want(t, "subdirectory", w.ListDir("dir"), "📄 back\n📄 inner.txt", false)
		want(t, "empty", w.ListDir("empty"), "Directory empty is empty", false)
		want(t, "missing", w.ListDir("nope"), "Error: Directory not found: nope", true)
		want(t, "file", w.ListDir("a.txt"), "Error: Not a directory: a.txt", true)
		want(t, "link to a file", w.ListDir("infile"), "Error: Not a directory: infile", true)
	})
}

func TestListDirTruncates(t *testing.T) {
	w, root := newWorkspace(t, map[string]string{"d/": ""})
	for i := range 1005 {
		mustWrite(t, filepath.Join(root, "d", "f"+strconv.Itoa(10000+i)), "")
	}
	mustMkdir(t, filepath.Join(root, "d", "zz"))
	r := w.ListDir("d")
	lines := strings.Split(r.Output, "\n")
	if lines[0] != "📁 zz" || lines[1] != "📄 f10000" || lines[999] != "📄 f10998" {
		t.Errorf("first lines %q, line 1000 %q", lines[:2], lines[999])
	}
	if !strings.HasSuffix(r.Output, "📄 f10998\n\n(truncated, showing first 1000 of 1006 entries)") || len(lines) != 1002 {
		t.Errorf("truncated listing has %d lines, tail %q", len(lines), r.Output[len(r.Output)-80:])
	}
}

// searchTree is a workspace for search and glob tests.
func searchTree(t *testing.T) (*Workspace, string) {
	return newWorkspace(t, map[string]string{
		"a.go":           "package a\nfunc A() {}\n",
		"a-b.txt":        "func x\n",
		"a/x.go":         "func X() {}\r\nvar y\n",
		"a/b/y.go":       "package b\nfunc Y() {}\n",
		"a/b/c/z.txt":    "no match here\n",
		".hidden.go":     "func hidden() {}\n",
		".git/HEAD":      "func in git\n",
		"sub/.git/x":     "func in nested git\n",
		"bin.dat":        "func\x00binary\n",
		"late-nul.dat":   strings.Repeat("x", searchSniffBytes) + "\x00func late\n",
		"long.txt":       strings.Repeat("é", 600) + " func\n",
		"lnk.go":         "-> a.go",
		"lnkdir":         "-> a/b",
		"escape":         "-> ..",
		"brace/f1.md":    "func md\n",
		"brace/f2.rst":   "func rst\n",
		"brace/f3.other": "func other\n",
	})
}

func TestSearch(t *testing.T) {
	w, root := searchTree(t)
	long := strings.Repeat("é", 500)
	want(t, "everything", w.Search("func", "", "", 0),
		".hidden.go:1: func hidden() {}\n"+
			"a-b.txt:1: func x\n"+
			"a.go:2: func A() {}\n"+
			"a/b/y.go:2: func Y() {}\n"+
			"a/x.go:1: func X() {}\n"+
			"brace/f1.md:1: func md\n"+
			"brace/f2.rst:1: func rst\n"+
			"brace/f3.other:1: func other\n"+
			"late-nul.dat:1: "+strings.Repeat("x", 500)+"\n"+
			"long.txt:1: "+long, false)
	want(t, "base-name glob", w.Search("func", "", "*.go", 0),
		".hidden.go:1: func hidden() {}\na.go:2: func A() {}\na/b/y.go:2: func Y() {}\na/x.go:1: func X() {}", false)
	want(t, "braces in a base-name glob", w.Search("func", "", "*.{md,rst}", 0),
		"brace/f1.md:1: func md\nbrace/f2.rst:1: func rst", false)
	want(t, "path glob", w.Search("func", "", "a/*.go", 0), "a/x.go:1: func X() {}", false)
	want(t, "path glob with **", w.Search("func", "", "a/**/*.go", 0), "a/b/y.go:2: func Y() {}\na/x.go:1: func X() {}", false)
	want(t, "** never names the file", w.Search("func", "", "a/**", 0), "No matches found for pattern: func", false)
	want(t, "path", w.Search("func", "a/b", "", 0), "a/b/y.go:2: func Y() {}", false)
	want(t, "file path", w.Search("package", "a.go", "", 0), "a.go:1: package a", false)
	want(t, "file path ignores glob", w.Search("package", "a.go", "*.txt", 0), "a.go:1: package a", false)
	want(t, "absolute path", w.Search("package", root+"/a/b", "", 0), "a/b/y.go:1: package b", false)
	want(t, "regexp", w.Search(`^func [A-Z]\(`, "", "", 0), "a.go:2: func A() {}\na/b/y.go:2: func Y() {}\na/x.go:1: func X() {}", false)
	want(t, "limit", w.Search("func", "", "", 2),
		".hidden.go:1: func hidden() {}\na-b.txt:1: func x\n\n(results limited to 2; narrow the search with path or glob)", false)
	want(t, "limit not reached", w.Search("func", "a", "", 2), "a/b/y.go:2: func Y() {}\na/x.go:1: func X() {}", false)
	want(t, "no match", w.Search("zzz", "", "", 0), "No matches found for pattern: zzz", false)
	want(t, "bad regexp", w.Search("(", "", "", 0), "Error: Invalid regex pattern: error parsing regexp: missing closing ): `(`", true)
	want(t, "bad glob", w.Search("x", "", "[", 0), "Error: Invalid glob pattern: [", true)
	want(t, "missing path", w.Search("x", "nope", "", 0), "Error: Path not found: nope", true)
	want(t, "outside glob", w.Search("x", "", "../*/x", 0), "Error: Path ../*/x is outside the workspace", true)
	// A symlink named as the path is followed when it stays inside.
	want(t, "link as path", w.Search("package", "lnkdir", "", 0), "lnkdir/y.go:1: package b", false)
}

func TestSearchDefaultAndCap(t *testing.T) {
	var b strings.Builder
	for i := range 1500 {
		b.WriteString("hit " + strconv.Itoa(i) + "\n")
	}
	w, _ := newWorkspace(t, map[string]string{"many.txt": b.String()})
	r := w.Search("hit", "", "", 0)
	if lines := strings.Split(r.Output, "\n"); len(lines) != SearchMaxResults+2 || lines[SearchMaxResults-1] != "many.txt:200: hit 199" {
		t.Errorf("default: %d lines", len(lines))
	}
	if !strings.HasSuffix(r.Output, "\n\n(results limited to 200; narrow the search with path or glob)") {
		t.Errorf("default limit note missing: %q", r.Output[len(r.Output)-80:])
	}
	r = w.Search("hit", "", "", 5000)
	if !strings.HasSuffix(r.Output, "many.txt:1000: hit 999\n\n(results limited to 1000; narrow the search with path or glob)") {
		t.Errorf("cap: %q", r.Output[len(r.Output)-80:])
	}
}

func TestSearchSkipsLargeFiles(t *testing.T) {
	w, _ := newWorkspace(t, map[string]string{
		"big.txt":   strings.Repeat("x\n", searchMaxFileBytes/2) + "needle\n",
		"small.txt": "needle\n",
	})
	want(t, "large file skipped", w.Search("needle", "", "", 0), "small.txt:1: needle", false)
}

func TestSearchBounds(t *testing.T) {
	w, root := newWorkspace(t, map[string]string{})
	for i := range 30 {
		mustWrite(t, filepath.Join(root, "d"+strconv.Itoa(100+i), "f.txt"), "needle\n")
	}
	defer func(n int, b int64) { walkMaxEntries, searchMaxBytes = n, b }(walkMaxEntries, searchMaxBytes)
	walkMaxEntries = 10
	want(t, "entry bound", w.Search("needle", "", "", 0),
		"d100/f.txt:1: needle\nd101/f.txt:1: needle\nd102/f.txt:1: needle\nd103/f.txt:1: needle\nd104/f.txt:1: needle\n\n"+
			"(search stopped after visiting 10 files and directories; narrow the search with path or glob)", false)
	walkMaxEntries = 100_000
	searchMaxBytes = 3 << 20
	mustWrite(t, filepath.Join(root, "big", "a.txt"), strings.Repeat("y\n", 2<<20))
	mustWrite(t, filepath.Join(root, "big", "b.txt"), strings.Repeat("y\n", 2<<20))
	r := w.Search("needle", "", "", 0)
	if !strings.HasPrefix(r.Output, "No matches found for pattern: needle\n\n(search stopped before reading more than 3 MiB;") {
		t.Errorf("byte bound: %q", r.Output)
	}
}

func TestGlob(t *testing.T) {
	w, _ := searchTree(t)
	for _, c := range []struct{ pattern, out string }{
		{"*.go", ".hidden.go\na.go\nlnk.go"},
		{"**/*.go", ".hidden.go\na.go\na/b/y.go\na/x.go\nlnk.go"},
		{"a/**/*.go", "a/b/y.go\na/x.go"},
		{"**/y.go", "a/b/y.go"},
		{"lnkdir/*", "lnkdir/c\nlnkdir/y.go"},
		{"*/y.go", "lnkdir/y.go"},
		{"*/*/y.go", "a/b/y.go"},
		{"{a,lnkdir}/*.go", "a/x.go\nlnkdir/y.go"},
		{"a/{b/c,x}*", "a/b/c\na/x.go"},
		{"brace/f{1..2}.*", "brace/f1.md\nbrace/f2.rst"},
		{"a/[xy].go", "a/x.go"},
		{"a/?.go", "a/x.go"},
		{"a/b/c/z.txt", "a/b/c/z.txt"},
		{"a/", "a"},
		{"./a/../a.go", "a.go"},
		{"lnkdir", "lnkdir"},
		{"a/**", "a\na/b\na/b/c"},
		{"**/c", "a/b/c"},
		{"escape", "escape"},
		{"escape/*", "No files found matching: escape/*"},
		{"nope*", "No files found matching: nope*"},
		{"nope/x", "No files found matching: nope/x"},
	} {
		want(t, "Glob("+c.pattern+")", w.Glob(c.pattern), c.out, false)
	}
	// "**" alone lists the directories, "." included, and does not go into
	// lnkdir or escape.
	r := w.Glob("**")
	if r.Output != ".\n.git\na\na/b\na/b/c\nbrace\nsub\nsub/.git" {
		t.Errorf("Glob(**) = %q", r.Output)
	}
	want(t, "outside", w.Glob("../ws/*"), "Error: Path ../ws/* is outside the workspace", true)
	want(t, "absolute", w.Glob("/etc/*"), "Error: Path /etc/* is outside the workspace", true)
	want(t, "NUL", w.Glob("a\x00"), "Error: Path contains a NUL byte", true)
}

// TestSearchGlobAgreesWithGlob: search's path glob picks exactly the
// regular files the glob tool lists, outside symlinked directories (which
// search never enters).
func TestSearchGlobAgreesWithGlob(t *testing.T) {
	w, _ := searchTree(t)
	for _, pat := range []string{"a/*.go", "a/**/*.go", "**/*.go", "a/**", "*/b/*", "{a,brace}/**/f*.*", "a/b/**/*", "**/**/*.txt", "brace/f[12].*"} {
		var fromGlob []string
		for _, p := range strings.Split(w.Glob(pat).Output, "\n") {
			fi, err := os.Lstat(filepath.Join(w.Root(), p))
			if err == nil && fi.Mode().IsRegular() && !strings.Contains(p, ".git/") {
				fromGlob = append(fromGlob, p)
			}
		}
		var fromSearch []string
		for _, line := range strings.Split(w.Search("(?s).?", "", pat, 1000).Output, "\n") {
			if p, _, ok := strings.Cut(line, ":"); ok && !slices.Contains(fromSearch, p) && !strings.HasPrefix(line, "No matches") {
				fromSearch = append(fromSearch, p)
			}
		}
		// Binary files are listed by glob but not searched.
		fromGlob = slices.DeleteFunc(fromGlob, func(p string) bool { return p == "bin.dat" || throughLink(w.Root(), p) })
		if !slices.Equal(fromGlob, fromSearch) {
			t.Errorf("pattern %q: glob lists %q, search reads %q", pat, fromGlob, fromSearch)
		}
	}
}

// throughLink reports whether a directory on the way to p is a symlink.
func throughLink(root, p string) bool {
	for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
		if fi, err := os.Lstat(filepath.Join(root, d)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

func TestGlobTruncatesAndBounds(t *testing.T) {
	w, root := newWorkspace(t, map[string]string{"sub/f.txt": ""})
	for i := range 1005 {
		mustWrite(t, filepath.Join(root, "f"+strconv.Itoa(10000+i)+".txt"), "")
	}
	r := w.Glob("*.txt")
	if !strings.HasSuffix(r.Output, "f10999.txt\n\n(truncated, showing first 1000 of 1005 matches)") {
		t.Errorf("tail %q", r.Output[len(r.Output)-80:])
	}
	defer func(n int) { walkMaxEntries = n }(walkMaxEntries)
	walkMaxEntries = 100
	r = w.Glob("**/*.txt")
	if !strings.HasSuffix(r.Output, "\n\n(stopped after reading 100 directory entries; the list may be incomplete, narrow the pattern)") {
		t.Errorf("bounded glob: tail %q", r.Output[max(0, len(r.Output)-120):])
	}
}

// mvdanBraces is the policy analyser's brace expansion (parser/files.go),
// the reference expandBraces must agree with.
func mvdanBraces(p string) []string {
	w := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: p}}}
	if !syntax.SplitBraces(w) {
		return []string{p}
	}
	var out []string
	for x, err := range expand.BracesSeq(nil, w) {
		if err != nil || len(out) >= 64 {
			break
		}
		out = append(out, x.Lit())
	}
	return out
}

var bracePatterns = []string{
	"plain", "a{b,c}d", "{a,b}{c,d}", "{1..3}", "{01..10}", "{a..e}", "{1..10..3}", "{5..1}", "{e..a..2}",
	"{a,b..c}", "{1..2,3}", "{x}", "a{b", "a}b", "\\{a,b}", "{a\\,b,c}", "{a,{b,c}}", "{a{b,c}..x}", "{1..a}",
	"{-3..3}", "{a..z..5}", "x{,y}", "{,}", "{}", "{{a,b},c}{d,e}{f,g}{h,i}{j,k}{l,m}{n,o}", "{1..100}",
	"src/{cmd,internal}/**/*.{go,md}", "{a..b..c}", "{1..2..3..4}", "{1...3}", "{..}", "{a,b}}", "{{a,b}",
	"{-01..3}", "{Z..a}", "{9223372036854775800..9223372036854775801}",
}

// overflows reports patterns whose sequences come near the int64 limits,
// where the shell parser's loop wraps around and expandBraces stops.
func overflows(p string) bool {
	digits := 0
	for _, c := range p {
		if c >= '0' && c <= '9' {
			digits++
			if digits >= 18 {
				return true
			}
		} else {
			digits = 0
		}
	}
	return false
}

func TestExpandBracesMatchesAnalyser(t *testing.T) {
	want := []string{"9223372036854775806", "9223372036854775807"}
	if got := expandBraces("{9223372036854775806..9223372036854775807}"); !slices.Equal(got, want) {
		t.Errorf("a sequence ending at the int64 limit = %q, want %q", got, want)
	}
	for _, p := range bracePatterns {
		if got, want := expandBraces(p), mvdanBraces(p); !slices.Equal(got, want) {
			t.Errorf("expandBraces(%q) = %q, want %q", p, got, want)
		}
	}
}

func FuzzExpandBraces(f *testing.F) {
	for _, p := range bracePatterns {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if len(p) > 64 || overflows(p) {
			return
		}
		if got, want := expandBraces(p), mvdanBraces(p); !slices.Equal(got, want) {
			t.Errorf("expandBraces(%q) = %q, want %q", p, got, want)
		}
	})
}

func TestMatchFilePath(t *testing.T) {
	for _, c := range []struct {
		pat, path string
		ok        bool
	}{
		{"**/*.go", "a.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"a/**/c.go", "a/c.go", true},
		{"a/**/c.go", "a/x/y/c.go", true},
		{"a/**", "a/b.go", false},
		{"**", "a.go", false},
		{"a/*", "a/b/c", false},
		{"a/[b]/c", "a/b/c", true},
		{"a/[]/c", "a/[]/c", true},
		{"**/**/**/x", "a/b/c/d/e/f/x", true},
	} {
		if got := matchFilePath(strings.Split(c.pat, "/"), strings.Split(c.path, "/")); got != c.ok {
			t.Errorf("matchFilePath(%q, %q) = %v", c.pat, c.path, got)
		}
	}
}

// TestPermissionDenied needs a user the kernel checks permissions for. As
// root it runs the checks in a copy of the test binary started as nobody.
func TestPermissionDenied(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	mustWrite(t, filepath.Join(ws, "secret.txt"), "secret\n")
	mustWrite(t, filepath.Join(ws, "locked", "f.txt"), "f\n")
	mustMkdir(t, filepath.Join(ws, "ro"))
	for p, mode := range map[string]os.FileMode{"secret.txt": 0, "locked": 0, "ro": 0o555} {
		if err := os.Chmod(filepath.Join(ws, p), mode); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(ws, "locked"), 0o755) })
	if os.Geteuid() != 0 {
		checkPermissionDenied(t, ws)
		return
	}
	// Let nobody reach the workspace and run a copy of this binary.
	for p := ws; p != "/" && p != "."; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
			if err := os.Chmod(p, fi.Mode().Perm()|0o005); err != nil {
				t.Skipf("cannot open %s to other users: %v", p, err)
			}
			t.Cleanup(func() { os.Chmod(p, fi.Mode().Perm()) })
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	bin := filepath.Join(dir, "tools.test")
	copyFile(t, self, bin)
	cmd := exec.Command(bin, "-test.run", "^TestPermissionDeniedChild$", "-test.count", "1", "-test.v")
	cmd.Env = append(os.Environ(), "TOOLGATE_TEST_PERM_WS="+ws)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil && !bytes.Contains(out, []byte("--- ")) {
		t.Skipf("cannot run the check as nobody: %v\n%s", err, out)
	}
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestPermissionDeniedChild")) {
		t.Fatalf("checks as nobody failed: %v\n%s", err, out)
	}
}

func TestPermissionDeniedChild(t *testing.T) {
	ws := os.Getenv("TOOLGATE_TEST_PERM_WS")
	if ws == "" {
		t.Skip("run by TestPermissionDenied")
	}
	checkPermissionDenied(t, ws)
}

func checkPermissionDenied(t *testing.T, ws string) {
	w := openTestWorkspace(t, ws, false)
	want(t, "ReadFile(secret.txt)", w.ReadFile("secret.txt", 0, 0), "Error: Permission denied: secret.txt", true)
	want(t, "ReadFile(locked/f.txt)", w.ReadFile("locked/f.txt", 0, 0), "Error: Permission denied: locked/f.txt", true)
	want(t, "EditFile(secret.txt)", w.EditFile("secret.txt", "secret", "x"), "Error: Permission denied: secret.txt", true)
	want(t, "ListDir(locked)", w.ListDir("locked"), "Error: Permission denied: locked", true)
	want(t, "WriteFile(ro/x)", w.WriteFile("ro/x.txt", "x"), "Error: Permission denied: ro/x.txt", true)
	want(t, "WriteFile(locked/new/x)", w.WriteFile("locked/new/x.txt", "x"), "Error: Permission denied: locked/new/x.txt", true)
	want(t, "Search(locked)", w.Search("f", "locked", "", 0), "Error: Permission denied: locked", true)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Skip(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
