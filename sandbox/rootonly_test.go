package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// rootTree builds a tree of owners and modes under a fresh directory and
// returns it with the entries a host-root box must not see.
func rootTree(t *testing.T) (string, []string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root: the tree has files of other owners")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	type entry struct {
		path     string
		dir      bool
		mode     os.FileMode
		uid, gid int
	}
	entries := []entry{
		{"pub", false, 0o644, 0, 0},
		{"secret", false, 0o600, 0, 0},
		{"group-secret", false, 0o640, 1000, 0}, // readable through gid 0
		{"theirs", false, 0o600, 1000, 1000},    // the box cannot read it either
		{"user", true, 0o755, 1000, 1000},       // a user's directory, walked all the same
		{"user/root-key", false, 0o600, 0, 0},
		{"user/deeper", true, 0o755, 1000, 1000},
		{"user/deeper/key", false, 0o400, 0, 0},
		{"user/closed", true, 0o700, 1000, 1000}, // the box cannot enter it
		{"private", true, 0o700, 0, 0},           // masked whole
		{"private/inner", false, 0o644, 0, 0},
		{"listonly", true, 0o711, 0, 0}, // enterable by all: its files decide
		{"listonly/key", false, 0o600, 0, 0},
		{"listonly/ok", false, 0o644, 0, 0},
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.path)
		var err error
		if e.dir {
			err = os.Mkdir(p, 0o700)
		} else {
			err = os.WriteFile(p, []byte("x"), 0o600)
		}
		if err == nil {
			err = os.Chown(p, e.uid, e.gid)
		}
		if err == nil {
			err = os.Chmod(p, e.mode)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// A link to a secret is not masked itself: its target is.
	if err := os.Symlink("secret", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range []string{"group-secret", "listonly/key", "private", "secret", "user/deeper/key", "user/root-key"} {
		want = append(want, filepath.Join(dir, p))
	}
	slices.Sort(want)
	return dir, want
}

func TestRootOnlyWalkFindsWhatOnlyRootReads(t *testing.T) {
	dir, want := rootTree(t)
	if got := walkRootOnly([]string{dir}, 1000); !slices.Equal(got, want) {
		t.Fatalf("masked:\n%q\nwant:\n%q", got, want)
	}
}

// Past its budget the walk fails closed: whatever it did not look at is
// masked, so no root-only file is left visible.
func TestRootOnlyWalkOverBudgetMasksTheRest(t *testing.T) {
	dir, want := rootTree(t)
	for i := 0; i < 40; i++ {
		sub := filepath.Join(dir, "user", fmt.Sprintf("d%02d", i))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "key"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		want = append(want, filepath.Join(sub, "key"))
	}
	for _, budget := range []int64{0, 1, 5, 20, 60} {
		got := walkRootOnly([]string{dir}, budget)
		for _, w := range want {
			covered := false
			for _, g := range got {
				if within(w, g) {
					covered = true
				}
			}
			if !covered {
				t.Errorf("budget %d: %s is visible (masked: %q)", budget, w, got)
			}
		}
		if budget == 0 && !slices.Equal(got, []string{dir}) {
			t.Errorf("budget 0: masked %q, want the whole tree", got)
		}
	}
	if got := walkRootOnly([]string{dir}, 1000); slices.Contains(got, filepath.Join(dir, "user")) {
		t.Errorf("within budget the user's directory was masked whole: %q", got)
	}
}

func TestOutermostDropsWhatIsInsideAMask(t *testing.T) {
	got := outermost([]string{"/etc/b/c", "/etc/b", "/etc/b-x", "/etc/a", "/etc/b/c/d", "/etc/a"})
	if want := []string{"/etc/a", "/etc/b", "/etc/b-x"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
