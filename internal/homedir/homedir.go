// Package homedir finds the home directory the way the programs an agent
// runs would: $HOME when set, else the account's entry in the user
// database (bash expands ~ from it when HOME is unset). The result is
// absolute, clean and symlink-free, so it compares with resolved paths; a
// relative $HOME is taken from the current directory.
//
// The package reads /etc/passwd itself rather than import os/user, whose
// cgo lookup would make every program using it dynamically linked
// (toolgate-hook starts a quarter faster static); a program that wants the
// system's full user database (NSS: LDAP, sssd) sets Account, as
// cmd/toolgate does.
//
// Not covered: other users' homes (~user), which the parser maps itself.
package homedir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Get returns the home directory, or "" when there is none to be found.
func Get() string {
	home := os.Getenv("HOME")
	if home == "" {
		home = Account()
	}
	return Resolve(home)
}

// Account returns the current account's home from the user database, ""
// when it has none. By default it reads /etc/passwd.
var Account = passwdHome

// passwdHome finds the real uid's entry in /etc/passwd
// (name:password:uid:gid:gecos:home:shell).
func passwdHome() string {
	data, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return ""
	}
	uid := strconv.Itoa(os.Getuid())
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ":")
		if len(f) >= 7 && f[2] == uid && !strings.HasPrefix(f[0], "+") && !strings.HasPrefix(f[0], "-") {
			return f[5]
		}
	}
	return ""
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
