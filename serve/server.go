package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/internal/hookreply"
	"github.com/toolgate/toolgate/internal/sockhttp"
	"github.com/toolgate/toolgate/runner"
	"github.com/toolgate/toolgate/tools"
)

// Defaults of Options.
const (
	DefaultMaxBody        = 1 << 20
	DefaultRequestTimeout = 2 * time.Minute
	DefaultMaxRuns        = 16
)

// WorkspaceHeader, when a request carries it, names the workspace the
// client means; a service that judges another workspace answers 409, so a
// client (the Claude Code hook) never gets a decision made against the
// wrong root.
const WorkspaceHeader = sockhttp.WorkspaceHeader

// HomeHeader, when a request carries it, names the home directory the
// client's ~ means (absolute, symlinks resolved); a service whose gate
// judges by another home answers 409: its ~ and home secrets would be
// another directory's.
const HomeHeader = sockhttp.HomeHeader

// UnsandboxedHeader, set to 1 on /v1/check, says the calls will run outside
// toolgate's sandbox (a Claude Code hook asking for the agent's own shell):
// the policy sees input.sandboxed false.
const UnsandboxedHeader = sockhttp.UnsandboxedHeader

// Options configure a Server.
type Options struct {
	// Runner decides and runs the calls; Reload swaps its gate. Required.
	Runner *runner.Runner
	// Audit is the auditor Runner writes with: /v1/check records calls
	// that could not be decoded through it, and reloads go to its log. nil
	// records nothing.
	Audit *runner.Auditor
	// Load builds a fresh gate from the policy as it now is on disk, for
	// Reload; nil refuses reloads.
	Load func(ctx context.Context) (*gate.Gate, error)
	// Watch lists the policy directories and data files Watch polls;
	// gate.Builtin entries are skipped (the embedded policy never changes).
	Watch []string
	// RequestTimeout bounds each request (decisions and runs); default
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MaxBody is the largest request body in bytes; default DefaultMaxBody.
	MaxBody int64
	// MaxRuns bounds the /v1/run requests executing at once; more wait
	// (within their deadline). Default DefaultMaxRuns.
	MaxRuns int
	// LocalOnly refuses requests whose Host header does not name loopback:
	// a web page that rebinds its own name to 127.0.0.1 sends its own name.
	LocalOnly bool
	// Log receives a line for each event an operator should see (reloads,
	// shutdown); nil discards them.
	Log func(msg string)
	// Hook answers a Claude Code PreToolUse event for the workspace ws (the
	// client's X-Toolgate-Workspace) with the hook's reply, for POST
	// /v1/hook/claude-code: a small client (toolgate-hook) then needs
	// neither the policy nor its compiler. An error is answered 422 and
	// the client decides by other means. nil: the endpoint answers 404.
	Hook func(ctx context.Context, ws string, event []byte) ([]byte, error)
}

// Server is the HTTP service. It is safe for concurrent use.
type Server struct {
	o     Options
	m     *metrics
	tools []byte
	seq   atomic.Int64 // request numbers: calls without an id are named line-N
	runs  chan struct{}

	reloadMu sync.Mutex

	hs         *http.Server
	base       context.Context // parent of every request's context
	cancelBase context.CancelFunc
	inflight   sync.WaitGroup
	shutOnce   sync.Once
	done       chan struct{}
	shutErr    error
}

// New returns a server; Serve starts it.
func New(o Options) (*Server, error) {
	if o.Runner == nil {
		return nil, errors.New("serve: a runner is required")
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxRuns <= 0 {
		o.MaxRuns = DefaultMaxRuns
	}
	tb, err := toolsBody()
	if err != nil {
		return nil, err
	}
	s := &Server{o: o, m: newMetrics(), tools: tb, runs: make(chan struct{}, o.MaxRuns), done: make(chan struct{})}
	s.base, s.cancelBase = context.WithCancel(context.Background())
	s.hs = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		// A response is written after the request's work, which its
		// deadline bounds.
		WriteTimeout:   o.RequestTimeout + 30*time.Second,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		BaseContext:    func(net.Listener) context.Context { return s.base },
	}
	return s, nil
}

// toolDef is one entry of GET /v1/tools.
type toolDef struct {
	Name            string          `json:"name"`
	Description     string          `json:"description"`
	InputSchema     json.RawMessage `json:"input_schema"`
	ReadOnly        bool            `json:"read_only"`
	ConcurrencySafe bool            `json:"concurrency_safe"`
	Exclusive       bool            `json:"exclusive"`
}

func toolsBody() ([]byte, error) {
	var defs []toolDef
	for _, t := range tools.All() {
		defs = append(defs, toolDef{t.Name, t.Description, t.Schema, t.ReadOnly, t.ConcurrencySafe, t.Exclusive})
	}
	return marshal(map[string]any{"tools": defs})
}

// route is one endpoint.
type route struct {
	method string // GET routes also answer HEAD
	handle func(s *Server, ctx context.Context, w http.ResponseWriter, r *http.Request)
}

var routes = map[string]route{
	"/v1/check":            {http.MethodPost, (*Server).check},
	"/v1/run":              {http.MethodPost, (*Server).run},
	"/v1/hook/claude-code": {http.MethodPost, (*Server).hookClaude},
	HTTPHookPath:           {http.MethodPost, (*Server).hookClaudeHTTP},
	"/v1/tools":            {http.MethodGet, (*Server).listTools},
	"/healthz":             {http.MethodGet, (*Server).health},
	"/metrics":             {http.MethodGet, (*Server).metricsPage},
}

// statusWriter remembers the status code for the metrics.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// ServeHTTP routes a request.
func (s *Server) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	s.inflight.Add(1)
	defer s.inflight.Done()
	rt, known := routes[r.URL.Path]
	label := r.URL.Path
	if !known {
		label = "other"
	}
	w := &statusWriter{ResponseWriter: rw}
	defer func() {
		if w.status == 0 {
			w.status = http.StatusOK
		}
		s.m.request(label, w.status)
	}()
	// A browser is never a client of this API: refusing every request
	// that carries an Origin keeps web pages from driving it (the
	// service has no authentication, and a cross-site POST needs no
	// preflight to have its side effects).
	if r.Header.Get("Origin") != "" {
		fail(w, http.StatusForbidden, "requests from web pages (with an Origin header) are refused")
		return
	}
	if s.o.LocalOnly && !localHost(r.Host) {
		fail(w, http.StatusForbidden, fmt.Sprintf("Host %q is not a loopback name; use 127.0.0.1, [::1] or localhost", r.Host))
		return
	}
	if !known {
		fail(w, http.StatusNotFound, "no such endpoint; see POST /v1/check, POST /v1/run, POST /v1/hook/claude-code, POST /v1/hook/claude-code/http, GET /v1/tools, GET /healthz, GET /metrics")
		return
	}
	if r.Method != rt.method && !(rt.method == http.MethodGet && r.Method == http.MethodHead) {
		allow := rt.method
		if rt.method == http.MethodGet {
			allow = "GET, HEAD"
		}
		w.Header().Set("Allow", allow)
		fail(w, http.StatusMethodNotAllowed, r.URL.Path+" takes "+rt.method)
		return
	}
	if rt.method == http.MethodPost {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			if r.URL.Path == HTTPHookPath {
				// a 415 would be a non-blocking error: the tool would run
				s.hookDeny(w, "the hook event was not sent as Content-Type: application/json")
				return
			}
			fail(w, http.StatusUnsupportedMediaType, "send the body with Content-Type: application/json")
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.o.RequestTimeout)
	defer cancel()
	rt.handle(s, ctx, w, r)
}

// body reads a request body of at most MaxBody bytes; on failure it has
// answered the request.
func (s *Server) body(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.o.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			n := int(s.seq.Add(1))
			res := gate.Result{ID: fmt.Sprintf("line-%d", n), Decision: "deny", Reasons: []gate.Reason{{Rule: gate.CodeDecodeTooLarge,
				Message: fmt.Sprintf("the request body exceeds %d bytes; send smaller calls", s.o.MaxBody)}}}
			s.record(gate.Call{ID: res.ID}, &res)
			s.m.decision(res.Decision, res.Reasons[0].Rule)
			fail(w, http.StatusRequestEntityTooLarge, res.Reasons[0].Message)
			return nil, false
		}
		fail(w, http.StatusBadRequest, "reading the request body: "+err.Error())
		return nil, false
	}
	return b, true
}

// sameWorkspace answers 409 when the request names another workspace or
// another home than the gate judges by.
func (s *Server) sameWorkspace(w http.ResponseWriter, r *http.Request, g *gate.Gate) bool {
	if home := r.Header.Get(HomeHeader); home != "" && home != g.Home() {
		fail(w, http.StatusConflict, fmt.Sprintf("this service judges ~ as %s, not %s", g.Home(), home))
		return false
	}
	want := r.Header.Get(WorkspaceHeader)
	if want == "" {
		return true
	}
	p := filepath.Clean(want)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	if p != g.Workspace() {
		fail(w, http.StatusConflict, fmt.Sprintf("this service judges calls for the workspace %s, not %s", g.Workspace(), want))
		return false
	}
	return true
}

// record writes the decision on a call that could not be decoded; when it
// cannot, the deny says so too.
func (s *Server) record(call gate.Call, res *gate.Result) {
	s.o.Runner.Record(call, res)
}

func firstRule(rs []gate.Reason) string {
	if len(rs) == 0 {
		return ""
	}
	return rs[0].Rule
}

// check decides every call of the body and runs nothing.
func (s *Server) check(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	body, ok := s.body(w, r)
	if !ok {
		return
	}
	rn := s.o.Runner
	g := rn.Gate()
	if !s.sameWorkspace(w, r, g) {
		return
	}
	n := int(s.seq.Add(1))
	ds := g.Calls(body, n)
	results := make([]gate.Result, 0, len(ds))
	unsandboxed := r.Header.Get(UnsandboxedHeader) == "1"
	for _, d := range ds {
		d.Call.Unsandboxed = unsandboxed
		var res gate.Result
		if d.Err != nil {
			res = d.Denied()
			s.record(d.Call, &res)
		} else {
			start := time.Now()
			res = rn.Decide(ctx, d.Call)
			s.m.observe(time.Since(start))
		}
		if res.Reasons == nil {
			res.Reasons = []gate.Reason{}
		}
		s.m.decision(res.Decision, firstRule(res.Reasons))
		results = append(results, res)
	}
	writeJSON(w, http.StatusOK, map[string]any{"results": results})
}

// hookClaude answers a Claude Code hook event with the hook's reply, as
// `toolgate hook claude-code` would print it.
func (s *Server) hookClaude(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	if s.o.Hook == nil {
		fail(w, http.StatusNotFound, "this service does not answer hook events")
		return
	}
	body, ok := s.body(w, r)
	if !ok {
		return
	}
	if home := r.Header.Get(HomeHeader); home != "" && home != s.o.Runner.Gate().Home() {
		fail(w, http.StatusConflict, fmt.Sprintf("this service judges ~ as %s, not %s", s.o.Runner.Gate().Home(), home))
		return
	}
	ans, err := s.o.Hook(ctx, r.Header.Get(WorkspaceHeader), body)
	if err != nil {
		fail(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(ans)))
	w.WriteHeader(http.StatusOK)
	w.Write(ans)
}

// HTTPHookPath is the endpoint for Claude Code's own http hooks (a hook
// of "type": "http" that posts the PreToolUse event here, no process per
// call).
const HTTPHookPath = "/v1/hook/claude-code/http"

// CodeHookUnanswered is the rule of the deny an http hook gets when the
// service cannot decide its event.
const CodeHookUnanswered = "hook.unanswered"

// hookClaudeHTTP answers Claude Code's http hook. Claude Code takes a
// non-2xx answer as a non-blocking error and runs the tool, so whatever
// goes wrong once the request is routed here is answered 200 with a deny
// saying why (and audited), never with an HTTP error.
func (s *Server) hookClaudeHTTP(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	var answered bool
	answer := func(ans []byte) {
		answered = true
		writeHookAnswer(w, ans)
	}
	deny := func(why string) {
		answered = true
		s.hookDeny(w, why)
	}
	defer func() {
		// net/http would drop the connection on a panic: a non-blocking
		// error to Claude Code, which then runs the tool.
		if v := recover(); v != nil && !answered {
			deny(fmt.Sprintf("internal error: %v", v))
		}
	}()
	if s.o.Hook == nil {
		deny("this service does not answer hook events")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, s.o.MaxBody+1))
	switch {
	case err != nil:
		deny("reading the hook event: " + err.Error())
		return
	case int64(len(body)) > s.o.MaxBody:
		deny(fmt.Sprintf("the hook event is larger than the service's %d-byte limit", s.o.MaxBody))
		return
	}
	g := s.o.Runner.Gate()
	if home := r.Header.Get(HomeHeader); home != "" && home != g.Home() {
		deny(fmt.Sprintf("this service judges ~ as %s, not %s", g.Home(), home))
		return
	}
	// Without the header the service's own workspace is meant; with it,
	// a service for another workspace denies (as the other endpoints
	// answer 409).
	ws := g.Workspace()
	if want := r.Header.Get(WorkspaceHeader); want != "" {
		ws = filepath.Clean(want)
		if real, err := filepath.EvalSymlinks(ws); err == nil {
			ws = real
		}
	}
	ans, err := s.o.Hook(ctx, ws, body)
	if err != nil {
		deny(err.Error())
		return
	}
	answer(ans)
}

func writeHookAnswer(w http.ResponseWriter, ans []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(ans)))
	w.WriteHeader(http.StatusOK)
	w.Write(ans)
}

// hookDeny answers an http hook 200 with a deny saying why, and audits it.
func (s *Server) hookDeny(w http.ResponseWriter, why string) {
	res := gate.Result{ID: fmt.Sprintf("line-%d", s.seq.Add(1)), Tool: "claude-code.hook", Decision: "deny",
		Reasons: []gate.Reason{{Rule: CodeHookUnanswered, Message: why}}}
	s.record(gate.Call{ID: res.ID, Tool: res.Tool}, &res)
	s.m.decision(res.Decision, CodeHookUnanswered)
	writeHookAnswer(w, hookreply.JSON("deny", "toolgate: "+why+"; the call is blocked"))
}

// run decides every call of the body and executes the allowed ones.
func (s *Server) run(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	body, ok := s.body(w, r)
	if !ok {
		return
	}
	rn := s.o.Runner
	if !s.sameWorkspace(w, r, rn.Gate()) {
		return
	}
	select {
	case s.runs <- struct{}{}:
		defer func() { <-s.runs }()
	case <-ctx.Done():
		fail(w, http.StatusServiceUnavailable, fmt.Sprintf("busy: %d runs are in progress and none finished before the request's deadline; retry later", s.o.MaxRuns))
		return
	}
	recs := rn.Line(ctx, body, int(s.seq.Add(1)))
	for _, rec := range recs {
		s.m.decision(rec.Decision, firstRule(rec.Reasons))
	}
	writeJSON(w, http.StatusOK, map[string]any{"records": recs})
}

func (s *Server) listTools(_ context.Context, w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(s.tools)
}

func (s *Server) health(_ context.Context, w http.ResponseWriter, _ *http.Request) {
	g := s.o.Runner.Gate()
	h := map[string]any{"status": "ok", "policy": g.PolicyDigest(), "workspace": g.Workspace()}
	if rev := g.PolicyRevision(); rev != "" {
		h["revision"] = rev // the bundle's
	}
	writeJSON(w, http.StatusOK, h)
}

func (s *Server) metricsPage(_ context.Context, w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	s.m.write(w, s.o.Runner.Gate().PolicyDigest())
}

func marshal(v any) ([]byte, error) {
	var b jsonBuffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.b, nil
}

type jsonBuffer struct{ b []byte }

func (j *jsonBuffer) Write(p []byte) (int, error) { j.b = append(j.b, p...); return len(p), nil }

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		b = []byte(`{"error":"encoding the answer failed"}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json")
	// Sized, never chunked: the hook clients (internal/sockhttp) refuse
	// an answer without a length.
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(code)
	w.Write(b)
}

func fail(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

// Handler returns the server's handler (for tests and embedding).
func (s *Server) Handler() http.Handler { return s }

// Serve answers requests on ln until Shutdown, and returns after the
// shutdown has finished (nil when it was clean).
func (s *Server) Serve(ln net.Listener) error {
	err := s.hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		<-s.done
		return s.shutErr
	}
	return err
}

// Shutdown stops accepting connections and waits up to grace for the
// requests in flight; past that their contexts are canceled (running
// sandboxes are killed, decisions still pending become denies) and it waits
// a few more seconds for them to answer. It may be called more than once
// and from several goroutines: every call returns when the shutdown is over.
func (s *Server) Shutdown(grace time.Duration) error {
	s.shutOnce.Do(func() {
		defer close(s.done)
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		err := s.hs.Shutdown(ctx)
		s.cancelBase()
		if err != nil {
			s.hs.Close()
			s.shutErr = fmt.Errorf("requests still running after %s were canceled", grace)
			s.logf("shutdown: %v", s.shutErr)
		}
		waited := make(chan struct{})
		go func() {
			s.inflight.Wait()
			close(waited)
		}()
		select {
		case <-waited:
		case <-time.After(5 * time.Second):
		}
	})
	<-s.done
	return s.shutErr
}

// Done is closed when a shutdown has finished.
func (s *Server) Done() <-chan struct{} { return s.done }

func (s *Server) logf(format string, args ...any) {
	if s.o.Log != nil {
		s.o.Log(fmt.Sprintf(format, args...))
	}
}
