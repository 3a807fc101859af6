package policies

import "embed"

// FS holds the default policy: its Rego modules, their unit tests
// (*_test.rego) and data.json with data.toolgate.config.
//
//go:embed *.rego data.json
var FS embed.FS

// Plan is the default policy's plan, made at build time for package gate
// (see gate/defaultplan.go): a key line, then an irvm program.
//
//go:embed default.plan
var Plan []byte
