package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/toolgate/toolgate/gate"
)

// Answer is a person's answer to an ask.
type Answer byte

const (
	AnswerYes  Answer = 'y'
	AnswerNo   Answer = 'n'
	AnswerEdit Answer = 'e'
)

// Prompter asks a person about a call the policy wants approved.
type Prompter interface {
	// Ask shows the call and the reasons and returns the answer. An error
	// means nobody could be asked (the call is denied).
	Ask(call gate.Call, reasons []gate.Reason) (Answer, error)
	// Edit lets the person change the arguments and returns them.
	Edit(args json.RawMessage) (json.RawMessage, error)
	// Note tells the person something (an edit that failed, the new
	// decision).
	Note(msg string)
}

type prompterKey struct{}

// WithPrompter returns a context whose asks are put to p rather than to the
// runner's prompter: a front end with its own person to ask (an MCP client
// that supports elicitation) sets it per request.
func WithPrompter(ctx context.Context, p Prompter) context.Context {
	return context.WithValue(ctx, prompterKey{}, p)
}

func prompterFrom(ctx context.Context) Prompter {
	p, _ := ctx.Value(prompterKey{}).(Prompter)
	return p
}

// Terminal prompts on a terminal: in reads answers, out shows the call.
// Editor is the program for "e" ($VISUAL, $EDITOR, else vi); it runs with
// the terminal as its standard streams (TTY, when set).
type Terminal struct {
	In     io.Reader
	Out    io.Writer
	TTY    *os.File
	Editor string
	br     *bufio.Reader
}

// terminal opens /dev/tty, or returns nil when there is none (no
// controlling terminal: toolgate runs under an agent or in CI).
func terminal() Prompter {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	return &Terminal{In: f, Out: f, TTY: f}
}

func (t *Terminal) reader() *bufio.Reader {
	if t.br == nil {
		t.br = bufio.NewReader(t.In)
	}
	return t.br
}

func (t *Terminal) Ask(call gate.Call, reasons []gate.Reason) (Answer, error) {
	var args bytes.Buffer
	if json.Indent(&args, call.Args, "  ", "  ") != nil {
		args.Write(call.Args)
	}
	fmt.Fprintf(t.Out, "\ntoolgate: the policy asks before this call runs\n  id:   %s\n  tool: %s\n  args: %s\n", call.ID, call.Tool, args.String())
	for _, r := range reasons {
		fmt.Fprintf(t.Out, "  - %s: %s\n", r.Rule, r.Message)
	}
	for {
		fmt.Fprint(t.Out, "Allow it? [y]es, [n]o, [e]dit the arguments: ")
		line, err := t.reader().ReadString('\n')
		ans := strings.ToLower(strings.TrimSpace(line))
		switch {
		case ans == "y" || ans == "yes":
			return AnswerYes, nil
		case ans == "e" || ans == "edit":
			return AnswerEdit, nil
		case ans == "n" || ans == "no":
			return AnswerNo, nil
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return AnswerNo, nil // the terminal closed: no
			}
			return 0, err
		}
		fmt.Fprintln(t.Out, "Please answer y, n or e.")
	}
}

func (t *Terminal) Edit(args json.RawMessage) (json.RawMessage, error) {
	f, err := os.CreateTemp("", "toolgate-args-*.json")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	var pretty bytes.Buffer
	if json.Indent(&pretty, args, "", "  ") != nil {
		pretty.Write(args)
	}
	pretty.WriteByte('\n')
	if _, err := f.Write(pretty.Bytes()); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	editor := t.Editor
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if editor == "" {
			editor = os.Getenv(v)
		}
	}
	if editor == "" {
		editor = "vi"
	}
	// The editor setting may carry options ("code --wait"); the shell
	// splits it as git does with core.editor.
	cmd := exec.Command("/bin/sh", "-c", editor+` "$@"`, editor, f.Name())
	if t.TTY != nil {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = t.TTY, t.TTY, t.TTY
	} else {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, t.Out, t.Out
	}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("editor %q: %w", editor, err)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, fmt.Errorf("the edited arguments are not a JSON object: %v", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, bytes.TrimSpace(b)); err != nil {
		return nil, err
	}
	return compact.Bytes(), nil
}

func (t *Terminal) Note(msg string) { fmt.Fprintln(t.Out, "toolgate: "+msg) }
