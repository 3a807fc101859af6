//go:build toolgate_small

package gate

import (
	"context"
	"errors"
	"io"

	"github.com/toolgate/toolgate/internal/value"
)

// The small build (-tags toolgate_small) runs the embedded default policy
// from its plan, made when toolgate was built, and nothing that needs
// OPA's compiler or evaluator: no other policy, no data files, no
// bundles, no policy tests, no traces. The command line hands those to
// toolgate-full, the full build beside it; what reaches the gate anyway
// is refused with ErrNeedsFull.

// ErrNeedsFull is what the small build answers where it would need OPA.
var ErrNeedsFull = errors.New("this is toolgate's small build, which runs the embedded default policy and nothing that needs OPA's Rego compiler (other policies, --data, bundles, policy tests, explain): run toolgate-full, the full build (make build puts it beside toolgate)")

// opaVersion is empty: the small build takes the embedded plan made by
// any OPA, having none of its own.
const opaVersion = ""

// withTests: the small build runs no policy tests.
const withTests = false

type parsedModules = map[string]struct{}

type queryTracer = any

type topdownState struct{}

func newTopdownState(*Policy, map[string]any) topdownState { return topdownState{} }

func (p *Policy) addDir(int, string) error                           { return ErrNeedsFull }
func (p *Policy) addDataFile(string) error                           { return ErrNeedsFull }
func (p *Policy) parse() error                                       { return ErrNeedsFull }
func (p *Policy) compileOPA(context.Context, *evaluator, bool) error { return ErrNeedsFull }

func (ev *evaluator) evalTopdown(context.Context, value.Value, queryTracer) (any, bool, error) {
	return nil, false, ErrNeedsFull
}

// LoadBundle needs OPA's bundle reader.
func LoadBundle(context.Context, string, string) (*Policy, error) { return nil, ErrNeedsFull }

// BuildBundle needs OPA's compiler.
func BuildBundle(context.Context, BuildOptions) ([]byte, error) { return nil, ErrNeedsFull }

// Test needs OPA's test runner.
func (p *Policy) Test(context.Context, string) ([]TestResult, error) { return nil, ErrNeedsFull }

// Explain needs OPA's tracing evaluator.
func (g *Gate) Explain(ctx context.Context, c Call, w io.Writer) Result {
	return deny(c.ID, c.Tool, CodePolicyError, ErrNeedsFull.Error())
}
