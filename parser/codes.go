package parser

// Stable codes for scripts the analyser refuses to reason about. Each one is a
// deny: toolgate never allows what it could not analyse.
const (
	CodeEmpty       = "parse.empty"       // the command is empty or only blanks and comments
	CodeNUL         = "parse.nul_byte"    // the command holds a NUL byte
	CodeTooLong     = "parse.too_long"    // the command is longer than the size limit
	CodeTooDeep     = "parse.too_deep"    // nested scripts (sh -c, eval, $(…)) go deeper than the bound
	CodeTooComplex  = "parse.too_complex" // more commands, words or glob matches than the analysis budget
	CodeSyntax      = "parse.syntax"      // bash could not parse it either
	CodeUnsupported = "parse.unsupported" // a construct the analyser does not model
	CodeInternal    = "parse.internal"    // the analyser failed (a recovered panic)
)
