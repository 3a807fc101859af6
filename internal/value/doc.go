// Package value is toolgate's representation of Rego values: the policy
// input the gate builds, the data, and everything package irvm computes
// while it runs a plan.
//
// It exists for speed and for size. OPA's own values (package ast) wrap
// every value in a Term and keep every object and set in a hash map;
// building the input and running a plan over them was a third of a
// decision. Here a value is one interface word: Null, Bool, Number (its
// JSON text, as OPA keeps it), String, and pointers to Array, Object and
// Set. Objects and sets are slices kept sorted in Rego's order, which is
// the order OPA iterates them in, so a plan sees elements in the order it
// would under OPA. And the package imports nothing of OPA, so a binary
// that runs a plan made at build time need not carry OPA at all.
//
// What it covers: the JSON values and sets, Rego's total order over them
// (Compare: null < booleans < numbers < strings < arrays < objects <
// sets; numbers by their exact value), equality, Rego's text form (for
// sprintf), and conversion from and to Go's JSON values. What it does not
// cover: Rego's other terms (references, variables, comprehensions),
// which only the compiler meets, and conversion to OPA's values, which
// lives with the code that calls OPA (package irvm).
//
// Values are not safe for concurrent mutation; a plan mutates only the
// values it made itself during one evaluation.
package value
