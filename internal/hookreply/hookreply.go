package hookreply

import (
	"bytes"
	"encoding/json"
)

// EventName is the hook event the answers are for.
const EventName = "PreToolUse"

type output struct {
	HookSpecificOutput struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

// JSON is the answer as Claude Code reads it, with a final newline. A
// decision other than allow, deny or ask is written as deny.
func JSON(decision, reason string) []byte {
	var o output
	o.HookSpecificOutput.HookEventName = EventName
	switch decision {
	case "allow", "deny", "ask":
		o.HookSpecificOutput.PermissionDecision = decision
	default:
		o.HookSpecificOutput.PermissionDecision = "deny"
	}
	o.HookSpecificOutput.PermissionDecisionReason = reason
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(o) // strings and fixed fields: cannot fail
	return b.Bytes()
}
