package irvm

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/toolgate/toolgate/internal/value"
)

// QueryPlan is the name of the plan OPA makes for a prepared query.
const QueryPlan = "eval"

type opcode uint8

const (
	opReturn opcode = iota
	opCall
	opCallBuiltin
	opBlock
	opBreak
	opDot
	opLen
	opScan
	opNot
	opAssignInt
	opAssign
	opAssignOnce
	opReset
	opMakeNull
	opMakeNumber
	opMakeArray
	opMakeObject
	opMakeSet
	opEqual
	opNotEqual
	opIsArray
	opIsObject
	opIsSet
	opIsDefined
	opIsUndefined
	opArrayAppend
	opObjectInsert
	opObjectInsertOnce
	opObjectMerge
	opSetAdd
	opResultAdd
	opNop
)

// operand is a local (val == nil) or a constant.
type operand struct {
	local int
	val   value.Value
}

type stmt struct {
	op     opcode
	a, b   operand     // sources (Dot: a source, b key; Equal: a, b; Insert: a key, b value)
	target int         // the local written, or read (IsDefined, Scan source)
	n      int         // break index; Scan key local; function index
	value  int         // Scan value local
	val    value.Value // the constant of AssignInt, MakeNull, MakeNumber
	block  *block      // Scan, Not
	blocks []*block    // Block
	args   []operand
	bi     builtin
	name   string // the called function, for errors
	loc    location
}

// location is where a statement came from: an index into the program's
// files, and a row and column (row 0: unknown).
type location struct{ File, Row, Col int }

type block struct{ stmts []stmt }

// builtin is a resolved built-in function: a native one, or one the
// fallback gave.
type builtin struct {
	native nativeFunc
	other  fallbackFunc
}

// fallbackFunc calls a built-in this package does not implement.
type fallbackFunc func(env *Env, args []value.Value) (value.Value, error)

// fallback resolves the built-ins that have no native implementation;
// now says whether the built-in reads the evaluation's clock. It is set
// in builds that carry OPA (opa.go); without it a plan calling such a
// built-in is refused.
var fallback func(name string) (f fallbackFunc, now bool)

type function struct {
	name    string
	params  []int
	ret     int
	blocks  []*block
	nlocals int
	memo    bool // depends on input and data only
}

type plan struct {
	blocks  []*block
	nlocals int
}

// Program is a planned policy ready to evaluate. It is immutable and safe
// for concurrent use.
type Program struct {
	funcs    []*function
	plans    map[string]*plan
	files    []string
	needsNow bool
	pool     sync.Pool // of *evaluator
}

// Plans lists the names of the program's plans.
func (p *Program) Plans() []string {
	out := make([]string, 0, len(p.plans))
	for name := range p.plans {
		out = append(out, name)
	}
	return out
}

// builtin resolves a built-in function: a native one when this package
// has it, else the fallback (OPA's, when the build has OPA).
func (p *Program) builtin(name string, arity int) (builtin, error) {
	if f, ok := natives[name]; ok && f.arity == arity {
		return builtin{native: f.fn}, nil
	}
	if fallback != nil {
		if f, now := fallback(name); f != nil {
			p.needsNow = p.needsNow || now
			return builtin{other: f}, nil
		}
	}
	return builtin{}, fmt.Errorf("built-in function %s is not available", name)
}

func intValue(i int64) value.Value {
	if i >= 0 && i < 1024 {
		return value.Int(int(i))
	}
	return value.Number(strconv.FormatInt(i, 10))
}
