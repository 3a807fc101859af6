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
// # File tools
//
// [Workspace] runs the six file tools in-process: [Workspace.ReadFile],
// [Workspace.WriteFile], [Workspace.EditFile], [Workspace.ListDir],
// [Workspace.Search] and [Workspace.Glob]. Each returns a [Result] whose
// Output is what the model sees, in the seed's words ("Error: File not
// found: …", "Successfully wrote N bytes to …", "Warning: old_text appears N
// times. …"), with IsError set for every refusal.
//
// They may run as root under a policy that allows everything, so they are
// the hard boundary, not the policy: nothing outside the workspace is read,
// listed, written or created, whatever the arguments or the links in the
// tree. [OpenWorkspace] resolves the root once and keeps an O_PATH
// descriptor of it; every path argument is cleaned lexically (".." above the
// root, absolute paths elsewhere, a leading "~" and NUL bytes are refused)
// and then opened from that descriptor with openat2 and RESOLVE_BENEATH, so
// the kernel refuses a symlink or ".." that leaves the workspace, at the
// moment of the open. Nothing is checked by name and then opened. Kernels
// without openat2 (before 5.6) get a walk of one component at a time with
// O_NOFOLLOW that resolves symlinks itself and refuses the same escapes.
// Symlinks that stay inside the workspace are followed. Search and "**"
// never follow symlinks while walking, and go from descriptor to descriptor.
//
// Writes are atomic: a temporary file in the target's directory, fsync,
// renameat over the name (which replaces a symlink there rather than
// writing through it), fsync of the directory. An existing file keeps its
// permission bits; an edit through a symlink replaces the link with the
// edited file. Writing or editing a file in a .git/hooks directory, a
// .git/config, commondir or config.worktree file, or a file named .git is
// refused, by name and by where the directory really is, so links to them
// and linked or bare git directories are caught too; so is the write that
// would give a directory HEAD, objects and refs together.
//
// exec itself runs in package sandbox; FormatExec writes what it did in the
// seed's shape (stdout, "STDERR:", "Exit code: N", the head-and-tail cut,
// the timeout string) and Blocked the refusal strings.
// No tool blocks on a FIFO, and read_file, edit_file and list_dir look at a
// path (O_PATH and fstat) before they open it, so they never open a device.
//
// Not covered: a hard link inside the workspace to a file outside it (the
// kernel cannot tell it from any other file; reads follow it, writes replace
// it), mount points inside the workspace, and a directory renamed by another
// process between the .git check and the write. Search and glob bound their
// work (100,000 directory entries; search also 256 MiB read) and say so
// when they stop early; neither enters directories nested deeper than 256
// levels. edit_file's best-match search bounds its work too and then keeps
// the best window found so far.
//
// # What this package does not do
//
// It does not validate arguments: the gate compiles each schema once and
// validates calls before the policy sees them. It knows nothing of the
// policy or the audit log; the boundary sentences are text, not rules, and
// enforce nothing, and the file tools' own refusals are no substitute for
// the policy's verdict.
package tools
