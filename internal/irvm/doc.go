// Package irvm evaluates a Rego policy that OPA has compiled and planned
// into its intermediate representation (package ir), instead of OPA's
// tree-walking evaluator (topdown).
//
// OPA still does all the work that gives a policy its meaning: parsing,
// the compiler's checks and rewrites, and planning the query into
// blocks of statements. irvm runs those statements over OPA's own values
// (ast.Value), calls OPA's own built-in functions for everything but a
// few hot, simple ones, and memoises rules that depend on input and data
// only, as OPA's Wasm target does. The gain is speed: no unification, no
// binding trails, no per-expression tracing hooks.
//
// What it covers: every statement the planner emits for policies
// without `with` (a plan holding a WithStmt or a dynamic call is refused
// at Compile, so the caller falls back to topdown), errors where topdown
// with strict built-in errors has them (conflicting rule values, a
// built-in's error) and undefined where topdown is undefined.
//
// What it does not cover: tracing, explanations, coverage, print
// statements, partial evaluation and policy tests; those stay with
// topdown. Equivalence with topdown is checked by differential tests
// here and over the whole attack corpus in package gate.
package irvm
