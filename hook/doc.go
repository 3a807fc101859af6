// Package hook answers agents' pre-tool-use hooks with toolgate decisions.
// It covers Claude Code's PreToolUse command hook: it reads the event,
// maps the Claude Code tool call onto toolgate's tools (Bash → exec, Read →
// read_file, Write and NotebookEdit → write_file, Edit → edit_file,
// MultiEdit → one edit_file per edit, Glob → glob, Grep → search, LS →
// list_dir), has it decided — by a running `toolgate serve --socket` when one
// answers within two seconds, else in-process — and writes the answer
// Claude Code reads: permissionDecision allow, deny or ask, with the reasons.
//
// It does not run anything: Claude Code runs the tool when the answer lets
// it. Tools toolgate has no policy input for (WebFetch, WebSearch, MCP tools,
// tools added to Claude Code after this was written) are answered with ask,
// so a person decides; Claude Code's own bookkeeping tools (TodoWrite, Task,
// …), which touch no file and run no command, are allowed.
package hook
