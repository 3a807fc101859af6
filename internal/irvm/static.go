package irvm

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/internal/value"
)

// A program can also be written out as Go source of this package (GoSource):
// a variable the compiler initializes statically, so a process that uses it
// decodes and allocates nothing for its statements. Its statements, blocks
// and locations are laid out in the binary's data and paged in from the
// file as evaluation touches them. On a host where every fresh page of heap
// costs a fault (tens of microseconds in some virtual machines), the
// decoded plan (700 KB) was the largest part of a short-lived process's
// start. Only the constants and the built-in table are made when it is
// first used (Static.Program).

// Static is a program written as Go source.
type Static struct {
	Key string // what the writer was told identifies it
	// checked: the writer ran the statement checks (check) before
	// writing; Program does not run them again. Its source is compared
	// with a fresh plan's by the writer's test, so a hand edit fails
	// that test.
	checked bool
	consts  []constKey
	files   []string
	bnames  []builtinName
	funcs   []*function
	plans   []*plan
	locs    []location
}

// Program makes the program: constants made, built-ins resolved. Unless
// the writer checked it, it refuses what evaluation could not index
// safely (a damaged or hand-written one). The statement checks walk all
// 12,000 statements of the default plan: a fifth of a millisecond, and
// the first touch of every page of them, in each process.
func (s *Static) Program() (*Program, error) {
	p := &Program{funcs: s.funcs, plans: s.plans, files: s.files, locs: s.locs, bnames: s.bnames}
	p.consts = make([]value.Value, len(s.consts))
	for i, k := range s.consts {
		if k.kind > kString || (k.kind == kNumber && !isNumber(k.text)) {
			return nil, fmt.Errorf("irvm: static program %s: constant %d", s.Key, i)
		}
		p.consts[i] = k.value()
	}
	if err := p.resolve(); err != nil {
		return nil, fmt.Errorf("irvm: %w", err)
	}
	if !s.checked {
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("irvm: static program %s: %w", s.Key, err)
		}
	}
	p.findGuards()
	return p, nil
}

// check refuses a program evaluation could not run safely: frame slots
// within their frames, constants, function indexes, call arities,
// built-ins, statement kinds.
func (p *Program) check() error {
	for _, fn := range p.funcs {
		if int(fn.ret) >= fn.nlocals || fn.ret < 0 || len(fn.params) < 2 {
			return fmt.Errorf("function %s", fn.name)
		}
		for _, l := range fn.params {
			if l < 0 || int(l) >= fn.nlocals {
				return fmt.Errorf("function %s parameter", fn.name)
			}
		}
		if err := p.checkBlocks(fn.blocks, fn.nlocals); err != nil {
			return fmt.Errorf("function %s: %w", fn.name, err)
		}
	}
	for _, pl := range p.plans {
		if pl.nlocals < 2 {
			return fmt.Errorf("plan %s", pl.name)
		}
		if err := p.checkBlocks(pl.blocks, pl.nlocals); err != nil {
			return fmt.Errorf("plan %s: %w", pl.name, err)
		}
	}
	return nil
}

func (p *Program) checkBlocks(bs []*block, nlocals int) error {
	for _, b := range bs {
		if b == nil {
			return errors.New("missing block")
		}
		for i := range b.stmts {
			if err := p.checkStmt(&b.stmts[i], nlocals); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *Program) checkStmt(s *stmt, nlocals int) error {
	operand := func(o operand) bool {
		return (o >= 0 && int(o) < nlocals) || (o < 0 && int(-1-o) < len(p.consts))
	}
	switch {
	case s.op > opNop:
		return errors.New("statement kind")
	case s.target < 0 || int(s.target) >= nlocals || s.n < 0 || s.value < 0:
		return errors.New("statement target")
	case !operand(s.a) || !operand(s.b):
		return errors.New("operand out of range")
	case s.id < 0 || int(s.id) >= len(p.locs):
		return errors.New("statement location")
	}
	switch s.op {
	case opCall, opCallBuiltin, opBlock, opScan, opNot:
		if s.x == nil {
			return errors.New("statement without its operands")
		}
	}
	switch s.op {
	case opCall, opCallBuiltin:
		for _, a := range s.x.args {
			if !operand(a) {
				return errors.New("argument out of range")
			}
		}
		if s.op == opCall && (int(s.n) >= len(p.funcs) || len(s.x.args) != len(p.funcs[s.n].params)) {
			return errors.New("call of " + s.x.name)
		}
		if s.op == opCallBuiltin && (int(s.x.bi) >= len(p.bnames) || p.bnames[s.x.bi].name != s.x.name || p.bnames[s.x.bi].arity != len(s.x.args)) {
			return errors.New("call of built-in " + s.x.name)
		}
	case opBlock:
		return p.checkBlocks(s.x.blocks, nlocals)
	case opScan, opNot:
		if s.op == opScan && (int(s.n) >= nlocals || int(s.value) >= nlocals) {
			return errors.New("scan")
		}
		return p.checkBlocks([]*block{s.x.block}, nlocals)
	case opAssignInt, opMakeNull, opMakeNumber:
		if s.a >= 0 {
			return errors.New("constant missing")
		}
	case opObjectMerge:
		if s.a < 0 || s.b < 0 {
			return errors.New("merge of a constant")
		}
	}
	return nil
}

func isNumber(s string) bool {
	_, err := json.Number(s).Float64()
	return err == nil
}
