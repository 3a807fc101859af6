package main

import (
	"os"
	"os/user"

	"github.com/toolgate/toolgate/internal/homedir"
	"github.com/toolgate/toolgate/internal/runtimecfg"
)

func main() {
	handOff(os.Args[1:])
	// With HOME unset, ~ is the account's home: ask the whole user
	// database (NSS), not /etc/passwd alone.
	homedir.Account = func() string {
		if u, err := user.Current(); err == nil {
			return u.HomeDir
		}
		return ""
	}
	// the collector, the memory limit and the huge-page heap for the
	// command (see package runtimecfg)
	var cmd string
	if len(os.Args) > 1 {
		cmd = os.Args[1]
	}
	runtimecfg.Apply(cmd)
	os.Exit(profiled(func() int {
		return executeContext(withSignals(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	}))
}
