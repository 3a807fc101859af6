package parser

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// TestReadDirAsOS: readDir lists what os.ReadDir lists (names, order,
// types), for directories, links to them, files, missing paths and a big
// directory; glob matches what filepath.Glob matches.
func TestReadDirAsOS(t *testing.T) {
	root := t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"a/x.go", "a/.hidden", "a/b/y.go", "a/b/z.txt", "c/w.go", "d e/q.go"} {
		mk(p)
	}
	for i := range 700 { // more than one getdents buffer
		mk(filepath.Join("big", "file-with-a-long-name-"+string(rune('a'+i%26))+string(rune('a'+i/26))))
	}
	os.Symlink("a", filepath.Join(root, "link"))
	os.Symlink("missing", filepath.Join(root, "a", "dangling"))
	os.Mkdir(filepath.Join(root, "a", "sub"), 0o755)
	for _, d := range []string{"", "a", "a/b", "big", "link", "a/x.go", "nope", "d e"} {
		dir := filepath.Join(root, d)
		want, wantErr := os.ReadDir(dir)
		got, gotErr := readDir(dir)
		if (wantErr != nil) != (gotErr != nil) || len(got) != len(want) {
			t.Fatalf("%s: %d entries, %v; os: %d, %v", d, len(got), gotErr, len(want), wantErr)
		}
		for i := range want {
			if got[i].Name() != want[i].Name() || got[i].Type() != want[i].Type() || got[i].IsDir() != want[i].IsDir() {
				t.Errorf("%s: entry %d is %s %v, os %s %v", d, i, got[i].Name(), got[i].Type(), want[i].Name(), want[i].Type())
			}
		}
	}
	for _, p := range []string{"*", "a/*", "*/*.go", "a/*/*", "link/*.go", "*/b/*", "a/[xy]*", "nope/*", "a/x.go", "a/missing", "d e/*", "a/.h*", "a/[", "*/",
		"*/x.go", "*/b", "*/b/y.go", "*/dangling", "*/..", "*/.", "*/.hidden", "*/nope", "*/x.go/y", "l*/b/z.txt", "big/*/x"} {
		pat := filepath.Join(root, p)
		want, _ := filepath.Glob(pat)
		var got []string
		glob(pat, func(m string) bool { got = append(got, m); return true })
		if len(want) == 0 {
			want = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("glob %s:\n%q\nfilepath.Glob:\n%q", p, got, want)
		}
	}
}

// glob stops at the first match yield refuses, listing nothing more.
func TestGlobStops(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "b", "c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, d, "f"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var seen []string
	done := glob(filepath.Join(root, "*", "f"), func(m string) bool {
		seen = append(seen, m)
		return len(seen) < 2
	})
	if done || !reflect.DeepEqual(seen, []string{filepath.Join(root, "a", "f"), filepath.Join(root, "b", "f")}) {
		t.Errorf("glob went on after a refusal: %v, %q", done, seen)
	}
}

// TestListDirRemembers: within one analysis a directory is listed once,
// and an entry a listing showed to be a file is answered ENOTDIR without
// opening it; a link, or a path no listing has seen, is read.
func TestListDirRemembers(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d", filepath.Join(root, "ld")); err != nil {
		t.Fatal(err)
	}
	r := &run{stats: statMemo{}}
	first, err := r.listDir(root)
	if err != nil || len(first) != 4 {
		t.Fatalf("first listing: %d entries, %v", len(first), err)
	}
	r.stats.seed(root, first)
	// Changed behind the analysis' back: the analysis keeps judging the
	// listing it made, as it does every lstat it made.
	if err := os.Remove(filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	if again, err := r.listDir(root); err != nil || len(again) != 4 {
		t.Errorf("second listing read the directory again: %d entries, %v", len(again), err)
	}
	// "a" is gone: only the memo can still say it is a file.
	if _, err := r.listDir(filepath.Join(root, "a")); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("a file seen in a listing: %v, want ENOTDIR", err)
	}
	if ents, err := r.listDir(filepath.Join(root, "ld")); err != nil || len(ents) != 0 {
		t.Errorf("a link to an empty directory: %d entries, %v", len(ents), err)
	}
	if _, err := r.listDir(filepath.Join(root, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing path: %v", err)
	}
}
