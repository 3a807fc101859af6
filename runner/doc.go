// Package runner is what `toolgate run` does with each input line: decode
// its calls, decide each one just before it runs, settle asks (prompt on the
// terminal, or --approve deny/allow), execute the allowed calls — exec in the
// sandbox, the file tools in-process beneath the workspace — and return one
// Record per call, in input order, whose Output is exactly what the model
// should see.
//
// A line with several calls is a batch: consecutive concurrency-safe tools
// (read_file, list_dir, search, glob) run in parallel; every other call runs
// alone, in order. A decode error, an unknown tool, a denial, an unanswered
// ask or a sandbox that cannot run yields a record that ran nothing
// (exit_code null) with a reason a person and a model can act on; a panic in
// a tool becomes an error record.
//
// Not covered here: writing the audit log (issue 4), MCP or HTTP transports.
package runner
