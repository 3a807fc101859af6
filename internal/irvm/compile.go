//go:build !toolgate_small

package irvm

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ir"

	"github.com/toolgate/toolgate/internal/value"
)

// Compile turns OPA's plan into a Program. A plan using a statement or a
// built-in this package does not run is refused with an error, so the
// caller keeps OPA's own evaluator rather than guessing.
func Compile(p *ir.Policy) (*Program, error) {
	if p == nil || p.Plans == nil {
		return nil, fmt.Errorf("irvm: empty plan")
	}
	c := &compiler{prog: &Program{}, funcIndex: map[string]int{}, consts: map[constKey]operand{}}
	if p.Static != nil {
		for _, s := range p.Static.Strings {
			c.strings = append(c.strings, s.Value)
		}
		for _, f := range p.Static.Files {
			c.prog.files = append(c.prog.files, f.Value)
		}
	}
	var funcs []*ir.Func
	if p.Funcs != nil {
		funcs = p.Funcs.Funcs
	}
	for i, f := range funcs {
		if _, dup := c.funcIndex[f.Name]; dup {
			return nil, fmt.Errorf("irvm: function %s planned twice", f.Name)
		}
		if len(f.Params) < 2 {
			return nil, fmt.Errorf("irvm: function %s takes %d parameters; planned functions take input and data first", f.Name, len(f.Params))
		}
		c.funcIndex[f.Name] = i
		c.prog.funcs = append(c.prog.funcs, &function{name: f.Name, params: make([]int32, len(f.Params))})
	}
	for i, f := range funcs {
		fn := c.prog.funcs[i]
		c.slots = map[int]int32{}
		for j, pl := range f.Params {
			fn.params[j] = c.see(int(pl))
		}
		fn.ret = c.see(int(f.Return))
		fn.memo = len(f.Params) == 2
		var err error
		if fn.blocks, err = c.blocks(f.Blocks); err != nil {
			return nil, fmt.Errorf("irvm: function %s: %w", f.Name, err)
		}
		fn.nlocals = len(c.slots)
	}
	for _, pl := range p.Plans.Plans {
		c.slots = map[int]int32{}
		c.see(int(ir.Input))
		c.see(int(ir.Data))
		out := &plan{name: pl.Name}
		var err error
		if out.blocks, err = c.blocks(pl.Blocks); err != nil {
			return nil, fmt.Errorf("irvm: plan %s: %w", pl.Name, err)
		}
		out.nlocals = len(c.slots)
		c.prog.plans = append(c.prog.plans, out)
	}
	c.prog.findGuards()
	return c.prog, nil
}

type compiler struct {
	prog      *Program
	strings   []string
	funcIndex map[string]int
	consts    map[constKey]operand
	// slots numbers the IR locals one function (or plan) uses densely:
	// the planner numbers them across the whole policy, so a function's
	// highest local is in the thousands while it uses a few dozen.
	slots map[int]int32
}

// see returns the frame slot of IR local l.
func (c *compiler) see(l int) int32 {
	if s, ok := c.slots[l]; ok {
		return s
	}
	s := int32(len(c.slots))
	c.slots[l] = s
	return s
}

// konst returns the operand of a constant, adding it to the program once.
func (c *compiler) konst(v value.Value) operand {
	k, _ := keyOf(v)
	if o, ok := c.consts[k]; ok {
		return o
	}
	o := operand(-1 - len(c.prog.consts))
	c.prog.consts = append(c.prog.consts, k.value())
	c.consts[k] = o
	return o
}

func (c *compiler) operand(o ir.Operand) (operand, error) {
	switch v := o.Value.(type) {
	case *ir.Local: // as OPA's JSON decoding of a plan gives them
		return c.operand(ir.Operand{Value: *v})
	case *ir.StringIndex:
		return c.operand(ir.Operand{Value: *v})
	case *ir.Bool:
		return c.operand(ir.Operand{Value: *v})
	case ir.Local:
		return operand(c.see(int(v))), nil
	case ir.StringIndex:
		if int(v) < 0 || int(v) >= len(c.strings) {
			return 0, fmt.Errorf("string index %d out of range", v)
		}
		return c.konst(value.String(c.strings[v])), nil
	case ir.Bool:
		return c.konst(value.Boolean(bool(v))), nil
	}
	return 0, fmt.Errorf("unknown operand %T", o.Value)
}

func (c *compiler) blocks(bs []*ir.Block) ([]*block, error) {
	out := make([]*block, 0, len(bs))
	for _, b := range bs {
		cb, err := c.block(b)
		if err != nil {
			return nil, err
		}
		out = append(out, cb)
	}
	return out, nil
}

func (c *compiler) block(b *ir.Block) (*block, error) {
	out := &block{stmts: make([]stmt, 0, len(b.Stmts))}
	for _, s := range b.Stmts {
		cs, err := c.stmt(s)
		if err != nil {
			return nil, err
		}
		out.stmts = append(out.stmts, cs)
	}
	return out, nil
}

func (c *compiler) stmt(s ir.Stmt) (stmt, error) {
	out := stmt{id: int32(len(c.prog.locs))}
	loc := location{}
	if l := s.GetLocation(); l != nil {
		loc = location{File: int32(l.File), Row: int32(l.Row), Col: int32(l.Col)}
	}
	c.prog.locs = append(c.prog.locs, loc)
	var err error
	ops := func(dst []*operand, src ...ir.Operand) {
		for i := range src {
			if err != nil {
				return
			}
			*dst[i], err = c.operand(src[i])
		}
	}
	switch s := s.(type) {
	case *ir.ReturnLocalStmt:
		out.op, out.target = opReturn, c.see(int(s.Source))
	case *ir.CallStmt:
		out.target = c.see(int(s.Result))
		x := &extra{name: s.Func, args: make([]operand, len(s.Args))}
		out.x = x
		for i, a := range s.Args {
			if x.args[i], err = c.operand(a); err != nil {
				return out, err
			}
		}
		if i, ok := c.funcIndex[s.Func]; ok {
			out.op, out.n = opCall, int32(i)
			if len(x.args) != len(c.prog.funcs[i].params) {
				return out, fmt.Errorf("call of %s with %d arguments", s.Func, len(x.args))
			}
			break
		}
		out.op = opCallBuiltin
		if x.bi, err = c.prog.builtin(s.Func, len(s.Args)); err != nil {
			return out, err
		}
	case *ir.BlockStmt:
		out.op = opBlock
		out.x = &extra{}
		out.x.blocks, err = c.blocks(s.Blocks)
	case *ir.BreakStmt:
		out.op, out.n = opBreak, int32(s.Index)
	case *ir.DotStmt:
		out.op, out.target = opDot, c.see(int(s.Target))
		ops([]*operand{&out.a, &out.b}, s.Source, s.Key)
	case *ir.LenStmt:
		out.op, out.target = opLen, c.see(int(s.Target))
		ops([]*operand{&out.a}, s.Source)
	case *ir.ScanStmt:
		out.op, out.target, out.n, out.value = opScan, c.see(int(s.Source)), c.see(int(s.Key)), c.see(int(s.Value))
		out.x = &extra{}
		out.x.block, err = c.block(s.Block)
	case *ir.NotStmt:
		out.op = opNot
		out.x = &extra{}
		out.x.block, err = c.block(s.Block)
	case *ir.AssignIntStmt:
		out.op, out.target, out.a = opAssignInt, c.see(int(s.Target)), c.konst(intValue(s.Value))
	case *ir.AssignVarStmt:
		out.op, out.target = opAssign, c.see(int(s.Target))
		ops([]*operand{&out.a}, s.Source)
	case *ir.AssignVarOnceStmt:
		out.op, out.target = opAssignOnce, c.see(int(s.Target))
		ops([]*operand{&out.a}, s.Source)
	case *ir.ResetLocalStmt:
		out.op, out.target = opReset, c.see(int(s.Target))
	case *ir.MakeNullStmt:
		out.op, out.target, out.a = opMakeNull, c.see(int(s.Target)), c.konst(value.NullValue)
	case *ir.MakeNumberIntStmt:
		out.op, out.target, out.a = opMakeNumber, c.see(int(s.Target)), c.konst(intValue(s.Value))
	case *ir.MakeNumberRefStmt:
		out.op, out.target = opMakeNumber, c.see(int(s.Target))
		if s.Index < 0 || s.Index >= len(c.strings) {
			return out, fmt.Errorf("number constant %d out of range", s.Index)
		}
		str := c.strings[s.Index]
		if !isNumber(str) {
			return out, fmt.Errorf("number constant %q is not a number", str)
		}
		out.a = c.konst(value.Number(str))
	case *ir.MakeArrayStmt:
		out.op, out.target, out.n = opMakeArray, c.see(int(s.Target)), s.Capacity
	case *ir.MakeObjectStmt:
		out.op, out.target = opMakeObject, c.see(int(s.Target))
	case *ir.MakeSetStmt:
		out.op, out.target = opMakeSet, c.see(int(s.Target))
	case *ir.EqualStmt:
		out.op = opEqual
		ops([]*operand{&out.a, &out.b}, s.A, s.B)
	case *ir.NotEqualStmt:
		out.op = opNotEqual
		ops([]*operand{&out.a, &out.b}, s.A, s.B)
	case *ir.IsArrayStmt:
		out.op = opIsArray
		ops([]*operand{&out.a}, s.Source)
	case *ir.IsObjectStmt:
		out.op = opIsObject
		ops([]*operand{&out.a}, s.Source)
	case *ir.IsSetStmt:
		out.op = opIsSet
		ops([]*operand{&out.a}, s.Source)
	case *ir.IsDefinedStmt:
		out.op, out.target = opIsDefined, c.see(int(s.Source))
	case *ir.IsUndefinedStmt:
		out.op, out.target = opIsUndefined, c.see(int(s.Source))
	case *ir.ArrayAppendStmt:
		out.op, out.target = opArrayAppend, c.see(int(s.Array))
		ops([]*operand{&out.a}, s.Value)
	case *ir.ObjectInsertStmt:
		out.op, out.target = opObjectInsert, c.see(int(s.Object))
		ops([]*operand{&out.a, &out.b}, s.Key, s.Value)
	case *ir.ObjectInsertOnceStmt:
		out.op, out.target = opObjectInsertOnce, c.see(int(s.Object))
		ops([]*operand{&out.a, &out.b}, s.Key, s.Value)
	case *ir.ObjectMergeStmt:
		out.op, out.target = opObjectMerge, c.see(int(s.Target))
		out.a, out.b = operand(c.see(int(s.A))), operand(c.see(int(s.B)))
	case *ir.SetAddStmt:
		out.op, out.target = opSetAdd, c.see(int(s.Set))
		ops([]*operand{&out.a}, s.Value)
	case *ir.ResultSetAddStmt:
		out.op, out.target = opResultAdd, c.see(int(s.Value))
	case *ir.NopStmt:
		out.op = opNop
	default:
		// WithStmt and CallDynamicStmt: not run here (see doc.go).
		return out, fmt.Errorf("statement %T is not supported", s)
	}
	return out, err
}
