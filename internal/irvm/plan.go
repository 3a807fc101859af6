//go:build !toolgate_small

package irvm

import (
	"context"
	"errors"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/ir"
	"github.com/open-policy-agent/opa/v1/rego"
)

// Target is the rego.Target name under which OPA hands its plan to this
// package (registered once, in init).
const Target = "toolgate-irvm"

type planSlot struct{ policy *ir.Policy }

type slotKey struct{}

// target is a rego target plugin that only keeps the plan it is given;
// evaluation through rego.PreparedEvalQuery with this target is refused.
type target struct{}

func (target) IsTarget(t string) bool { return t == Target }

func (target) PrepareForEval(ctx context.Context, p *ir.Policy, _ ...rego.PrepareOption) (rego.TargetPluginEval, error) {
	slot, _ := ctx.Value(slotKey{}).(*planSlot)
	if slot == nil {
		return nil, errors.New("irvm: the " + Target + " target is only prepared through irvm.Prepare")
	}
	slot.policy = p
	return refuse{}, nil
}

type refuse struct{}

func (refuse) Eval(context.Context, *rego.EvalContext, ast.Value) (ast.Value, error) {
	return nil, errors.New("irvm: evaluate with Program.Eval, not through rego")
}

func init() { rego.RegisterPlugin(Target, target{}) }

// Prepare compiles the query and modules given as rego options with
// OPA's compiler, has OPA plan the query, and returns that plan as a
// Program (whose QueryPlan evaluates the query). The options must not set
// a target of their own.
func Prepare(ctx context.Context, opts ...func(*rego.Rego)) (*Program, error) {
	slot := &planSlot{}
	ctx = context.WithValue(ctx, slotKey{}, slot)
	opts = append(opts[:len(opts):len(opts)], rego.Target(Target))
	if _, err := rego.New(opts...).PrepareForEval(ctx); err != nil {
		return nil, err
	}
	if slot.policy == nil {
		return nil, errors.New("irvm: OPA made no plan")
	}
	prog, err := Compile(slot.policy)
	if err != nil {
		return nil, &UnsupportedError{Err: err}
	}
	return prog, nil
}

// UnsupportedError is Prepare's error for a policy that OPA compiled and
// planned but whose plan irvm does not run; OPA's topdown can.
type UnsupportedError struct{ Err error }

func (e *UnsupportedError) Error() string { return e.Err.Error() }
func (e *UnsupportedError) Unwrap() error { return e.Err }
