//go:build !toolgate_small

package gate

import "github.com/open-policy-agent/opa/v1/version"

// opaVersion is the OPA this build compiles with: the embedded plan is
// taken only if that OPA made it.
var opaVersion = version.Version
