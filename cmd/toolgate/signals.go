package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// cleanups run when a signal ends toolgate: the sandbox removes its
// cgroups, the audit log writes its closing checkpoint. A blocking read of
// stdin would otherwise keep the deferred ones from ever running.
var (
	cleanupMu sync.Mutex
	cleanups  []func()
)

// atExit registers fn to run (once, last registered first) when a signal
// ends toolgate. The returned function unregisters it, for the normal path
// that runs it through defer.
func atExit(fn func()) (remove func()) {
	cleanupMu.Lock()
	defer cleanupMu.Unlock()
	var once sync.Once
	wrapped := func() { once.Do(fn) }
	cleanups = append(cleanups, wrapped)
	i := len(cleanups) - 1
	return func() {
		cleanupMu.Lock()
		defer cleanupMu.Unlock()
		if i < len(cleanups) {
			cleanups[i] = func() {}
		}
	}
}

// hangupTaken is set while a command handles SIGHUP itself (serve reloads
// its policy on it): SIGHUP then does not end toolgate.
var hangupTaken atomic.Int32

// takeHangup marks SIGHUP as handled until the returned function is called.
func takeHangup() (release func()) {
	hangupTaken.Add(1)
	return func() { hangupTaken.Add(-1) }
}

// withSignals returns a context canceled by SIGINT, SIGTERM or SIGHUP (unless
// a command took SIGHUP); the signal also runs the cleanups and exits with
// 128+signal.
func withSignals() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-ch
		for sig == syscall.SIGHUP && hangupTaken.Load() > 0 {
			sig = <-ch
		}
		cancel() // running boxes are killed
		cleanupMu.Lock()
		fns := append([]func(){}, cleanups...)
		cleanupMu.Unlock()
		for i := len(fns) - 1; i >= 0; i-- {
			fns[i]()
		}
		code := 128
		if s, ok := sig.(syscall.Signal); ok {
			code += int(s)
		}
		os.Exit(code)
	}()
	return ctx
}
