package policies

import "embed"

// FS holds the default policy: its Rego modules, their unit tests
// (*_test.rego) and data.json with data.toolgate.config.
//
//go:embed *.rego data.json
var FS embed.FS
