package parser

import (
	"os"
	"path/filepath"
	"reflect"
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
