package irvm

import "github.com/toolgate/toolgate/internal/value"

// A guard is the test a rule body begins with on a path into the input,
// recognised in the planned statements so that a body whose test fails is
// passed over without running it. toolgate's policy starts most rule
// bodies with one, on the input's index of what a call holds:
//
//	deny contains … if {
//		"curl" in input.present.names    # member
//		input.present.writes             # truthy
//		input.sandboxed == false         # compare
//		…
//	}
//
// which OPA plans as a block of a function opening with
//
//	[ResetLocal t]  DotStmt a = input."present"  [DotStmt b = a."names"]
//	then one of:
//	  AssignVarStmt c = b  CallStmt d = internal.member_2("curl", c)  NotEqualStmt d != false
//	  NotEqualStmt b != false
//	  EqualStmt b == <constant>  (or NotEqualStmt b != <constant>)
//
// A call of echo fails about a hundred and twenty of these tests in the
// deny and ask functions, four to six statements each: most of the
// statements a trivial call's evaluation would run. A failed test leaves
// the locals as running the statements would have (those written before
// the statement that broke out, each with its value) and goes on to the
// next block, as the break does. A step of the path that is undefined
// fails the test the same way (the DotStmt breaks). Anything else — the
// test passing, a source that is not there, a built-in that is not the
// native member — runs the block as planned.
type guard struct {
	reset int32      // the local ResetLocal clears, or -1
	src   operand    // the document the path starts from (a local: input)
	keys  [2]operand // the path's keys (constants); keys[1] is 0 for a path of one
	t     [2]int32   // the locals the dots write
	path  int        // the index of keys in Program.guardPaths
	kind  guardKind
	// member: x is the element tested for, assigned the local the path's
	// value is assigned to, out the local the result is written to
	x, assigned, out int32
	member           nativeFunc
	// every kind: the constant the value (member: the result) is compared
	// with, and whether the test is that it differs (NotEqual) or equals
	c     value.Value
	ne    bool
	nkeys int
}

type guardKind uint8

const (
	guardCompare guardKind = iota // the path's value compared with c
	guardMember                   // member(x, value) compared with c (false)
)

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
			n, ok := paths[g.keys]
			if !ok {
				n = len(p.guardPaths)
				paths[g.keys] = n
				p.guardPaths = append(p.guardPaths, g.keys)
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
	written := []int32{}
	if len(ss) > 0 && ss[0].op == opReset {
		g.reset = ss[0].target
		written = append(written, g.reset)
		ss = ss[1:]
	}
	// the path: one or two dots from a local
	if len(ss) < 2 || ss[0].op != opDot || ss[0].a < 0 || !p.isConst(ss[0].b) {
		return nil
	}
	g.src, g.keys[0], g.t[0], g.nkeys = ss[0].a, ss[0].b, ss[0].target, 1
	written = append(written, ss[0].target)
	ss = ss[1:]
	if ss[0].op == opDot && ss[0].a == operand(g.t[0]) && p.isConst(ss[0].b) {
		g.keys[1], g.t[1], g.nkeys = ss[0].b, ss[0].target, 2
		written = append(written, ss[0].target)
		ss = ss[1:]
	}
	last := operand(g.t[g.nkeys-1])
	// the test
	switch {
	case len(ss) >= 3 && ss[0].op == opAssign && ss[0].a == last &&
		ss[1].op == opCallBuiltin && ss[1].x != nil && len(ss[1].x.args) == 2 && p.isConst(ss[1].x.args[0]) && ss[1].x.args[1] == operand(ss[0].target) &&
		ss[2].op == opNotEqual && ss[2].a == operand(ss[1].target) && p.isConst(ss[2].b):
		bi := ss[1].x.bi
		if int(bi) >= len(p.bnames) || p.bnames[bi].name != "internal.member_2" || p.builtins[bi].native == nil {
			return nil
		}
		if f := p.consts[-1-ss[2].b]; !value.Equal(f, value.False) {
			return nil
		}
		g.kind, g.member = guardMember, p.builtins[bi].native
		g.x, g.assigned, g.out = int32(ss[1].x.args[0]), ss[0].target, ss[1].target
		g.c, g.ne = value.False, true
		written = append(written, ss[0].target, ss[1].target)
	case len(ss) >= 1 && (ss[0].op == opEqual || ss[0].op == opNotEqual) && ss[0].a == last && p.isConst(ss[0].b):
		g.kind, g.c, g.ne = guardCompare, p.consts[-1-ss[0].b], ss[0].op == opNotEqual
	default:
		return nil
	}
	// the statements write distinct locals, none of them the source (a
	// later write would change what an earlier one read)
	for i, w := range written {
		if operand(w) == g.src {
			return nil
		}
		for _, v := range written[i+1:] {
			if v == w {
				return nil
			}
		}
	}
	return g
}

func (p *Program) isConst(o operand) bool { return o < 0 && int(-1-o) < len(p.consts) }

// guardPath is what one evaluation found at a guard's path in its input.
type guardPath struct {
	looked bool
	v      [2]value.Value // the value at each step; nil: undefined
}

// fails reports whether g's test fails in fr; when it does, it has
// written the locals as the block's statements would have.
func (e *evaluator) fails(g *guard, fr *frame) bool {
	L := fr.locals
	src := L[g.src]
	if src == nil {
		return false
	}
	var v [2]value.Value
	// the evaluation's input is not changed while it runs: its paths are
	// looked up once; any other source each time
	if gp := &e.gpaths[g.path]; same(src, e.input) {
		if !gp.looked {
			gp.looked = true
			gp.v = e.walk(g, src)
		}
		v = gp.v
	} else {
		v = e.walk(g, src)
	}
	// a step undefined: its dot broke out, having written the steps
	// before it; otherwise the test decides (the compare breaks out when
	// the values are equal for a NotEqualStmt, differ for an EqualStmt)
	n := g.nkeys
	for i := range g.nkeys {
		if v[i] == nil {
			n = i
			break
		}
	}
	var r value.Value
	if n == g.nkeys {
		val := v[n-1]
		switch g.kind {
		case guardMember:
			if set, ok := val.(*value.Set); ok {
				// what member answers for a set, without the call
				if set.Contains(e.consts[-1-operand(g.x)]) {
					return false
				}
				r = value.False
			} else {
				args := append(e.args[:0], e.consts[-1-operand(g.x)], val)
				var err error
				r, err = g.member(args)
				e.args = args[:0]
				if err != nil || r == nil || value.Equal(r, g.c) != g.ne {
					return false
				}
			}
			L[g.assigned], L[g.out] = val, r
		case guardCompare:
			if value.Equal(val, g.c) != g.ne {
				return false
			}
		}
	}
	if g.reset >= 0 {
		L[g.reset] = nil
	}
	for i := range n {
		L[g.t[i]] = v[i]
	}
	return true
}

// walk looks g's path up in src.
func (e *evaluator) walk(g *guard, src value.Value) (v [2]value.Value) {
	v[0] = get(src, e.consts[-1-g.keys[0]])
	if v[0] != nil && g.nkeys == 2 {
		v[1] = get(v[0], e.consts[-1-g.keys[1]])
	}
	return v
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
