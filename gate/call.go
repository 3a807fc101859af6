package gate

import "encoding/json"

// Call is one tool call in toolgate's own shape, whatever format it came in.
type Call struct {
	ID     string          `json:"id"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	Format string          `json:"format"` // native | openai | anthropic | mcp
	// Unsandboxed marks a call that will run outside toolgate's sandbox
	// (a Claude Code hook answers for a command Claude Code runs on the
	// host); the policy then sees input.sandboxed false. Never decoded from
	// input: only a front end sets it.
	Unsandboxed bool `json:"-"`
}

// Reason is one rule that contributed to a decision.
type Reason struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// Stable codes for denials the gate itself produces (before or instead of the
// policy). They are part of the public contract: never rename one.
const (
	CodeDecodeJSON     = "decode.invalid_json"      // the line is not one well-formed JSON value
	CodeDecodeUTF8     = "decode.invalid_utf8"      // the line holds bytes that are not UTF-8
	CodeDecodeNUL      = "decode.nul_byte"          // a NUL byte (raw or \u0000) anywhere in the line
	CodeDecodeTooLarge = "decode.too_large"         // the line exceeds the size limit
	CodeDecodeTooDeep  = "decode.too_deep"          // JSON nesting deeper than the limit
	CodeDecodeDupKey   = "decode.duplicate_key"     // an object repeats a key
	CodeDecodeShape    = "decode.unknown_shape"     // a JSON value that is no known call format
	CodeDecodeArgs     = "decode.invalid_arguments" // arguments missing, not an object, or an unparsable JSON string
	CodeDecodeEmpty    = "decode.empty_batch"       // an array or message with no calls
	CodeUnknownTool    = "gate.unknown_tool"        // the tool name is not one toolgate knows
	CodeInvalidArgs    = "gate.invalid_args"        // arguments fail the tool's JSON Schema
	CodePolicyError    = "gate.policy_error"        // the policy failed to evaluate
	CodePolicyShape    = "gate.policy_result"       // the policy returned a result of the wrong shape
	CodePanic          = "gate.internal_error"      // a panic was recovered at the gate boundary
)
