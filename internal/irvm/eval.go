package irvm

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/value"
)

// Error is an evaluation error: a conflict between rule values, a
// built-in's error, a cancelled context or a plan that breaks its own
// rules. Evaluation stops at the first.
type Error struct {
	Code     string // "eval_conflict_error", "eval_builtin_error", "eval_cancel_error", "eval_internal_error"
	Message  string
	Location string // file:row:col of the statement, when the plan has it
}

func (e *Error) Error() string {
	if e.Location != "" {
		return e.Location + ": " + e.Code + ": " + e.Message
	}
	return e.Code + ": " + e.Message
}

// Options tune one evaluation.
type Options struct{}

// Eval runs the named plan with input and data and returns the plan's
// result set: the values its ResultSetAddStmt statements added, each an
// object of the query's variables. A nil input is an undefined input.
func (p *Program) Eval(ctx context.Context, name string, input, data value.Value, _ Options) (*value.Set, error) {
	pl := p.plan(name)
	if pl == nil {
		return nil, &Error{Code: "eval_internal_error", Message: "no plan named " + name}
	}
	e := p.getEvaluator()
	defer p.putEvaluator(e)
	e.env = Env{Ctx: ctx, needsNow: p.needsNow}
	e.results = value.NewSet(1)
	fr := &frame{locals: make([]value.Value, pl.nlocals)}
	fr.locals[0] = input
	if data == nil {
		data = value.NewObject(0)
	}
	fr.locals[1] = data
	e.input, e.data = input, data
	if err := e.run(pl.blocks, nil, fr); err != nil {
		return nil, err
	}
	return e.results, nil
}

// Env is what one evaluation gives the built-ins it calls through the
// fallback (OPA's, package irvm's opa.go): the context, and a slot the
// fallback keeps its per-evaluation state in.
type Env struct {
	Ctx      context.Context
	State    any
	needsNow bool
}

// NeedsNow says whether the program calls a built-in that reads the
// evaluation's clock.
func (e *Env) NeedsNow() bool { return e.needsNow }

// getEvaluator takes an evaluator from the program's pool: its memo and
// frames are reused across evaluations (and cleared before use).
func (p *Program) getEvaluator() *evaluator {
	if e, ok := p.pool.Get().(*evaluator); ok {
		clear(e.memoed)
		return e
	}
	n := len(p.funcs)
	e := &evaluator{
		prog:   p,
		consts: p.consts,
		memo:   make([]value.Value, n),
		memoed: make([]bool, n),
		frames: make([]frame, n),
		active: make([]bool, n),
		used:   make([]bool, n),
		gpaths: make([]guardPath, len(p.guardPaths)),
	}
	for i, fn := range p.funcs {
		e.frames[i].locals = make([]value.Value, fn.nlocals)
	}
	return e
}

func (p *Program) putEvaluator(e *evaluator) {
	clear(e.memo) // the values belong to the caller now
	// only the frames this evaluation used hold values
	for _, i := range e.usedList {
		clear(e.frames[i].locals)
		e.frames[i].ret = nil
		e.used[i] = false
	}
	e.usedList = e.usedList[:0]
	e.input, e.data, e.results = nil, nil, nil
	clear(e.gpaths)
	e.env = Env{}
	clear(e.active)
	clear(e.args[:cap(e.args)])
	p.pool.Put(e)
}

type evaluator struct {
	prog        *Program
	consts      []value.Value // prog.consts
	env         Env
	input, data value.Value
	memo        []value.Value
	memoed      []bool
	results     *value.Set
	steps       int
	args        []value.Value // scratch for built-in calls
	// frames holds each function's frame; active marks those in use (a
	// function called again while active gets a fresh frame: Rego has no
	// recursion, but the plan is not trusted to know that)
	frames []frame
	active []bool
	// used marks the frames this evaluation used, listed in usedList
	used     []bool
	usedList []int32
	// gpaths are the guards' paths into the input looked up in this
	// evaluation, by Program.guardPaths index
	gpaths []guardPath
}

type frame struct {
	locals []value.Value
	ret    value.Value
}

// Results of exec: the block ran to its end, a function returned, or a
// break that still has levels to leave (0: leave the block just exited).
const (
	completed = -1
	returned  = -2
)

// run executes a function's or a plan's blocks in order, as OPA's Wasm
// target does: each but the last is a block of its own; a return ends all.
// A block whose guard fails is passed over (guards[i] is block i's, or
// nil; guards is nil for a plan and for a function without guards).
func (e *evaluator) run(blocks []*block, guards []*guard, fr *frame) error {
	for i, b := range blocks {
		if guards != nil {
			if g := guards[i]; g != nil && e.fails(g, fr) {
				continue
			}
		}
		r, err := e.exec(b, fr)
		if err != nil {
			return err
		}
		if r == returned || r > 0 {
			return nil
		}
	}
	return nil
}

func (e *evaluator) get(fr *frame, o operand) value.Value {
	if o >= 0 {
		return fr.locals[o]
	}
	return e.consts[-1-o]
}

func (e *evaluator) fail(s *stmt, code, msg string) error {
	err := &Error{Code: code, Message: msg}
	if s.id >= 0 && int(s.id) < len(e.prog.locs) {
		if loc := e.prog.locs[s.id]; loc.Row > 0 {
			file := ""
			if loc.File >= 0 && int(loc.File) < len(e.prog.files) {
				file = e.prog.files[loc.File]
			}
			err.Location = fmt.Sprintf("%s:%d:%d", file, loc.Row, loc.Col)
		}
	}
	return err
}

// exec runs one block. It returns completed, returned, or the number of
// enclosing blocks still to leave after this one.
func (e *evaluator) exec(b *block, fr *frame) (int, error) {
	L := fr.locals
	for i := range b.stmts {
		s := &b.stmts[i]
		switch s.op {
		case opReturn:
			fr.ret = L[s.target]
			return returned, nil
		case opCall, opCallBuiltin:
			var v value.Value
			var err error
			if s.op == opCall {
				v, err = e.call(s, fr)
			} else {
				v, err = e.builtin(s, fr)
			}
			if err != nil {
				return 0, err
			}
			if v == nil {
				return 0, nil
			}
			L[s.target] = v
		case opBlock:
			for _, nb := range s.x.blocks {
				r, err := e.exec(nb, fr)
				if err != nil || r == returned {
					return r, err
				}
				if r > 0 {
					return r - 1, nil
				}
			}
		case opBreak:
			return int(s.n), nil
		case opDot:
			src, key := e.get(fr, s.a), e.get(fr, s.b)
			if src == nil || key == nil {
				return 0, nil
			}
			v := get(src, key)
			if v == nil {
				return 0, nil
			}
			L[s.target] = v
		case opLen:
			src := e.get(fr, s.a)
			if src == nil {
				return 0, nil
			}
			n, ok := length(src)
			if !ok {
				return 0, e.fail(s, "eval_internal_error", "length of "+typeName(src))
			}
			L[s.target] = value.Int(n)
		case opScan:
			r, err := e.scan(s, fr)
			if err != nil || r == returned {
				return r, err
			}
			if r >= 0 {
				return r, nil
			}
		case opNot:
			r, err := e.exec(s.x.block, fr)
			if err != nil || r == returned {
				return r, err
			}
			if r == completed {
				return 0, nil // the negated block held: not is undefined
			}
			if r > 0 {
				return r - 1, nil
			}
		case opAssignInt, opMakeNull, opMakeNumber:
			L[s.target] = e.consts[-1-s.a]
		case opAssign:
			v := e.get(fr, s.a)
			if v == nil {
				return 0, nil
			}
			L[s.target] = v
		case opAssignOnce:
			v := e.get(fr, s.a)
			if v == nil {
				return 0, nil
			}
			if old := L[s.target]; old != nil {
				if !value.Equal(old, v) {
					return 0, e.fail(s, "eval_conflict_error", "complete rules must not produce multiple outputs")
				}
				break
			}
			L[s.target] = v
		case opReset:
			L[s.target] = nil
		case opMakeArray:
			L[s.target] = value.NewArrayCap(int(s.n))
		case opMakeObject:
			L[s.target] = value.NewObject(2)
		case opMakeSet:
			L[s.target] = value.NewSet(2)
		case opEqual, opNotEqual:
			a, b := e.get(fr, s.a), e.get(fr, s.b)
			if a == nil || b == nil {
				return 0, nil
			}
			if value.Equal(a, b) != (s.op == opEqual) {
				return 0, nil
			}
		case opIsArray, opIsObject, opIsSet:
			v := e.get(fr, s.a)
			if v == nil || !hasType(v, s.op) {
				return 0, nil
			}
		case opIsDefined:
			if L[s.target] == nil {
				return 0, nil
			}
		case opIsUndefined:
			if L[s.target] != nil {
				return 0, nil
			}
		case opArrayAppend:
			v := e.get(fr, s.a)
			arr, ok := L[s.target].(*value.Array)
			if v == nil || !ok {
				return 0, e.fail(s, "eval_internal_error", "append to a value that is not an array")
			}
			arr.Append(v)
		case opObjectInsert, opObjectInsertOnce:
			k, v := e.get(fr, s.a), e.get(fr, s.b)
			obj, ok := L[s.target].(*value.Object)
			if k == nil || v == nil || !ok {
				return 0, e.fail(s, "eval_internal_error", "insert into a value that is not an object")
			}
			if s.op == opObjectInsertOnce {
				if old := obj.Get(k); old != nil {
					if !value.Equal(old, v) {
						return 0, e.fail(s, "eval_conflict_error", "object keys must be unique")
					}
					break
				}
			}
			obj.Insert(k, v)
		case opObjectMerge:
			a, aok := L[s.a].(*value.Object)
			b, bok := L[s.b].(*value.Object)
			if !aok || !bok {
				return 0, e.fail(s, "eval_conflict_error", "object merge of a value that is not an object")
			}
			m, ok := a.Merge(b)
			if !ok {
				return 0, e.fail(s, "eval_conflict_error", "object keys must be unique")
			}
			L[s.target] = m
		case opSetAdd:
			v := e.get(fr, s.a)
			set, ok := L[s.target].(*value.Set)
			if v == nil || !ok {
				return 0, e.fail(s, "eval_internal_error", "add to a value that is not a set")
			}
			set.Add(v)
		case opResultAdd:
			v := L[s.target]
			if v == nil {
				return 0, e.fail(s, "eval_internal_error", "undefined result")
			}
			e.results.Add(v)
		case opNop:
		}
	}
	return completed, nil
}

// scan runs the block once per element of the source, in OPA's order
// (arrays by index, objects by key, sets by element). Inside it, level 0
// is the next element and level 1 the end of the scan (OPA's Wasm target
// lays a scan out as a loop in a block). It returns completed when the
// statement after the scan runs next.
func (e *evaluator) scan(s *stmt, fr *frame) (int, error) {
	step := func(k, v value.Value) (int, bool, error) {
		e.steps++
		if e.steps&1023 == 0 && e.env.Ctx.Err() != nil {
			return 0, true, e.fail(s, "eval_cancel_error", "evaluation cancelled: "+e.env.Ctx.Err().Error())
		}
		fr.locals[s.n], fr.locals[s.value] = k, v
		r, err := e.exec(s.x.block, fr)
		switch {
		case err != nil:
			return 0, true, err
		case r == returned:
			return returned, true, nil
		case r >= 2:
			return r - 2, true, nil
		case r == 1:
			return completed, true, nil
		}
		return completed, false, nil
	}
	switch v := fr.locals[s.target].(type) {
	case *value.Array:
		for i := 0; i < v.Len(); i++ {
			if r, stop, err := step(value.Int(i), v.Elem(i)); stop {
				return r, err
			}
		}
	case *value.Object:
		for i := 0; i < v.Len(); i++ {
			k, x := v.Entry(i)
			if r, stop, err := step(k, x); stop {
				return r, err
			}
		}
	case *value.Set:
		for i := 0; i < v.Len(); i++ {
			x := v.Elems()[i]
			if r, stop, err := step(x, x); stop {
				return r, err
			}
		}
	}
	return completed, nil
}

// call runs a planned function. Functions of input and data alone are
// memoised for the evaluation, as OPA's Wasm target does.
func (e *evaluator) call(s *stmt, fr *frame) (value.Value, error) {
	fn := e.prog.funcs[s.n]
	args := s.x.args
	memo := fn.memo && same(e.get(fr, args[0]), e.input) && same(e.get(fr, args[1]), e.data)
	if memo && e.memoed[s.n] {
		return e.memo[s.n], nil
	}
	var callee *frame
	if e.active[s.n] {
		callee = &frame{locals: make([]value.Value, fn.nlocals)}
	} else {
		callee = &e.frames[s.n]
		clear(callee.locals)
		callee.ret = nil
		e.active[s.n] = true
		if !e.used[s.n] {
			e.used[s.n] = true
			e.usedList = append(e.usedList, s.n)
		}
	}
	for i, p := range fn.params {
		callee.locals[p] = e.get(fr, args[i]) // input may be undefined
	}
	err := e.run(fn.blocks, e.prog.guards[s.n], callee)
	if callee == &e.frames[s.n] {
		e.active[s.n] = false
	}
	if err != nil {
		return nil, err
	}
	ret := callee.ret
	if memo {
		e.memo[s.n], e.memoed[s.n] = ret, true
	}
	return ret, nil
}

// same says whether a and b are the very same value: the same pointer
// for composite values (what memoisation needs: this evaluation's input
// and data, not an equal copy), the same scalar otherwise.
func same(a, b value.Value) bool {
	switch a.(type) {
	case *value.Array, *value.Object, *value.Set, nil:
		return a == b
	}
	return value.Equal(a, b) && b != nil
}

// builtin calls a built-in function; nil is undefined.
func (e *evaluator) builtin(s *stmt, fr *frame) (value.Value, error) {
	args := e.args[:0]
	for _, a := range s.x.args {
		v := e.get(fr, a)
		if v == nil {
			return nil, nil
		}
		args = append(args, v)
	}
	e.args = args[:0]
	var out value.Value
	var err error
	bi := &e.prog.builtins[s.x.bi]
	if bi.native != nil {
		out, err = bi.native(args)
	} else {
		// a fallback may keep its operands: give it its own slice
		out, err = bi.other(&e.env, append([]value.Value(nil), args...))
	}
	if err != nil {
		return nil, e.fail(s, "eval_builtin_error", s.x.name+": "+err.Error())
	}
	return out, nil
}

// get is the value at key in src (DotStmt, object.get): an object's
// value, an array's element at an integer index, a set's element; nil
// otherwise.
func get(src, key value.Value) value.Value {
	switch c := src.(type) {
	case *value.Object:
		return c.Get(key)
	case *value.Array:
		if n, ok := key.(value.Number); ok {
			if i, ok := n.Int(); ok && i >= 0 && i < c.Len() {
				return c.Elem(i)
			}
		}
	case *value.Set:
		if c.Contains(key) {
			return key
		}
	}
	return nil
}

// hasType is the check of IsArrayStmt, IsObjectStmt and IsSetStmt.
func hasType(v value.Value, op opcode) bool {
	switch v.(type) {
	case *value.Array:
		return op == opIsArray
	case *value.Object:
		return op == opIsObject
	case *value.Set:
		return op == opIsSet
	}
	return false
}

func length(v value.Value) (int, bool) {
	switch v := v.(type) {
	case *value.Array:
		return v.Len(), true
	case *value.Object:
		return v.Len(), true
	case *value.Set:
		return v.Len(), true
	case value.String:
		return utf8.RuneCountInString(string(v)), true
	}
	return 0, false
}
