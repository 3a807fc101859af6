package gate

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestBases: the workspace and a real home directory are bases; "/", /proc,
// /dev, a home that is a link or missing, or the workspace again, are not.
func TestBases(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, home := filepath.Join(d, "ws"), filepath.Join(d, "home")
	for _, p := range []string{ws, home} {
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(d, "link")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ws, home string
		want     []string
	}{
		{ws, home, []string{ws, home}},
		{ws, link, []string{ws}},
		{ws, filepath.Join(d, "missing"), []string{ws}},
		{ws, ws, []string{ws}},
		{ws, "/", []string{ws}},
		{ws, "/proc", []string{ws}},
		{ws, "/proc/self", []string{ws}},
		{ws, "/dev", []string{ws}},
		{"/proc/1", home, []string{home}},
		{ws, "", []string{ws}},
	} {
		if got := bases(c.ws, c.home); !slices.Equal(got, c.want) {
			t.Errorf("bases(%q, %q) = %q, want %q", c.ws, c.home, got, c.want)
		}
	}
}
