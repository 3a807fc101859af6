// Package irvm evaluates a Rego policy that OPA has compiled and planned
// into its intermediate representation (package ir), instead of OPA's
// tree-walking evaluator (topdown).
//
// OPA still does all the work that gives a policy its meaning: parsing,
// the compiler's checks and rewrites, and planning the query into
// blocks of statements. irvm runs those statements over toolgate's own
// values (package value: no Term wrappers, no hash map per object),
// implements the built-ins of toolgate's default policy natively
// (natives.go; TestNativesAgree compares each with OPA's over a grid of
// operands), calls OPA's own for the rest (opa.go, converting the
// operands), and memoises rules that depend on input and data only, as
// OPA's Wasm target does. A rule body that opens with a membership test on
// the input ("curl" in input.present.names) is passed over when the test
// fails, without running its statements (guard.go), its path looked up
// once per evaluation. The gain is speed: no unification, no binding
// trails, no per-expression tracing hooks. A compiled program can be
// written out as Go source of this package (static.go) and used without
// OPA's compiler: that is how toolgate ships the default policy's plan
// (default_plan.go, generated), statically initialized so a process
// decodes and allocates nothing for it.
//
// The files that use OPA (compile.go: OPA's plan to a Program; plan.go:
// having OPA plan a query; opa.go: OPA's built-ins and values) are left
// out of toolgate's small build (-tags toolgate_small): it runs the
// generated program with the native built-ins alone.
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
