//go:build !toolgate_small

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/runner"
	"github.com/toolgate/toolgate/sandbox"
	"github.com/toolgate/toolgate/serve"
)

// shutdownGrace is how long a stopping service waits for the requests in
// flight before it cancels them.
const shutdownGrace = 10 * time.Second

type serveOptions struct {
	common
	execFlags
	listen         string
	socket         string
	allowRemote    bool
	requestTimeout int
	maxRuns        int
	bundlePoll     time.Duration
}

func newServeCmd() *cobra.Command {
	o := &serveOptions{}
	o.common.audit = &o.execFlags.audit
	cmd := &cobra.Command{
		Use:   "serve (--listen ADDR | --socket PATH)",
		Short: "Serve the gate and the tools over an HTTP JSON API",
		Long: `Runs toolgate as a service: the same decisions as 'check' and the same
execution as 'run', over HTTP/1.1 on loopback TCP or a unix socket.

  POST /v1/check   body: one input line (any shape 'check' reads) → {"results":[…]}
  POST /v1/run     the same → {"records":[…]} (allowed calls run)
  POST /v1/hook/claude-code       a Claude Code PreToolUse event → the hook's
                                  answer (toolgate-hook's endpoint)
  POST /v1/hook/claude-code/http  the same for Claude Code's own http hooks:
                                  a failure is a 200 deny, never an error
  GET  /v1/tools   the tool definitions
  GET  /healthz    {"status":"ok","policy":"<digest>","workspace":"…"}
  GET  /metrics    Prometheus text format

POST bodies must be Content-Type: application/json and at most 1 MiB.
Requests with an Origin header (web pages) are refused. There is no
authentication: --listen only takes loopback addresses unless --allow-remote,
and --socket makes a socket only this user can connect to (mode 0600).

The policy is reloaded when a file in a --policy directory or a --data file
changes (polled every 2 s), when the --bundle changes (with --bundle-poll: a
conditional GET with the last ETag, or the bundle's SHA-256), and on SIGHUP;
the new policy must verify (with --bundle-verification-key), compile and pass
its own Rego tests, or the old one stays (logged, audited, counted). SIGINT and
SIGTERM stop the service: no new connections, up to 10 s for the requests in
flight, then the sandbox and the audit log are closed. Asks cannot be shown to
anyone: --approve deny (the default) or allow settles them in /v1/run.`,
		Example: `  $ toolgate serve --socket $XDG_RUNTIME_DIR/toolgate.sock --workspace ./repo
  $ toolgate serve --listen 127.0.0.1:8791 --policy builtin --policy ./team
  $ curl -s --json '{"id":"1","name":"exec","arguments":{"command":"ls"}}' http://127.0.0.1:8791/v1/check`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), o, cmd.ErrOrStderr())
		},
	}
	o.common.register(cmd)
	o.execFlags.register(cmd, string(runner.ApproveDeny), "what /v1/run does with ask decisions: deny or allow (a service has no terminal to prompt on)")
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", "", "listen on the TCP address `ADDR` (host:port; an empty host is 127.0.0.1; loopback only unless --allow-remote)")
	f.StringVar(&o.socket, "socket", "", "listen on a unix socket at `PATH` (mode 0600; a stale socket is replaced, the socket is removed on exit)")
	f.BoolVar(&o.allowRemote, "allow-remote", false, "allow a --listen address that is not loopback (the API has no authentication: put an authenticating proxy in front)")
	f.IntVar(&o.requestTimeout, "request-timeout", 0, "seconds one request may take (default: --timeout plus 60)")
	f.IntVar(&o.maxRuns, "max-runs", serve.DefaultMaxRuns, "/v1/run requests executing at once; more wait")
	f.DurationVar(&o.bundlePoll, "bundle-poll", 0, "look at the --bundle (URL or file) every `DURATION` (e.g. 30s) and reload the policy when it changed (conditional GET with ETag); a bundle that fails verification, compilation or its tests is not swapped in")
	return cmd
}

func runServe(ctx context.Context, o *serveOptions, errOut io.Writer) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if (o.listen == "") == (o.socket == "") {
		return errors.New("give exactly one of --listen ADDR (loopback TCP) and --socket PATH")
	}
	mode, approve, err := o.settings()
	if err != nil {
		return err
	}
	reqTimeout := time.Duration(o.timeout+60) * time.Second
	if o.requestTimeout != 0 {
		if o.requestTimeout < 0 || o.requestTimeout > 24*3600 {
			return fmt.Errorf("--request-timeout must be between 1 and 86400 seconds, got %d", o.requestTimeout)
		}
		reqTimeout = time.Duration(o.requestTimeout) * time.Second
	}
	if o.bundlePoll != 0 && (o.bundle == "" || o.bundlePoll < 0) {
		return errors.New("--bundle-poll needs --bundle and a positive duration")
	}
	if o.maxRuns < 1 {
		return fmt.Errorf("--max-runs must be at least 1, got %d", o.maxRuns)
	}
	if approve == runner.ApprovePrompt {
		return errors.New("--approve prompt: a service has no terminal to ask on; use --approve deny or --approve allow")
	}
	if mode == sandbox.ModeBwrap {
		defer sandbox.Prepare(o.workspace)() // overlaps the policy's loading
	}
	g, err := o.gate(ctx)
	if err != nil {
		return err
	}
	// The listener comes before anything that must be cleaned up, so a
	// refused address leaves nothing behind.
	var ln net.Listener
	where := ""
	if o.socket != "" {
		ln, err = serve.ListenUnix(o.socket)
		where = "unix:" + o.socket
	} else {
		ln, err = serve.ListenTCP(o.listen, o.allowRemote)
		if errors.Is(err, serve.ErrRemote) {
			return fmt.Errorf("%v: the API has no authentication, and whoever reaches it can run commands; listen on 127.0.0.1 or use --socket, or pass --allow-remote behind an authenticating proxy", err)
		}
		if ln != nil {
			where = "http://" + ln.Addr().String()
		}
	}
	if err != nil {
		return err
	}
	defer ln.Close()
	if o.allowRemote && !serve.IsLoopbackListener(ln) && o.socket == "" {
		fmt.Fprintf(errOut, "toolgate: warning: --allow-remote: %s accepts connections from other machines, without authentication\n", ln.Addr())
	}
	st, err := o.openStack(ctx, g, mode, approve, "serve", execProbeAtStart, errOut)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := st.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	r, au := st.r, st.au
	logLine := func(msg string) { fmt.Fprintln(errOut, "toolgate: "+msg) }
	srv, err := serve.New(serve.Options{
		Runner: r,
		Audit:  au,
		Load: func(ctx context.Context) (*gate.Gate, error) {
			return o.gate(ctx)
		},
		Watch:          append(append([]string{}, o.policies...), o.data...),
		RequestTimeout: reqTimeout,
		MaxRuns:        o.maxRuns,
		LocalOnly:      serve.IsLoopbackListener(ln),
		Log:            logLine,
		Hook: func(ctx context.Context, ws string, event []byte) ([]byte, error) {
			return answerHookEvent(ctx, r, ws, event)
		},
	})
	if err != nil {
		return err
	}
	// A signal ends toolgate through the cleanups (signals.go); this one,
	// registered last, runs first: the requests in flight finish before
	// the sandbox and the audit log close.
	defer atExit(func() { srv.Shutdown(shutdownGrace) })()
	defer srv.Shutdown(shutdownGrace)
	go func() {
		select {
		case <-ctx.Done():
			srv.Shutdown(shutdownGrace)
		case <-srv.Done():
		}
	}()
	// SIGHUP reloads the policy instead of ending toolgate.
	defer takeHangup()()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for {
			select {
			case <-hup:
				srv.Reload(ctx, "SIGHUP")
			case <-srv.Done():
				return
			}
		}
	}()
	go srv.Watch(ctx, serve.DefaultWatchInterval)
	if o.bundlePoll > 0 {
		go srv.PollBundle(ctx, o.bundle, o.bundlePoll)
	}
	logLine(fmt.Sprintf("serving on %s (workspace %s, policy %s)", where, g.Workspace(), g.PolicyDigest()))
	if err := srv.Serve(ln); err != nil {
		return err
	}
	logLine("stopped")
	return nil
}
