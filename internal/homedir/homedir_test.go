package homedir

import (
	"os"
	"os/user"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(root, "real"), 0o755)
	os.Symlink("real", filepath.Join(root, "link"))
	t.Chdir(root)
	for in, want := range map[string]string{
		"":                  "",
		"real":              root + "/real",
		"link/":             root + "/real",
		root + "//link/.":   root + "/real",
		root + "/missing/x": root + "/missing/x",
	} {
		if got := Resolve(in); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", in, got, want)
		}
	}
}

// HOME unset or empty: the account's home, as bash expands ~ then.
func TestGetWithoutHOME(t *testing.T) {
	u, err := user.Current()
	if err != nil || u.HomeDir == "" {
		t.Skip("no account home")
	}
	t.Setenv("HOME", "")
	if got := Get(); got != Resolve(u.HomeDir) {
		t.Errorf("HOME empty: %q, want %q", got, Resolve(u.HomeDir))
	}
	old := Account
	Account = func() string { return "" }
	t.Setenv("HOME", "")
	if got := Get(); got != "" {
		t.Errorf("no account home: %q", got)
	}
	Account = old
	t.Setenv("HOME", "rel")
	if got, want := Get(), Resolve("rel"); got != want || !filepath.IsAbs(got) {
		t.Errorf("HOME=rel: %q, want %q", got, want)
	}
}
