package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/homedir"
	"github.com/toolgate/toolgate/internal/hookflags"
)

const (
	// maxEvent is the largest event read, as `toolgate hook` reads it.
	maxEvent = 16 << 20
	// maxAnswer bounds the service's reply.
	maxAnswer = 4 << 20
	// socketTimeout bounds the whole exchange with the service, as
	// `toolgate hook --socket` bounds it.
	socketTimeout = 2 * time.Second
	// workspaceHeader names the client's workspace (serve.WorkspaceHeader),
	// homeHeader its home (serve.HomeHeader).
	workspaceHeader = "X-Toolgate-Workspace"
	homeHeader      = "X-Toolgate-Home"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// options are the command line: the two flags this client uses, and the
// arguments the fallback gets (--workspace included).
type options struct {
	socket, workspace string
	passThrough       []string
	help              bool
}

func parseArgs(args []string) (options, error) {
	var o options
	if len(args) == 0 || args[0] != "claude-code" {
		return o, errors.New(usage)
	}
	o.socket = os.Getenv("TOOLGATE_SOCKET")
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		name, val, hasVal := strings.Cut(a, "=")
		var bare string
		switch {
		case strings.HasPrefix(name, "--"):
			bare = name[2:]
		case name == "-socket", name == "-workspace", name == "-h":
			bare = name[1:] // the client's own two also take one dash
		default:
			return o, fmt.Errorf("unexpected argument %q: %s", a, usage)
		}
		known, valued := hookflags.Takes(bare)
		switch {
		case !known:
			// the fallback would refuse it; the service's answer must not
			// hide it
			return o, fmt.Errorf("unknown flag %s: %s", name, usage)
		case !valued:
			o.help = true
			continue
		}
		if !hasVal {
			if i+1 >= len(rest) {
				return o, fmt.Errorf("flag %s needs a value", name)
			}
			i++
			val = rest[i]
		}
		switch bare {
		case "socket":
			o.socket = val
			continue // the fallback must not ask the service again
		case "workspace":
			o.workspace = val
		}
		o.passThrough = append(o.passThrough, "--"+bare, val)
	}
	return o, nil
}

const usage = "usage: toolgate-hook claude-code [--socket PATH] [--workspace DIR] [toolgate hook claude-code flags...]"

func run(args []string, in io.Reader, out, errOut io.Writer) int {
	o, err := parseArgs(args)
	if err != nil {
		return block(errOut, err.Error())
	}
	if o.help {
		// exit 2 even so: a hook that answered 0 here would let every call
		// through
		return block(errOut, usage+"\nIt hands the event to 'toolgate serve --socket' and, when that cannot answer, to 'toolgate hook claude-code' with the other flags.")
	}
	event, err := io.ReadAll(io.LimitReader(in, maxEvent+1))
	if err != nil {
		return block(errOut, "reading the hook event: "+err.Error())
	}
	if len(event) > maxEvent {
		return block(errOut, fmt.Sprintf("the hook event is larger than %d MiB", maxEvent>>20))
	}
	if o.socket != "" {
		ans, err := ask(o.socket, workspace(o.workspace), event)
		if err == nil {
			if _, err := out.Write(ans); err != nil {
				return block(errOut, "writing the answer: "+err.Error())
			}
			return 0
		}
		fmt.Fprintf(errOut, "toolgate: note: the service at %s did not decide (%v); deciding here\n", o.socket, err)
	}
	return fallback(o, event, out, errOut)
}

// workspace is the client's workspace as the service compares it: absolute,
// symlinks resolved; "" when there is none.
func workspace(dir string) string {
	if dir == "" {
		dir = os.Getenv("CLAUDE_PROJECT_DIR")
	}
	return homedir.Resolve(dir) // absolute, symlinks followed, as for the home
}

// ask posts the event to the service's /v1/hook/claude-code over the unix
// socket and returns its reply when it is one Claude Code can act on.
func ask(socket, ws string, event []byte) ([]byte, error) {
	if ws == "" {
		return nil, errors.New("no workspace: pass --workspace DIR or run under Claude Code, which sets CLAUDE_PROJECT_DIR")
	}
	if !headerSafe(ws) {
		return nil, errors.New("the workspace path cannot travel in an HTTP header")
	}
	deadline := time.Now().Add(socketTimeout)
	conn, err := dial(socket, deadline)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := conn.SetDeadline(deadline); err != nil {
		return nil, err
	}
	var req bytes.Buffer
	req.WriteString("POST /v1/hook/claude-code HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: close\r\n")
	req.WriteString(workspaceHeader + ": " + ws + "\r\n")
	if home := homedir.Get(); home != "" {
		// the service's ~ must be ours, or it answers 409
		if !headerSafe(home) {
			return nil, errors.New("the home path cannot travel in an HTTP header")
		}
		req.WriteString(homeHeader + ": " + home + "\r\n")
	}
	req.WriteString("Content-Length: " + strconv.Itoa(len(event)) + "\r\n\r\n")
	req.Write(event)
	if _, err := conn.Write(req.Bytes()); err != nil {
		return nil, err
	}
	status, body, err := readResponse(bufio.NewReader(conn))
	if err != nil {
		return nil, err
	}
	if status != 200 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) != nil || e.Error == "" {
			e.Error = "no reason given"
		}
		return nil, fmt.Errorf("%d %s", status, e.Error)
	}
	if err := checkReply(body); err != nil {
		return nil, err
	}
	return body, nil
}

// dial connects to the unix socket at path before deadline. It does not
// use package net: net's cgo resolver makes a binary dynamically linked,
// and the static one starts about 4 ms sooner on every call. The socket is
// non-blocking, so the returned file takes deadlines.
func dial(path string, deadline time.Time) (*os.File, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if err != syscall.EAGAIN || !time.Now().Before(deadline) {
			break
		}
		// the service's backlog is full: try again shortly
		time.Sleep(time.Millisecond)
	}
	if err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "dial unix", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// checkReply accepts a reply only when it reads as Claude Code reads it
// (JSON.parse: keys exactly as spelled, the last of repeated keys wins):
// hookSpecificOutput.hookEventName "PreToolUse" and a permissionDecision of
// allow, deny or ask.
func checkReply(body []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return fmt.Errorf("the answer is not a JSON object: %v", err)
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(top["hookSpecificOutput"], &out); err != nil || out == nil {
		return errors.New("the answer has no hookSpecificOutput object")
	}
	var event, decision string
	if json.Unmarshal(out["hookEventName"], &event) != nil || event != "PreToolUse" {
		return errors.New("the answer is not a PreToolUse reply")
	}
	if json.Unmarshal(out["permissionDecision"], &decision) != nil {
		return errors.New("the answer has no permissionDecision")
	}
	switch decision {
	case "allow", "deny", "ask":
		return nil
	}
	return fmt.Errorf("the answer's decision is %q", decision)
}

// headerSafe says whether s travels in an HTTP header unchanged: HTTP trims
// white space around values, and line breaks would end the header.
func headerSafe(s string) bool {
	return s == strings.TrimSpace(s) && !strings.ContainsAny(s, "\r\n\x00")
}

// readResponse reads an HTTP/1.1 response with a Content-Length body (what
// the service sends on this endpoint); anything else is an error.
func readResponse(br *bufio.Reader) (status int, body []byte, err error) {
	line, err := readLine(br)
	if err != nil {
		return 0, nil, err
	}
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	if !strings.HasPrefix(proto, "HTTP/1.") || len(code) != 3 {
		return 0, nil, fmt.Errorf("not an HTTP response: %q", line)
	}
	if status, err = strconv.Atoi(code); err != nil {
		return 0, nil, fmt.Errorf("not an HTTP response: %q", line)
	}
	length := -1
	for {
		h, err := readLine(br)
		if err != nil {
			return 0, nil, err
		}
		if h == "" {
			break
		}
		k, v, _ := strings.Cut(h, ":")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "content-length":
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 {
				return 0, nil, fmt.Errorf("bad Content-Length %q", v)
			}
			length = n
		case "transfer-encoding":
			return 0, nil, errors.New("the answer is not sized (Transfer-Encoding)")
		}
	}
	if length < 0 {
		return 0, nil, errors.New("the answer has no Content-Length")
	}
	if length > maxAnswer {
		return 0, nil, errors.New("the answer is too large")
	}
	body = make([]byte, length)
	if _, err := io.ReadFull(br, body); err != nil {
		return 0, nil, err
	}
	return status, body, nil
}

func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			return "", err
		}
		b = append(b, chunk...)
		if len(b) > 64<<10 {
			return "", errors.New("a header line is too long")
		}
		if !isPrefix {
			return string(b), nil
		}
	}
}

// fallback hands the event to `toolgate hook claude-code`, which decides
// in-process, and returns its exit code.
func fallback(o options, event []byte, out, errOut io.Writer) int {
	tg, err := toolgateBinary()
	if err != nil {
		return block(errOut, "no service answered and toolgate itself cannot be found ("+err.Error()+"); install toolgate next to toolgate-hook or on PATH")
	}
	cmd := exec.Command(tg, append([]string{"hook", "claude-code", "--socket="}, o.passThrough...)...)
	cmd.Stdin = bytes.NewReader(event)
	cmd.Stdout, cmd.Stderr = out, errOut
	// Claude Code kills a hook that runs past its timeout; the decision
	// must not go on working (and holding the audit log) without it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() == 2:
		return 2 // the hook blocked the call and said why
	default:
		// Claude Code lets a call through on any other failing exit
		// code: whatever went wrong, block.
		return block(errOut, "running "+tg+": "+err.Error())
	}
}

// toolgateBinary is the toolgate next to this executable, else on PATH.
func toolgateBinary() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "toolgate")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return exec.LookPath("toolgate")
}

// block refuses the call the way Claude Code understands: exit 2, the
// reason on stderr (which the model sees).
func block(errOut io.Writer, reason string) int {
	fmt.Fprintln(errOut, "toolgate: "+reason)
	return 2
}
