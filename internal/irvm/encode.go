package irvm

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/toolgate/toolgate/internal/value"
)

// The encoded form of a Program (MarshalBinary, Load): a program whose
// plan was made once (at build time, for toolgate's embedded policy) is
// loaded without OPA's compiler and planner, which cost tens of
// milliseconds at every start. It holds what Compile made — statements
// with dense frame slots, constants, the names of built-ins — so loading
// is one pass and a handful of allocations (every statement, block,
// extra and argument of the program in one array each). Built-ins are
// resolved by name when loaded, as Compile resolves them.
//
// Layout (unsigned varints unless said): the magic; the counts of
// statements, blocks, extras and call arguments; the constants (a kind
// byte and its text); the strings (function and built-in names, files);
// the files; the functions' headers, then their blocks; the plans. A
// statement is its op, target, n, value, its operands a and b (signed),
// its location (file, row, col, signed), then by op: a call's arguments
// and name, a Block's blocks, a Scan's or Not's block.
const magic = "toolgate-irvm-2\n"

// MarshalBinary encodes the program (see Load).
func (p *Program) MarshalBinary() ([]byte, error) {
	e := &encoder{strs: map[string]int{}}
	for _, c := range p.consts {
		if _, ok := keyOf(c); !ok {
			return nil, fmt.Errorf("irvm: a constant of type %s", typeName(c))
		}
	}
	for _, fn := range p.funcs {
		e.str(fn.name)
		e.scanBlocks(fn.blocks)
	}
	plans := append([]*plan(nil), p.plans...)
	sort.Slice(plans, func(i, j int) bool { return plans[i].name < plans[j].name })
	for _, pl := range plans {
		e.str(pl.name)
		e.scanBlocks(pl.blocks)
	}
	for _, f := range p.files {
		e.str(f)
	}
	e.locs = p.locs
	out := []byte(magic)
	for _, n := range []int{e.nstmts, e.nblocks, e.nextras, e.nargs, len(p.consts)} {
		out = binary.AppendUvarint(out, uint64(n))
	}
	for _, c := range p.consts {
		k, _ := keyOf(c)
		out = append(out, k.kind)
		out = appendString(out, k.text)
	}
	out = binary.AppendUvarint(out, uint64(len(e.strList)))
	for _, s := range e.strList {
		out = appendString(out, s)
	}
	out = binary.AppendUvarint(out, uint64(len(p.files)))
	for _, f := range p.files {
		out = binary.AppendUvarint(out, uint64(e.strs[f]))
	}
	out = binary.AppendUvarint(out, uint64(len(p.funcs)))
	for _, fn := range p.funcs {
		out = binary.AppendUvarint(out, uint64(e.strs[fn.name]))
		out = binary.AppendUvarint(out, uint64(len(fn.params)))
		for _, l := range fn.params {
			out = binary.AppendUvarint(out, uint64(l))
		}
		out = binary.AppendUvarint(out, uint64(fn.ret))
		out = binary.AppendUvarint(out, uint64(fn.nlocals))
		out = appendBool(out, fn.memo)
	}
	for _, fn := range p.funcs {
		out = e.appendBlocks(out, fn.blocks)
	}
	out = binary.AppendUvarint(out, uint64(len(plans)))
	for _, pl := range plans {
		out = binary.AppendUvarint(out, uint64(e.strs[pl.name]))
		out = binary.AppendUvarint(out, uint64(pl.nlocals))
		out = e.appendBlocks(out, pl.blocks)
	}
	return out, nil
}

type encoder struct {
	strs    map[string]int
	strList []string
	locs    []location
	nstmts  int
	nblocks int
	nextras int
	nargs   int
}

func (e *encoder) str(s string) int {
	if i, ok := e.strs[s]; ok {
		return i
	}
	e.strs[s] = len(e.strList)
	e.strList = append(e.strList, s)
	return len(e.strList) - 1
}

func (e *encoder) scanBlocks(bs []*block) {
	for _, b := range bs {
		e.scanBlock(b)
	}
}

func (e *encoder) scanBlock(b *block) {
	e.nblocks++
	e.nstmts += len(b.stmts)
	for i := range b.stmts {
		x := b.stmts[i].x
		if x == nil {
			continue
		}
		e.nextras++
		e.nargs += len(x.args)
		if x.name != "" {
			e.str(x.name)
		}
		if x.block != nil {
			e.scanBlock(x.block)
		}
		e.scanBlocks(x.blocks)
	}
}

func (e *encoder) appendBlocks(out []byte, bs []*block) []byte {
	out = binary.AppendUvarint(out, uint64(len(bs)))
	for _, b := range bs {
		out = e.appendBlock(out, b)
	}
	return out
}

func (e *encoder) appendBlock(out []byte, b *block) []byte {
	out = binary.AppendUvarint(out, uint64(len(b.stmts)))
	for i := range b.stmts {
		s := &b.stmts[i]
		out = append(out, byte(s.op))
		out = binary.AppendUvarint(out, uint64(s.target))
		out = binary.AppendUvarint(out, uint64(s.n))
		out = binary.AppendUvarint(out, uint64(s.value))
		out = binary.AppendVarint(out, int64(s.a))
		out = binary.AppendVarint(out, int64(s.b))
		var loc location
		if s.id >= 0 && int(s.id) < len(e.locs) {
			loc = e.locs[s.id]
		}
		out = binary.AppendVarint(out, int64(loc.File))
		out = binary.AppendVarint(out, int64(loc.Row))
		out = binary.AppendVarint(out, int64(loc.Col))
		switch s.op {
		case opCall, opCallBuiltin:
			out = binary.AppendUvarint(out, uint64(len(s.x.args)))
			for _, a := range s.x.args {
				out = binary.AppendVarint(out, int64(a))
			}
			out = binary.AppendUvarint(out, uint64(e.strs[s.x.name]))
		case opBlock:
			out = e.appendBlocks(out, s.x.blocks)
		case opScan, opNot:
			out = e.appendBlock(out, s.x.block)
		}
	}
	return out
}

func appendString(out []byte, s string) []byte {
	out = binary.AppendUvarint(out, uint64(len(s)))
	return append(out, s...)
}

func appendBool(out []byte, b bool) []byte {
	if b {
		return append(out, 1)
	}
	return append(out, 0)
}

// Load reads a program written by MarshalBinary. It checks what
// evaluation relies on (frame slots within their frames, constants,
// function indexes, call arities, statement kinds, built-ins available)
// and refuses anything else with an error: a damaged program is never run.
func Load(b []byte) (prog *Program, err error) {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return nil, errors.New("irvm: not an encoded program (or one from another version)")
	}
	d := &decoder{buf: b, pos: len(magic)}
	defer func() {
		if r := recover(); r != nil {
			if de, ok := r.(decodeError); ok {
				prog, err = nil, fmt.Errorf("irvm: damaged program at byte %d: %s", d.pos, string(de))
				return
			}
			panic(r)
		}
	}()
	// Counts are bounded by the bytes they need (a statement at least 9,
	// anything else at least 1), so a damaged count cannot make Load
	// allocate more than a small multiple of its input.
	d.stmts = make([]stmt, d.count(len(b)/9))
	d.blocks = make([]block, d.count(len(b)))
	d.extras = make([]extra, d.count(len(b)))
	d.args = make([]operand, d.count(len(b)))
	p := &Program{locs: make([]location, len(d.stmts))}
	d.prog = p
	p.consts = make([]value.Value, d.count(len(b)))
	for i := range p.consts {
		k := constKey{kind: d.byte()}
		k.text = d.string()
		if k.kind > kString {
			d.fail("constant kind")
		}
		if k.kind == kNumber && !isNumber(k.text) {
			d.fail("number constant " + k.text)
		}
		p.consts[i] = k.value()
	}
	d.strs = make([]string, d.count(len(b)))
	for i := range d.strs {
		d.strs[i] = d.string()
	}
	for range d.count(len(b)) {
		p.files = append(p.files, d.strs[d.count(len(d.strs)-1)])
	}
	p.funcs = make([]*function, d.count(len(b)))
	for i := range p.funcs {
		fn := &function{name: d.strs[d.count(len(d.strs)-1)]}
		fn.params = make([]int32, d.count(len(b)))
		for j := range fn.params {
			fn.params[j] = int32(d.count(math.MaxInt32))
		}
		fn.ret = int32(d.count(math.MaxInt32))
		fn.nlocals = d.count(len(b))
		fn.memo = d.byte() == 1
		if int(fn.ret) >= fn.nlocals || len(fn.params) < 2 {
			d.fail("function " + fn.name)
		}
		for _, l := range fn.params {
			if int(l) >= fn.nlocals {
				d.fail("function " + fn.name + " parameter")
			}
		}
		p.funcs[i] = fn
	}
	for _, fn := range p.funcs {
		d.nlocals = fn.nlocals
		fn.blocks = d.blockList()
	}
	for range d.count(len(b)) {
		name := d.strs[d.count(len(d.strs)-1)]
		pl := &plan{name: name, nlocals: d.count(len(b))}
		if pl.nlocals < 2 {
			d.fail("plan " + name)
		}
		d.nlocals = pl.nlocals
		pl.blocks = d.blockList()
		p.plans = append(p.plans, pl)
	}
	if d.pos != len(d.buf) {
		d.fail("trailing bytes")
	}
	if d.nstmt != len(d.stmts) || d.nblock != len(d.blocks) || d.nextra != len(d.extras) || d.narg != len(d.args) {
		d.fail("statement, block, extra or argument count")
	}
	if d.err != nil {
		return nil, d.err
	}
	return p, nil
}

type decodeError string

type decoder struct {
	buf     []byte
	pos     int
	prog    *Program
	strs    []string
	stmts   []stmt
	blocks  []block
	extras  []extra
	args    []operand
	nstmt   int
	nblock  int
	nextra  int
	narg    int
	nlocals int   // of the function or plan being read
	err     error // a built-in that is not available
}

func (d *decoder) fail(what string) { panic(decodeError(what)) }

func (d *decoder) byte() byte {
	if d.pos >= len(d.buf) {
		d.fail("unexpected end")
	}
	b := d.buf[d.pos]
	d.pos++
	return b
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.buf[d.pos:])
	if n <= 0 {
		d.fail("bad number")
	}
	d.pos += n
	return v
}

func (d *decoder) varint() int32 {
	v, n := binary.Varint(d.buf[d.pos:])
	if n <= 0 || v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("bad number")
	}
	d.pos += n
	return int32(v)
}

// count reads a number no larger than max.
func (d *decoder) count(max int) int {
	v := d.uvarint()
	if max < 0 || v > uint64(max) {
		d.fail("number out of range")
	}
	return int(v)
}

func (d *decoder) string() string {
	v := d.uvarint()
	if v > uint64(len(d.buf)-d.pos) {
		d.fail("string longer than what is left")
	}
	n := int(v)
	s := string(d.buf[d.pos : d.pos+n])
	d.pos += n
	return s
}

// operand reads an operand and checks it names a slot of the frame or a
// constant.
func (d *decoder) operand() operand {
	o := operand(d.varint())
	if (o >= 0 && int(o) >= d.nlocals) || (o < 0 && int(-1-o) >= len(d.prog.consts)) {
		d.fail("operand out of range")
	}
	return o
}

func (d *decoder) blockList() []*block {
	n := d.count(len(d.blocks) - d.nblock)
	out := make([]*block, n)
	for i := range out {
		out[i] = d.block()
	}
	return out
}

func (d *decoder) block() *block {
	if d.nblock >= len(d.blocks) {
		d.fail("more blocks than counted")
	}
	b := &d.blocks[d.nblock]
	d.nblock++
	n := d.count(len(d.stmts) - d.nstmt)
	base := d.nstmt
	b.stmts = d.stmts[base : base+n : base+n]
	d.nstmt += n
	for i := range b.stmts {
		d.stmt(&b.stmts[i], int32(base+i))
	}
	return b
}

func (d *decoder) extra() *extra {
	if d.nextra >= len(d.extras) {
		d.fail("more extras than counted")
	}
	x := &d.extras[d.nextra]
	d.nextra++
	return x
}

// stmt reads the statement at index id of the arena (its index in the
// program's locations too).
func (d *decoder) stmt(s *stmt, id int32) {
	s.id = id
	op := opcode(d.byte())
	if op > opNop {
		d.fail("statement kind")
	}
	s.op = op
	s.target = int32(d.count(d.nlocals - 1))
	s.n = int32(d.count(math.MaxInt32))
	s.value = int32(d.count(math.MaxInt32))
	s.a, s.b = d.operand(), d.operand()
	d.prog.locs[s.id] = location{File: d.varint(), Row: d.varint(), Col: d.varint()}
	switch op {
	case opCall, opCallBuiltin:
		x := d.extra()
		n := d.count(len(d.args) - d.narg)
		x.args = d.args[d.narg : d.narg+n : d.narg+n]
		d.narg += n
		for i := range x.args {
			x.args[i] = d.operand()
		}
		x.name = d.strs[d.count(len(d.strs)-1)]
		s.x = x
	case opBlock:
		s.x = d.extra()
		s.x.blocks = d.blockList()
	case opScan, opNot:
		s.x = d.extra()
		s.x.block = d.block()
	}
	// what evaluation indexes with must be in range
	switch op {
	case opCall:
		if int(s.n) >= len(d.prog.funcs) || len(s.x.args) != len(d.prog.funcs[s.n].params) {
			d.fail("call of " + s.x.name)
		}
	case opCallBuiltin:
		bi, err := d.prog.builtin(s.x.name, len(s.x.args))
		if err != nil && d.err == nil {
			d.err = fmt.Errorf("irvm: %w", err)
		}
		s.x.bi = bi
	case opScan:
		if int(s.n) >= d.nlocals || int(s.value) >= d.nlocals {
			d.fail("scan")
		}
	case opAssignInt, opMakeNull, opMakeNumber:
		if s.a >= 0 {
			d.fail("constant missing")
		}
	case opObjectMerge:
		if s.a < 0 || s.b < 0 {
			d.fail("merge of a constant")
		}
	}
}

func isNumber(s string) bool {
	_, err := json.Number(s).Float64()
	return err == nil
}
