package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestRealPathAsEvalSymlinks checks the workspace-relative resolver against
// filepath.EvalSymlinks on links, dangling links, missing components and
// files used as directories.
func TestRealPathAsEvalSymlinks(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, nil)
	ws := s.ws
	for _, d := range []string{"a/b", "c"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "a/f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"a/up": "..", "c/out": w.outside, "c/dangle": "nope", "c/tob": "../a/b", "c/abs": filepath.Join(ws, "a")} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range []string{"", "a", "a/b", "a/f", "a/f/x", "a/missing", "a/missing/x", "a/up", "a/up/c/out",
		"c/out", "c/dangle", "c/dangle/x", "c/tob", "c/tob/../f", "c/abs/b", "a/./b", "a//b/"} {
		p := ws + "/" + rel
		want, werr := filepath.EvalSymlinks(p)
		got, gerr := s.realPath(p)
		if got != want || (werr == nil) != (gerr == nil) {
			t.Errorf("%s: got %q, %v; EvalSymlinks %q, %v", rel, got, gerr, want, werr)
		}
		if werr != nil && errors.Is(werr, os.ErrNotExist) != errors.Is(gerr, os.ErrNotExist) {
			t.Errorf("%s: error %v, EvalSymlinks %v", rel, gerr, werr)
		}
	}
	// Outside the workspace it is EvalSymlinks itself.
	if got, err := s.realPath(w.outside); err != nil || got != w.outside {
		t.Errorf("outside: %q, %v", got, err)
	}
}

// TestPathDirMemoSeesChanges: the PATH directory memo answers again when
// the path leads to another directory (a link into the workspace) or to
// none, and its memo of a directory whose mode changes is dropped.
func TestPathDirMemoSeesChanges(t *testing.T) {
	w := newWorld(t)
	s := box(t, w, nil)
	d := filepath.Join(w.outside, "pd")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	first := s.lookDir(d)
	if again := s.lookDir(d); again != first {
		t.Fatalf("memo changed its mind: %+v then %+v", first, again)
	}
	if err := os.Chmod(d, 0o700); err != nil {
		t.Fatal(err)
	}
	if m := s.lookDir(d); m.mode == first.mode {
		t.Errorf("a chmod kept the old memo: %+v", m)
	}
	// A directory in the workspace, put where the first was through a
	// link, makes the lookup bail.
	if err := os.Rename(d, d+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(w.ws, d); err != nil {
		t.Fatal(err)
	}
	if m := s.lookDir(d); !m.bail {
		t.Errorf("a PATH entry now leading into the workspace: %+v", m)
	}
	if err := os.Remove(d); err != nil {
		t.Fatal(err)
	}
	if m := s.lookDir(d); !m.skip || m.bail {
		t.Errorf("a PATH entry that is gone: %+v", m)
	}
}
