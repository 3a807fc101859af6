package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/homedir"
	"github.com/toolgate/toolgate/internal/hookflags"
	"github.com/toolgate/toolgate/internal/sockhttp"
)

const (
	// maxEvent is the largest event read, as `toolgate hook` reads it.
	maxEvent = 16 << 20
	// socketTimeout bounds the whole exchange with the service, as
	// `toolgate hook --socket` bounds it.
	socketTimeout = 2 * time.Second
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
	if !sockhttp.HeaderSafe(ws) {
		return nil, errors.New("the workspace path cannot travel in an HTTP header")
	}
	headers := []sockhttp.Header{{Name: sockhttp.WorkspaceHeader, Value: ws}}
	if home := homedir.Get(); home != "" {
		// the service's ~ must be ours, or it answers 409
		if !sockhttp.HeaderSafe(home) {
			return nil, errors.New("the home path cannot travel in an HTTP header")
		}
		headers = append(headers, sockhttp.Header{Name: sockhttp.HomeHeader, Value: home})
	}
	status, body, err := sockhttp.Post(socket, "/v1/hook/claude-code", headers, event, time.Now().Add(socketTimeout))
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
