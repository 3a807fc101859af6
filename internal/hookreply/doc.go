// Package hookreply writes a Claude Code PreToolUse hook answer, the JSON
// both `toolgate hook claude-code` (package hook) and the service's http
// hook endpoint (package serve, which cannot import hook) print.
//
// It does not decide anything, read events or check replies
// (cmd/toolgate-hook reads answers as Claude Code does).
package hookreply
