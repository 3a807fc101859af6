package hookreply

import "testing"

// The answer's exact bytes: Claude Code parses them, and a decision it
// does not know must never come out as anything but deny.
func TestJSON(t *testing.T) {
	for _, c := range []struct{ decision, reason, want string }{
		{"allow", "", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":""}}` + "\n"},
		{"ask", "a <b> & c", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"a <b> & c"}}` + "\n"},
		{"maybe", "x", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"x"}}` + "\n"},
		{"", "", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":""}}` + "\n"},
	} {
		if got := string(JSON(c.decision, c.reason)); got != c.want {
			t.Errorf("JSON(%q, %q) = %s, want %s", c.decision, c.reason, got, c.want)
		}
	}
}
