// Package tools defines the tools toolgate offers an agent: their names,
// descriptions, JSON Schemas, scheduling flags and limits, and the exports
// that hand those definitions to a model.
//
// # What a tool is
//
// A [Tool] is a name, a description written for a model, a JSON Schema
// (draft 2020-12) for its arguments, and three flags that tell a scheduler how
// a batch of calls may run:
//
//   - ReadOnly: the tool never changes the workspace.
//   - ConcurrencySafe: the tool may run in parallel with other
//     concurrency-safe calls of the same batch.
//   - Exclusive: the tool runs alone; nothing else in the batch runs beside it.
//
// The seven built-in tools, in this stable order, are exec, read_file,
// write_file, edit_file, list_dir, search and glob. [All] returns them and
// [Lookup] finds one by name. Each call returns fresh copies, so a caller may
// change what it gets back without affecting anyone else.
//
// Every schema is an object with a "required" list, "additionalProperties":
// false and a "description" on each property. Schemas leave out "$schema"
// because some model providers reject the keyword; compile them as draft
// 2020-12. The limits the descriptions promise ([ReadMaxBytes],
// [ReadMaxChars], [ExecTimeout], [ExecMaxOutput], [SearchMaxResults],
// [SearchMaxResultsCap]) are constants here so that the implementations and
// the manual cannot disagree.
//
// # Exports
//
// [Export] renders a list of tools for a model provider:
//
//   - "openai": the array of {"type":"function","function":{…}} entries the
//     Chat Completions API takes as "tools".
//   - "anthropic": the array of {"name","description","input_schema"}
//     entries the Messages API takes as "tools".
//   - "mcp": the result object of an MCP tools/list request, with annotations
//     (readOnlyHint, destructiveHint, idempotentHint, openWorldHint).
//   - "markdown": a TOOLS.md manual for the model's context, see [Markdown].
//
// JSON output is indented with two spaces, ends with a newline and is the
// same byte for byte for the same input.
//
// [Markdown] writes the manual with the boundaries the caller passes: plain
// sentences saying what the active policy enforces. [DefaultBoundaries]
// describes the default policy; a caller running a different policy should
// pass its own sentences, because a manual that promises the wrong
// boundaries misleads the model.
//
// # What this package does not do
//
// It does not run tools. Reading, writing, editing, listing, searching and
// running commands arrive with `toolgate run`; until then the descriptions
// state the behaviour those implementations must keep (seed-compatible
// output strings and limits). It does not validate arguments either: the gate
// compiles each schema once and validates calls before the policy sees them.
// It knows nothing of the policy, the sandbox or the audit log; the boundary
// sentences are text, not rules, and enforce nothing.
package tools
