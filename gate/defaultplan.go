package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/internal/irvm"
)

//go:generate env TOOLGATE_WRITE_PLAN=1 go test -run ^TestEmbeddedPlan$ .

// The embedded default policy's plan is made when toolgate is built (go
// generate; TestEmbeddedPlan fails while it is stale) and kept as Go
// source, internal/irvm/default_plan.go: irvm.Default, whose key names
// the modules it was planned from and the version of OPA that planned
// them. The compiler initializes it statically, so a process decodes and
// allocates nothing for its 12,000 statements (decoding a binary plan was
// the largest part of a hook's start: 700 KB of fresh heap). A gate on
// the default policy alone (any data: a plan reads data when it runs)
// runs it instead of having OPA compile and plan the policy, which took
// most of a start (≈ 50 ms of CPU). Any other policy, or a plan made from
// other modules or (in the full build) by another OPA, is compiled as
// before. The same go generate writes the embedded data document, its
// index and the default policy's digest as Go source too
// (builtin_data.go; see builtindata.go).

// planKey names the modules a plan was made from.
func planKey(modules map[string]string) string {
	h := sha256.New()
	fmt.Fprintf(h, "toolgate plan 1\n")
	writeModules(h, modules)
	return hex.EncodeToString(h.Sum(nil))
}

// writeModules writes the modules to w sorted by name, each with its
// length: what both a plan's key and a policy's digest hash.
func writeModules(w io.Writer, modules map[string]string) {
	names := make([]string, 0, len(modules))
	for n := range modules {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "module %d %s\n%s\n", len(modules[n]), n, modules[n])
	}
}

var embedded struct {
	once sync.Once
	key  string

	loadOnce sync.Once
	vm       *irvm.Program
	err      error
}

// hasEmbeddedPlan says whether the embedded plan was made from modules.
func hasEmbeddedPlan(modules map[string]string) bool {
	embedded.once.Do(func() {
		key, opa, _ := strings.Cut(irvm.Default.Key, " ")
		// the full build takes the plan only from its own OPA; the small
		// build, which has no OPA, from any
		if opaVersion == "" || opa == opaVersion {
			embedded.key = key
		}
	})
	return embedded.key != "" && embedded.key == planKey(modules)
}

// embeddedPlan returns the program of the embedded plan if it was made
// from the policy's modules; nil if it was not (or there is none).
func (p *Policy) embeddedPlan() (*irvm.Program, error) {
	if !p.planned() {
		return nil, nil
	}
	embedded.loadOnce.Do(func() { embedded.vm, embedded.err = irvm.Default.Program() })
	return embedded.vm, embedded.err
}

// planned says whether the embedded plan was made from the policy's
// modules; the modules are hashed once.
func (p *Policy) planned() bool {
	p.plannedOnce.Do(func() { p.hasPlan = hasEmbeddedPlan(p.Modules) })
	return p.hasPlan
}
