// Package audit will write the append-only, hash-chained audit log of every
// decision and outcome (see DESIGN.md, "Audit log").
//
// Not built yet: decisions made by `toolgate check` are printed, not logged.
package audit
