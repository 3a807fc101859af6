package irvm

import "github.com/toolgate/toolgate/internal/value"

// A guard is the membership test a rule body begins with, recognised in
// the planned statements so that a body whose test fails is passed over
// without running it. toolgate's policy starts most rule bodies with one
// such test on the input's index of what a call holds:
//
//	deny contains … if {
//		"curl" in input.present.names
//		…
//	}
//
// which OPA plans as a block of a function opening with
//
//	[ResetLocal t]  DotStmt a = input."present"  DotStmt b = a."names"
//	AssignVarStmt c = b  CallStmt d = internal.member_2("curl", c)
//	NotEqualStmt d != false
//
// A call of echo fails some hundred of these tests in the deny and ask
// functions: six statements each, two thirds of the statements a trivial
// call's evaluation runs. A failed guard leaves the locals as running the
// statements would have (the test's locals written, d false) and goes on
// to the next block, which is what the NotEqualStmt's break does. Anything
// else — a step undefined, the test passing, a built-in that is not the
// native member — runs the block as planned.
type guard struct {
	reset       int32   // the local ResetLocal clears, or -1
	src         operand // the document the path starts from (input)
	k1, k2      operand // the path's two keys (constants)
	t1, t2, t3  int32   // the locals the two dots and the assignment write
	x           operand // the element tested for (a constant)
	out         int32   // the local the membership's result is written to
	path        int     // the index of (k1, k2) in Program.guardPaths
	bi          uint16  // the built-in: internal.member_2, native
	member      nativeFunc
	falseResult value.Value // the constant the result is compared with
}

// findGuards recognises the guard of every top-level block of every
// function (p.guards[function][block], nil where a block has none, nil
// for a function with none). It needs the built-ins resolved.
func (p *Program) findGuards() {
	p.guards = make([][]*guard, len(p.funcs))
	paths := map[[2]operand]int{}
	for i, fn := range p.funcs {
		var gs []*guard
		for j, b := range fn.blocks {
			g := p.guardOf(b)
			if g == nil {
				continue
			}
			k := [2]operand{g.k1, g.k2}
			n, ok := paths[k]
			if !ok {
				n = len(p.guardPaths)
				paths[k] = n
				p.guardPaths = append(p.guardPaths, k)
			}
			g.path = n
			if gs == nil {
				gs = make([]*guard, len(fn.blocks))
			}
			gs[j] = g
		}
		p.guards[i] = gs
	}
}

// guardOf returns b's guard, or nil when b does not open with one.
func (p *Program) guardOf(b *block) *guard {
	ss := b.stmts
	g := &guard{reset: -1}
	if len(ss) > 0 && ss[0].op == opReset {
		g.reset = ss[0].target
		ss = ss[1:]
	}
	if len(ss) < 5 {
		return nil
	}
	d1, d2, as, call, ne := &ss[0], &ss[1], &ss[2], &ss[3], &ss[4]
	if d1.op != opDot || d1.a < 0 || !p.isConst(d1.b) ||
		d2.op != opDot || d2.a != operand(d1.target) || !p.isConst(d2.b) ||
		as.op != opAssign || as.a != operand(d2.target) ||
		call.op != opCallBuiltin || call.x == nil || len(call.x.args) != 2 || !p.isConst(call.x.args[0]) || call.x.args[1] != operand(as.target) ||
		ne.op != opNotEqual || ne.a != operand(call.target) || !p.isConst(ne.b) {
		return nil
	}
	if int(call.x.bi) >= len(p.bnames) || p.bnames[call.x.bi].name != "internal.member_2" || p.builtins[call.x.bi].native == nil {
		return nil
	}
	f := p.consts[-1-ne.b]
	if !value.Equal(f, value.False) {
		return nil
	}
	// the statements write distinct locals, none of them the source (a
	// later write would change what an earlier one read)
	written := []int32{d1.target, d2.target, as.target, call.target}
	if g.reset >= 0 {
		written = append(written, g.reset)
	}
	for i, w := range written {
		if operand(w) == d1.a {
			return nil
		}
		for _, v := range written[i+1:] {
			if v == w {
				return nil
			}
		}
	}
	g.src, g.k1, g.k2 = d1.a, d1.b, d2.b
	g.t1, g.t2, g.t3 = d1.target, d2.target, as.target
	g.x, g.out, g.bi = call.x.args[0], call.target, call.x.bi
	g.member = p.builtins[call.x.bi].native
	g.falseResult = f
	return g
}

func (p *Program) isConst(o operand) bool { return o < 0 && int(-1-o) < len(p.consts) }

// guardPath is what one evaluation found at a guard's path in its input.
type guardPath struct {
	looked bool
	v1, v2 value.Value // nil: undefined
}

// fails reports whether g's test fails in fr; when it does, it has
// written the locals as the block's statements would have.
func (e *evaluator) fails(g *guard, fr *frame) bool {
	L := fr.locals
	src := L[g.src]
	if src == nil {
		return false
	}
	var v1, v2 value.Value
	// the evaluation's input is not changed while it runs: the path is
	// looked up once; any other source each time
	if gp := &e.gpaths[g.path]; same(src, e.input) {
		if !gp.looked {
			gp.looked = true
			if gp.v1 = get(src, e.consts[-1-g.k1]); gp.v1 != nil {
				gp.v2 = get(gp.v1, e.consts[-1-g.k2])
			}
		}
		v1, v2 = gp.v1, gp.v2
	} else if v1 = get(src, e.consts[-1-g.k1]); v1 != nil {
		v2 = get(v1, e.consts[-1-g.k2])
	}
	if v1 == nil || v2 == nil {
		return false
	}
	args := append(e.args[:0], e.consts[-1-g.x], v2)
	r, err := g.member(args)
	e.args = args[:0]
	if err != nil || r == nil || !value.Equal(r, g.falseResult) {
		return false
	}
	if g.reset >= 0 {
		L[g.reset] = nil
	}
	L[g.t1], L[g.t2], L[g.t3], L[g.out] = v1, v2, v2, r
	return true
}

// GuardCount is how many blocks of the program open with a guard.
func (p *Program) GuardCount() int {
	n := 0
	for _, gs := range p.guards {
		for _, g := range gs {
			if g != nil {
				n++
			}
		}
	}
	return n
}
