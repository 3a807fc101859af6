package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

// ErrRemote is returned by ListenTCP for an address that is not loopback
// when remote listening was not allowed.
var ErrRemote = errors.New("not a loopback address")

// ListenTCP listens on addr. An empty host (":8080") means 127.0.0.1. A
// host that is not loopback (or a name that resolves to anything but
// loopback) is refused with ErrRemote unless allowRemote: the API has no
// authentication, and whoever reaches it can run commands in the
// workspace.
func ListenTCP(addr string, allowRemote bool) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !allowRemote {
		if err := loopbackHost(host); err != nil {
			return nil, fmt.Errorf("--listen %s: %w", addr, err)
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", addr, err)
	}
	return ln, nil
}

// loopbackHost checks that host is a loopback address, or a name all of
// whose addresses are.
func loopbackHost(host string) error {
	if ip := net.ParseIP(host); ip != nil {
		if ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("%s is %w", host, ErrRemote)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return fmt.Errorf("%s: %w", host, err)
	}
	if len(ips) == 0 {
		return fmt.Errorf("%s has no address", host)
	}
	for _, ip := range ips {
		if !ip.IP.IsLoopback() {
			return fmt.Errorf("%s resolves to %s, which is %w", host, ip.IP, ErrRemote)
		}
	}
	return nil
}

// ListenUnix listens on a unix socket at path that only this user may
// connect to (mode 0600, set before the socket is bound, so there is no
// moment when others could connect). A stale socket left by a service that
// died is removed; a live one (something answers) or a path that is not a
// socket is an error. Closing the listener removes the socket.
func ListenUnix(path string) (net.Listener, error) {
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("--socket %s exists and is not a socket; refusing to replace it", path)
		}
		c, err := net.DialTimeout("unix", path, time.Second)
		if err == nil {
			c.Close()
			return nil, fmt.Errorf("--socket %s: another process is already serving on it", path)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("--socket %s exists and cannot be checked (%w); remove it if it is stale", path, err)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("--socket %s: removing the stale socket: %w", path, err)
		}
	}
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		if cerr := c.Control(func(fd uintptr) { err = syscall.Fchmod(int(fd), 0o600) }); cerr != nil {
			return cerr
		}
		return err
	}}
	ln, err := lc.Listen(context.Background(), "unix", path)
	if err != nil {
		return nil, fmt.Errorf("--socket %s: %w", path, err)
	}
	// Belt and braces: the mode the socket file ended up with.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("--socket %s: %w", path, err)
	}
	if ul, ok := ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(true)
	}
	return ln, nil
}

// IsLoopbackListener says whether ln is a TCP listener on a loopback
// address: its requests must then name a loopback host (see Options.LocalOnly).
func IsLoopbackListener(ln net.Listener) bool {
	a, ok := ln.Addr().(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}

// localHost says whether an HTTP Host header names this machine's loopback
// interface: localhost, a 127.0.0.0/8 address or [::1], with any port.
func localHost(h string) bool {
	host := h
	if hh, _, err := net.SplitHostPort(h); err == nil {
		host = hh
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
