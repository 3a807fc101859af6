// Package homedir finds the home directory the way the programs an agent
// runs would: $HOME when set, else the account's entry in the user
// database (bash expands ~ from it when HOME is unset). The result is
// absolute, clean and symlink-free, so it compares with resolved paths; a
// relative $HOME is taken from the current directory.
//
// Not covered: other users' homes (~user), which the parser maps itself.
package homedir

import (
	"os"
	"os/user"
	"path/filepath"
)

// Get returns the home directory, or "" when there is none to be found.
func Get() string {
	home := os.Getenv("HOME")
	if home == "" {
		if u, err := user.Current(); err == nil {
			home = u.HomeDir
		}
	}
	return Resolve(home)
}

// Resolve makes a home directory given explicitly comparable with resolved
// paths: absolute (from the current directory), clean, symlinks followed
// where it exists. "" stays "".
func Resolve(home string) string {
	if home == "" {
		return ""
	}
	if a, err := filepath.Abs(home); err == nil {
		home = a
	}
	home = filepath.Clean(home)
	if r, err := filepath.EvalSymlinks(home); err == nil {
		home = r
	}
	return home
}
