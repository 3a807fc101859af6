package policies

import "embed"

//go:generate env TOOLGATE_WRITE_SOURCES=1 go test -run ^TestSourcesAreTheFiles$ .

// FS holds the default policy: its Rego modules, their unit tests
// (*_test.rego) and data.json with data.toolgate.config.
//
//go:embed *.rego data.json
var FS embed.FS

// Source returns the embedded file name without copying it (fs.ReadFile on
// FS copies each file to the heap, which a short-lived process pays for in
// fresh pages). sources_gen.go lists the files; TestSourcesAreTheFiles
// fails while it is stale.
func Source(name string) (string, bool) {
	s, ok := sources[name]
	return s, ok
}
