package irvm

import (
	"fmt"
	"math"
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

// operand is a frame slot (>= 0) or a constant (-1-i is the program's
// constant i).
type operand int32

// stmt is one statement, kept small (40 bytes): a program has thousands
// and a cold start touches them all.
type stmt struct {
	op     opcode
	target int32   // the local written, or read (IsDefined, IsUndefined, Scan source, ResultAdd, Return)
	n      int32   // break index; Scan key local; function index; MakeArray capacity
	value  int32   // Scan value local
	a, b   operand // sources (Dot: source, key; Equal: a, b; Insert: key, value; AssignInt, MakeNull, MakeNumber: the constant)
	id     int32   // the statement's index in Program.locs
	x      *extra  // Call, CallBuiltin, Block, Scan, Not
}

// extra holds what only calls and statements with blocks have.
type extra struct {
	block  *block    // Scan, Not
	blocks []*block  // Block
	args   []operand // Call, CallBuiltin
	bi     uint16    // CallBuiltin: the index in Program.builtins
	name   string    // Call, CallBuiltin: the called function, for errors
}

// location is where a statement came from: an index into the program's
// files, and a row and column (row 0: unknown).
type location struct{ File, Row, Col int32 }

// constKey identifies a constant by kind and text (how a program written
// as Go source keeps its constants).
type constKey struct {
	kind byte
	text string
}

// constant kinds
const (
	kNull = iota
	kFalse
	kTrue
	kNumber
	kString
)

func keyOf(v value.Value) (constKey, bool) {
	switch v := v.(type) {
	case value.Null:
		return constKey{kind: kNull}, true
	case value.Bool:
		if v {
			return constKey{kind: kTrue}, true
		}
		return constKey{kind: kFalse}, true
	case value.Number:
		return constKey{kNumber, string(v)}, true
	case value.String:
		return constKey{kString, string(v)}, true
	}
	return constKey{}, false
}

func (k constKey) value() value.Value {
	switch k.kind {
	case kNull:
		return value.NullValue
	case kFalse:
		return value.False
	case kTrue:
		return value.True
	case kNumber:
		if n, err := strconv.ParseInt(k.text, 10, 64); err == nil && strconv.FormatInt(n, 10) == k.text {
			return intValue(n)
		}
		return value.Number(k.text)
	}
	return value.String(k.text)
}

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
	params  []int32
	ret     int32
	blocks  []*block
	nlocals int
	memo    bool // depends on input and data only
}

type plan struct {
	name    string
	blocks  []*block
	nlocals int
}

// Program is a planned policy ready to evaluate. It is immutable and safe
// for concurrent use.
type Program struct {
	funcs    []*function
	consts   []value.Value
	locs     []location
	plans    []*plan
	files    []string
	needsNow bool
	// bnames are the built-ins the program calls (name and arity), and
	// builtins their implementations, resolved from the names (resolve)
	bnames   []builtinName
	builtins []builtin
	// guards are the membership tests that open blocks of functions, by
	// function and block (findGuards)
	guards [][]*guard
	// guardPaths are the distinct pairs of keys the guards look up
	guardPaths [][2]operand
	pool       sync.Pool // of *evaluator
}

type builtinName struct {
	name  string
	arity int
}

// Plans lists the names of the program's plans.
func (p *Program) Plans() []string {
	out := make([]string, 0, len(p.plans))
	for _, pl := range p.plans {
		out = append(out, pl.name)
	}
	return out
}

func (p *Program) plan(name string) *plan {
	for _, pl := range p.plans {
		if pl.name == name {
			return pl
		}
	}
	return nil
}

// builtin returns the index of a built-in function in the program's
// table, adding it: resolved to a native one when this package has it,
// else to the fallback's (OPA's, when the build has OPA).
func (p *Program) builtin(name string, arity int) (uint16, error) {
	for i, b := range p.bnames {
		if b.name == name && b.arity == arity {
			return uint16(i), nil
		}
	}
	if len(p.bnames) >= math.MaxUint16 {
		return 0, fmt.Errorf("more than %d built-in functions", math.MaxUint16)
	}
	bi, err := p.resolveOne(name, arity)
	if err != nil {
		return 0, err
	}
	p.bnames = append(p.bnames, builtinName{name, arity})
	p.builtins = append(p.builtins, bi)
	return uint16(len(p.bnames) - 1), nil
}

// resolve fills the built-in table from the names (a program written out
// as Go source carries the names only).
func (p *Program) resolve() error {
	p.builtins = make([]builtin, len(p.bnames))
	for i, b := range p.bnames {
		bi, err := p.resolveOne(b.name, b.arity)
		if err != nil {
			return err
		}
		p.builtins[i] = bi
	}
	return nil
}

func (p *Program) resolveOne(name string, arity int) (builtin, error) {
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
