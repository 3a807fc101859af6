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
// is one pass and a few allocations. Built-ins are resolved by name when
// loaded, as Compile resolves them.
//
// Layout (unsigned varints unless said): the magic, the counts of
// statements and blocks (to allocate once), the constants (a kind byte and
// its text), the strings (built-in and function names, files), the
// functions and plans, each statement as op, field mask, fields.
const magic = "toolgate-irvm-1\n"

// field mask bits of an encoded statement
const (
	hasA = 1 << iota
	hasB
	hasTerm
	hasBlock
	hasBlocks
	hasArgs
	hasName
	hasLoc
)

// constant kinds
const (
	kNull = iota
	kFalse
	kTrue
	kNumber
	kString
)

// MarshalBinary encodes the program (see Load).
func (p *Program) MarshalBinary() ([]byte, error) {
	e := &encoder{consts: map[constKey]int{}, strs: map[string]int{}}
	// first pass: tables and counts
	for _, fn := range p.funcs {
		e.str(fn.name)
		if err := e.scanBlocks(fn.blocks); err != nil {
			return nil, fmt.Errorf("irvm: function %s: %w", fn.name, err)
		}
	}
	names := p.Plans()
	sort.Strings(names)
	for _, n := range names {
		e.str(n)
		if err := e.scanBlocks(p.plans[n].blocks); err != nil {
			return nil, fmt.Errorf("irvm: plan %s: %w", n, err)
		}
	}
	for _, f := range p.files {
		e.str(f)
	}
	out := []byte(magic)
	out = binary.AppendUvarint(out, uint64(e.nstmts))
	out = binary.AppendUvarint(out, uint64(e.nblocks))
	out = binary.AppendUvarint(out, uint64(len(e.constList)))
	for _, c := range e.constList {
		out = append(out, c.kind)
		out = appendString(out, c.text)
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
	out = binary.AppendUvarint(out, uint64(len(names)))
	for _, n := range names {
		pl := p.plans[n]
		out = binary.AppendUvarint(out, uint64(e.strs[n]))
		out = binary.AppendUvarint(out, uint64(pl.nlocals))
		out = e.appendBlocks(out, pl.blocks)
	}
	return out, nil
}

type constKey struct {
	kind byte
	text string
}

type encoder struct {
	consts    map[constKey]int
	constList []constKey
	strs      map[string]int
	strList   []string
	nstmts    int
	nblocks   int
}

func (e *encoder) str(s string) int {
	if i, ok := e.strs[s]; ok {
		return i
	}
	e.strs[s] = len(e.strList)
	e.strList = append(e.strList, s)
	return len(e.strList) - 1
}

func (e *encoder) constant(t value.Value) (int, error) {
	var k constKey
	switch v := t.(type) {
	case value.Null:
		k.kind = kNull
	case value.Bool:
		k.kind = kFalse
		if v {
			k.kind = kTrue
		}
	case value.Number:
		k.kind, k.text = kNumber, string(v)
	case value.String:
		k.kind, k.text = kString, string(v)
	default:
		return 0, fmt.Errorf("constant %s of type %s", value.Text(t), typeName(t))
	}
	if i, ok := e.consts[k]; ok {
		return i, nil
	}
	e.consts[k] = len(e.constList)
	e.constList = append(e.constList, k)
	return len(e.constList) - 1, nil
}

func (e *encoder) scanBlocks(bs []*block) error {
	for _, b := range bs {
		if err := e.scanBlock(b); err != nil {
			return err
		}
	}
	return nil
}

func (e *encoder) scanBlock(b *block) error {
	e.nblocks++
	e.nstmts += len(b.stmts)
	for i := range b.stmts {
		s := &b.stmts[i]
		for _, o := range append([]operand{s.a, s.b}, s.args...) {
			if o.val != nil {
				if _, err := e.constant(o.val); err != nil {
					return err
				}
			}
		}
		if s.val != nil {
			if _, err := e.constant(s.val); err != nil {
				return err
			}
		}
		if s.name != "" {
			e.str(s.name)
		}
		if s.block != nil {
			if err := e.scanBlock(s.block); err != nil {
				return err
			}
		}
		if err := e.scanBlocks(s.blocks); err != nil {
			return err
		}
	}
	return nil
}

func (e *encoder) appendOperand(out []byte, o operand) []byte {
	if o.val != nil {
		return binary.AppendUvarint(out, uint64(e.consts[e.key(o.val)])<<1|1)
	}
	return binary.AppendUvarint(out, uint64(o.local)<<1)
}

func (e *encoder) key(t value.Value) constKey {
	i, _ := e.constant(t) // scanned before: no error, no new entry
	return e.constList[i]
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
		var mask byte
		if s.a != (operand{}) {
			mask |= hasA
		}
		if s.b != (operand{}) {
			mask |= hasB
		}
		if s.val != nil {
			mask |= hasTerm
		}
		if s.block != nil {
			mask |= hasBlock
		}
		if s.blocks != nil {
			mask |= hasBlocks
		}
		if s.args != nil {
			mask |= hasArgs
		}
		if s.name != "" {
			mask |= hasName
		}
		if s.loc != (location{}) {
			mask |= hasLoc
		}
		out = append(out, byte(s.op), mask)
		out = binary.AppendUvarint(out, uint64(s.target))
		out = binary.AppendUvarint(out, uint64(s.n))
		out = binary.AppendUvarint(out, uint64(s.value))
		if mask&hasA != 0 {
			out = e.appendOperand(out, s.a)
		}
		if mask&hasB != 0 {
			out = e.appendOperand(out, s.b)
		}
		if mask&hasTerm != 0 {
			out = binary.AppendUvarint(out, uint64(e.consts[e.key(s.val)]))
		}
		if mask&hasArgs != 0 {
			out = binary.AppendUvarint(out, uint64(len(s.args)))
			for _, a := range s.args {
				out = e.appendOperand(out, a)
			}
		}
		if mask&hasName != 0 {
			out = binary.AppendUvarint(out, uint64(e.strs[s.name]))
		}
		if mask&hasLoc != 0 {
			out = binary.AppendVarint(out, int64(s.loc.File))
			out = binary.AppendVarint(out, int64(s.loc.Row))
			out = binary.AppendVarint(out, int64(s.loc.Col))
		}
		if mask&hasBlock != 0 {
			out = e.appendBlock(out, s.block)
		}
		if mask&hasBlocks != 0 {
			out = e.appendBlocks(out, s.blocks)
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
// evaluation relies on (frame slots within their frames, function
// indexes, call arities, statement kinds, built-ins available) and
// refuses anything else with an error: a damaged program is never run.
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
	// Counts are bounded by the bytes they need (a statement at least 5,
	// a block, constant or string at least 1), so a damaged count cannot
	// make Load allocate more than a small multiple of its input.
	maxCount := len(b)
	d.stmts = make([]stmt, d.count(len(b)/5))
	d.blocks = make([]block, d.count(len(b)))
	d.consts = make([]value.Value, d.count(len(b)))
	for i := range d.consts {
		kind := d.byte()
		text := d.string()
		switch kind {
		case kNull:
			d.consts[i] = value.NullValue
		case kFalse, kTrue:
			d.consts[i] = value.Boolean(kind == kTrue)
		case kNumber:
			if _, perr := json.Number(text).Float64(); perr != nil {
				d.fail("number constant " + text)
			}
			if n, perr := json.Number(text).Int64(); perr == nil {
				d.consts[i] = intValue(n)
			} else {
				d.consts[i] = value.Number(text)
			}
		case kString:
			d.consts[i] = value.String(text)
		default:
			d.fail("constant kind")
		}
	}
	d.strs = make([]string, d.count(maxCount))
	for i := range d.strs {
		d.strs[i] = d.string()
	}
	p := &Program{plans: map[string]*plan{}}
	for range d.count(maxCount) {
		p.files = append(p.files, d.strs[d.count(len(d.strs)-1)])
	}
	nfuncs := d.count(maxCount)
	p.funcs = make([]*function, nfuncs)
	for i := range p.funcs {
		fn := &function{name: d.strs[d.count(len(d.strs)-1)]}
		fn.params = make([]int, d.count(maxCount))
		for j := range fn.params {
			fn.params[j] = d.count(maxCount)
		}
		fn.ret = d.count(maxCount)
		fn.nlocals = d.count(maxCount)
		fn.memo = d.byte() == 1
		if fn.ret >= fn.nlocals || len(fn.params) < 2 {
			d.fail("function " + fn.name)
		}
		for _, l := range fn.params {
			if l >= fn.nlocals {
				d.fail("function " + fn.name + " parameter")
			}
		}
		p.funcs[i] = fn
	}
	d.prog = p
	for _, fn := range p.funcs {
		d.nlocals = fn.nlocals
		fn.blocks = d.blockList()
	}
	for range d.count(maxCount) {
		name := d.strs[d.count(len(d.strs)-1)]
		pl := &plan{nlocals: d.count(maxCount)}
		if pl.nlocals < 2 {
			d.fail("plan " + name)
		}
		d.nlocals = pl.nlocals
		pl.blocks = d.blockList()
		p.plans[name] = pl
	}
	if d.pos != len(d.buf) {
		d.fail("trailing bytes")
	}
	if d.nstmt != len(d.stmts) || d.nblock != len(d.blocks) {
		d.fail("statement or block count")
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
	consts  []value.Value
	strs    []string
	stmts   []stmt
	blocks  []block
	nstmt   int
	nblock  int
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

func (d *decoder) varint() int {
	v, n := binary.Varint(d.buf[d.pos:])
	if n <= 0 || v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("bad number")
	}
	d.pos += n
	return int(v)
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

func (d *decoder) local() int {
	return d.count(d.nlocals - 1)
}

func (d *decoder) operand() operand {
	v := d.uvarint()
	if v&1 == 1 {
		i := v >> 1
		if i >= uint64(len(d.consts)) {
			d.fail("constant index")
		}
		return operand{val: d.consts[i]}
	}
	if v>>1 >= uint64(d.nlocals) {
		d.fail("local out of its frame")
	}
	return operand{local: int(v >> 1)}
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
	b.stmts = d.stmts[d.nstmt : d.nstmt+n : d.nstmt+n]
	d.nstmt += n
	for i := range b.stmts {
		d.stmt(&b.stmts[i])
	}
	return b
}

func (d *decoder) stmt(s *stmt) {
	op := opcode(d.byte())
	if op > opNop {
		d.fail("statement kind")
	}
	mask := d.byte()
	s.op = op
	s.target = d.count(math.MaxInt32)
	s.n = d.count(math.MaxInt32)
	s.value = d.count(math.MaxInt32)
	if mask&hasA != 0 {
		s.a = d.operand()
	}
	if mask&hasB != 0 {
		s.b = d.operand()
	}
	if mask&hasTerm != 0 {
		s.val = d.consts[d.count(len(d.consts)-1)]
	}
	if mask&hasArgs != 0 {
		s.args = make([]operand, d.count(len(d.buf)))
		for i := range s.args {
			s.args[i] = d.operand()
		}
	}
	if mask&hasName != 0 {
		s.name = d.strs[d.count(len(d.strs)-1)]
	}
	if mask&hasLoc != 0 {
		s.loc = location{File: d.varint(), Row: d.varint(), Col: d.varint()}
	}
	if mask&hasBlock != 0 {
		s.block = d.block()
	}
	if mask&hasBlocks != 0 {
		s.blocks = d.blockList()
	}
	// what evaluation indexes with must be in range
	switch op {
	case opCall:
		if s.n >= len(d.prog.funcs) || len(s.args) != len(d.prog.funcs[s.n].params) {
			d.fail("call of " + s.name)
		}
	case opCallBuiltin:
		bi, err := d.prog.builtin(s.name, len(s.args))
		if err != nil && d.err == nil {
			d.err = fmt.Errorf("irvm: %w", err)
		}
		s.bi = bi
	case opScan:
		if s.block == nil || s.n >= d.nlocals || s.value >= d.nlocals {
			d.fail("scan")
		}
	case opNot:
		if s.block == nil {
			d.fail("not")
		}
	case opAssignInt, opMakeNull, opMakeNumber:
		if s.val == nil {
			d.fail("constant missing")
		}
	case opObjectMerge:
		if s.a.val != nil || s.b.val != nil {
			d.fail("merge of a constant")
		}
	}
	if s.target >= d.nlocals {
		d.fail("local out of its frame")
	}
}
