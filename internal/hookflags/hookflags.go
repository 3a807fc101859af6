package hookflags

import "slices"

// Valued are the command's flags that take a value (all but --help).
var Valued = []string{
	"audit", "audit-key", "audit-max-bytes", "bundle", "bundle-verification-key",
	"checkpoint-every", "data", "fsync", "policy", "socket", "workspace",
}

// Takes says whether name (without dashes) is a flag of the command and
// whether it takes a value.
func Takes(name string) (known, valued bool) {
	if name == "help" || name == "h" {
		return true, false
	}
	return slices.Contains(Valued, name), slices.Contains(Valued, name)
}
