package irvm

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
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
type Options struct {
	// Capabilities are handed to OPA's built-in functions.
	Capabilities *ast.Capabilities
}

// Eval runs the named plan with input and data and returns the plan's
// result set: the values its ResultSetAddStmt statements added, each an
// object of the query's variables. A nil input is an undefined input.
func (p *Program) Eval(ctx context.Context, name string, input, data ast.Value, o Options) (ast.Set, error) {
	pl, ok := p.plans[name]
	if !ok {
		return nil, &Error{Code: "eval_internal_error", Message: "no plan named " + name}
	}
	e := p.getEvaluator()
	defer p.putEvaluator(e)
	e.ctx, e.results = ctx, ast.NewSet()
	e.bctx = topdown.BuiltinContext{
		Context:      ctx,
		Cache:        e.cache,
		Capabilities: o.Capabilities,
		Seed:         rand.Reader, // rand.intn, uuid.rfc4122, io.jwt.encode_sign (as topdown's default)
	}
	if p.needsNow {
		e.bctx.Time = ast.InternedTerm(time.Now().UnixNano())
	}
	fr := &frame{locals: make([]*ast.Term, pl.nlocals)}
	if input != nil {
		fr.locals[0] = ast.NewTerm(input)
	}
	if data == nil {
		data = ast.NewObject()
	}
	fr.locals[1] = ast.NewTerm(data)
	e.input, e.data = fr.locals[0], fr.locals[1]
	if err := e.run(pl.blocks, fr); err != nil {
		return nil, err
	}
	return e.results, nil
}

// getEvaluator takes an evaluator from the program's pool: its memo and
// frames are reused across evaluations (and cleared before use).
func (p *Program) getEvaluator() *evaluator {
	if e, ok := p.pool.Get().(*evaluator); ok {
		clear(e.memoed)
		clear(e.cache)
		return e
	}
	n := len(p.funcs)
	e := &evaluator{
		prog:   p,
		memo:   make([]*ast.Term, n),
		memoed: make([]bool, n),
		frames: make([]frame, n),
		active: make([]bool, n),
		cache:  builtins.Cache{},
	}
	for i, fn := range p.funcs {
		e.frames[i].locals = make([]*ast.Term, fn.nlocals)
	}
	return e
}

func (p *Program) putEvaluator(e *evaluator) {
	clear(e.memo) // the values belong to the caller now
	e.ctx, e.input, e.data, e.results = nil, nil, nil, nil
	e.bctx = topdown.BuiltinContext{}
	clear(e.active)
	p.pool.Put(e)
}

type evaluator struct {
	ctx         context.Context
	prog        *Program
	input, data *ast.Term
	memo        []*ast.Term
	memoed      []bool
	results     ast.Set
	bctx        topdown.BuiltinContext
	steps       int
	args        []*ast.Term // scratch for built-in calls
	cache       builtins.Cache
	// frames holds each function's frame; active marks those in use (a
	// function called again while active gets a fresh frame: Rego has no
	// recursion, but the plan is not trusted to know that)
	frames []frame
	active []bool
}

type frame struct {
	locals []*ast.Term
	ret    *ast.Term
}

// Results of exec: the block ran to its end, a function returned, or a
// break that still has levels to leave (0: leave the block just exited).
const (
	completed = -1
	returned  = -2
)

// run executes a function's or a plan's blocks in order, as OPA's Wasm
// target does: each but the last is a block of its own; a return ends all.
func (e *evaluator) run(blocks []*block, fr *frame) error {
	for _, b := range blocks {
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

func (e *evaluator) get(fr *frame, o operand) *ast.Term {
	if o.term != nil {
		return o.term
	}
	return fr.locals[o.local]
}

func (e *evaluator) fail(s *stmt, code, msg string) error {
	err := &Error{Code: code, Message: msg}
	if s.loc.Row > 0 {
		file := ""
		if s.loc.File >= 0 && s.loc.File < len(e.prog.files) {
			file = e.prog.files[s.loc.File]
		}
		err.Location = fmt.Sprintf("%s:%d:%d", file, s.loc.Row, s.loc.Col)
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
		case opCall:
			v, err := e.call(s, fr)
			if err != nil {
				return 0, err
			}
			if v == nil {
				return 0, nil
			}
			L[s.target] = v
		case opCallBuiltin:
			v, err := e.builtin(s, fr)
			if err != nil {
				return 0, err
			}
			if v == nil {
				return 0, nil
			}
			L[s.target] = v
		case opBlock:
			for _, nb := range s.blocks {
				r, err := e.exec(nb, fr)
				if err != nil || r == returned {
					return r, err
				}
				if r > 0 {
					return r - 1, nil
				}
			}
		case opBreak:
			return s.n, nil
		case opDot:
			src, key := e.get(fr, s.a), e.get(fr, s.b)
			if src == nil || key == nil {
				return 0, nil
			}
			v := src.Get(key)
			if v == nil {
				return 0, nil
			}
			L[s.target] = v
		case opLen:
			src := e.get(fr, s.a)
			if src == nil {
				return 0, nil
			}
			n, ok := length(src.Value)
			if !ok {
				return 0, e.fail(s, "eval_internal_error", fmt.Sprintf("length of %s", ast.ValueName(src.Value)))
			}
			L[s.target] = ast.InternedTerm(n)
		case opScan:
			r, err := e.scan(s, fr)
			if err != nil || r == returned {
				return r, err
			}
			if r >= 0 {
				return r, nil
			}
		case opNot:
			r, err := e.exec(s.block, fr)
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
			L[s.target] = s.term
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
				if !old.Equal(v) {
					return 0, e.fail(s, "eval_conflict_error", "complete rules must not produce multiple outputs")
				}
				break
			}
			L[s.target] = v
		case opReset:
			L[s.target] = nil
		case opMakeArray:
			L[s.target] = ast.NewTerm(ast.NewArrayWithCapacity(s.n))
		case opMakeObject:
			L[s.target] = ast.NewTerm(ast.NewObject())
		case opMakeSet:
			L[s.target] = ast.NewTerm(ast.NewSet())
		case opEqual, opNotEqual:
			a, b := e.get(fr, s.a), e.get(fr, s.b)
			if a == nil || b == nil {
				return 0, nil
			}
			if a.Equal(b) != (s.op == opEqual) {
				return 0, nil
			}
		case opIsArray, opIsObject, opIsSet:
			v := e.get(fr, s.a)
			if v == nil || !hasType(v.Value, s.op) {
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
			arr, ok := termValue[*ast.Array](L[s.target])
			if v == nil || !ok {
				return 0, e.fail(s, "eval_internal_error", "append to a value that is not an array")
			}
			L[s.target] = ast.NewTerm(arr.Append(v))
		case opObjectInsert, opObjectInsertOnce:
			k, v := e.get(fr, s.a), e.get(fr, s.b)
			obj, ok := termValue[ast.Object](L[s.target])
			if k == nil || v == nil || !ok {
				return 0, e.fail(s, "eval_internal_error", "insert into a value that is not an object")
			}
			if s.op == opObjectInsertOnce {
				if old := obj.Get(k); old != nil {
					if !old.Equal(v) {
						return 0, e.fail(s, "eval_conflict_error", "object keys must be unique")
					}
					break
				}
			}
			obj.Insert(k, v)
		case opObjectMerge:
			a, aok := termValue[ast.Object](L[s.a.local])
			b, bok := termValue[ast.Object](L[s.b.local])
			if !aok || !bok {
				return 0, e.fail(s, "eval_conflict_error", "object merge of a value that is not an object")
			}
			m, ok := a.Merge(b)
			if !ok {
				return 0, e.fail(s, "eval_conflict_error", "object keys must be unique")
			}
			L[s.target] = ast.NewTerm(m)
		case opSetAdd:
			v := e.get(fr, s.a)
			set, ok := termValue[ast.Set](L[s.target])
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

// scan runs the block once per element of the source. Inside it, level 0
// is the next element and level 1 the end of the scan (OPA's Wasm target
// lays a scan out as a loop in a block). It returns completed when the
// statement after the scan runs next.
func (e *evaluator) scan(s *stmt, fr *frame) (int, error) {
	src := fr.locals[s.target]
	if src == nil {
		return completed, nil
	}
	var out int
	var err error
	step := func(k, v *ast.Term) bool {
		e.steps++
		if e.steps&1023 == 0 && e.ctx.Err() != nil {
			err = e.fail(s, "eval_cancel_error", "evaluation cancelled: "+e.ctx.Err().Error())
			return true
		}
		fr.locals[s.n], fr.locals[s.value] = k, v
		r, xerr := e.exec(s.block, fr)
		switch {
		case xerr != nil:
			err = xerr
			return true
		case r == returned:
			out = returned
			return true
		case r >= 2:
			out = r - 2
			return true
		case r == 1:
			return true
		}
		return false
	}
	out = completed
	switch v := src.Value.(type) {
	case *ast.Array:
		for i := 0; i < v.Len(); i++ {
			if step(ast.InternedTerm(i), v.Elem(i)) {
				break
			}
		}
	case ast.Object:
		v.Until(step)
	case ast.Set:
		v.Until(func(t *ast.Term) bool { return step(t, t) })
	}
	return out, err
}

// call runs a planned function. Functions of input and data alone are
// memoised for the evaluation, as OPA's Wasm target does.
func (e *evaluator) call(s *stmt, fr *frame) (*ast.Term, error) {
	fn := e.prog.funcs[s.n]
	memo := fn.memo && e.get(fr, s.args[0]) == e.input && e.get(fr, s.args[1]) == e.data
	if memo && e.memoed[s.n] {
		return e.memo[s.n], nil
	}
	var callee *frame
	if e.active[s.n] {
		callee = &frame{locals: make([]*ast.Term, fn.nlocals)}
	} else {
		callee = &e.frames[s.n]
		clear(callee.locals)
		callee.ret = nil
		e.active[s.n] = true
	}
	for i, p := range fn.params {
		callee.locals[p] = e.get(fr, s.args[i]) // input may be undefined
	}
	err := e.run(fn.blocks, callee)
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

// builtin calls a built-in function; nil is undefined.
func (e *evaluator) builtin(s *stmt, fr *frame) (*ast.Term, error) {
	args := e.args[:0]
	for _, a := range s.args {
		v := e.get(fr, a)
		if v == nil {
			return nil, nil
		}
		args = append(args, v)
	}
	e.args = args[:0]
	if s.bi.native != nil {
		if v, ok, err := s.bi.native(args); ok || err != nil {
			if err != nil {
				return nil, e.fail(s, "eval_builtin_error", s.name+": "+err.Error())
			}
			return v, nil
		}
	}
	// OPA's built-ins may keep their operands: give them their own slice.
	own := make([]*ast.Term, len(args))
	copy(own, args)
	var out *ast.Term
	err := s.bi.opa(e.bctx, own, func(t *ast.Term) error {
		out = t
		return nil
	})
	if err != nil {
		return nil, e.fail(s, "eval_builtin_error", err.Error())
	}
	return out, nil
}

// hasType is the check of IsArrayStmt, IsObjectStmt and IsSetStmt.
func hasType(v ast.Value, op opcode) bool {
	switch v.(type) {
	case *ast.Array:
		return op == opIsArray
	case ast.Object:
		return op == opIsObject
	case ast.Set:
		return op == opIsSet
	}
	return false
}

func termValue[T ast.Value](t *ast.Term) (T, bool) {
	var zero T
	if t == nil {
		return zero, false
	}
	v, ok := t.Value.(T)
	return v, ok
}

func length(v ast.Value) (int, bool) {
	switch v := v.(type) {
	case *ast.Array:
		return v.Len(), true
	case ast.Object:
		return v.Len(), true
	case ast.Set:
		return v.Len(), true
	case ast.String:
		return len([]rune(string(v))), true
	}
	return 0, false
}
