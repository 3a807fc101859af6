package mcpgate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/gate"
	"github.com/toolgate/toolgate/runner"
)

// elicitor asks the person behind an MCP client about a call the policy
// wants approved, with elicitation/create: the call, the reasons, and a
// yes/no. Accept with approve=true allows the call; anything else
// (decline, cancel, approve=false, an error) refuses it. Editing the
// arguments is a terminal feature; here a person answers yes or no.
type elicitor struct {
	ctx     context.Context
	session *mcp.ServerSession
}

// withElicitation returns ctx with an elicitor when the client can answer
// elicitation requests.
func withElicitation(ctx context.Context, ss *mcp.ServerSession) context.Context {
	if ss == nil {
		return ctx
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return ctx
	}
	return runner.WithPrompter(ctx, &elicitor{ctx: ctx, session: ss})
}

func (e *elicitor) Ask(call gate.Call, reasons []gate.Reason) (runner.Answer, error) {
	var why []string
	for _, r := range reasons {
		why = append(why, "- "+r.Rule+": "+r.Message)
	}
	args := string(call.Args)
	if len(args) > 2000 {
		args = args[:2000] + "…"
	}
	msg := fmt.Sprintf("toolgate: the policy asks before this call runs.\n\ntool: %s\narguments: %s\n\n%s\n\nAllow it?", call.Tool, args, strings.Join(why, "\n"))
	res, err := e.session.Elicit(e.ctx, &mcp.ElicitParams{
		Message:         msg,
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"approve":{"type":"boolean","title":"Allow this call","description":"true runs the call once; false refuses it"}},"required":["approve"]}`),
	})
	if err != nil {
		return 0, err
	}
	if res.Action == "accept" {
		if ok, _ := res.Content["approve"].(bool); ok {
			return runner.AnswerYes, nil
		}
	}
	return runner.AnswerNo, nil
}

func (e *elicitor) Edit(json.RawMessage) (json.RawMessage, error) {
	return nil, errors.New("arguments cannot be edited through MCP; answer yes or no")
}

func (e *elicitor) Note(string) {}
