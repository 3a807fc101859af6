package parser

import (
	"encoding/json"
	"path"
	"slices"
	"strings"
)

// Present is an index of what the facts contain, for policies to open rules
// with a test OPA can index: a rule guarded by "chmod" in
// input.present.names is skipped without evaluation when no chmod is
// present. The lists are sets of strings for the policy (a JSON array,
// sorted, when encoded), so input.present.names.chmod also holds exactly
// when chmod is present. The flags are present only when true, so a missing
// one is an undefined reference.
type Present struct {
	Names     Set  `json:"names"`   // every command name and wrapper name
	Groups    Set  `json:"groups"`  // command groups some name belongs to
	Access    Set  `json:"access"`  // access kinds of the path set
	Zones     Set  `json:"zones"`   // zones of the path set
	Dynamic   Set  `json:"dynamic"` // kinds of dynamic parts
	Sensitive bool `json:"sensitive,omitempty"`
	Assigns   bool `json:"assigns,omitempty"`
	Forks     bool `json:"forks,omitempty"`
	Pipelines bool `json:"pipelines,omitempty"`
	Uploads   bool `json:"uploads,omitempty"`
	Writes    bool `json:"writes,omitempty"`    // some path is written or deleted
	Scripts   bool `json:"scripts,omitempty"`   // a nested script, eval, or script from stdin/<(…) is not literal
	Protected bool `json:"protected,omitempty"` // some path is one of toolgate's own files
}

// Set is a set of strings: its members are the keys that map to true.
type Set map[string]bool

// Sorted lists the members in order.
func (s Set) Sorted() []string {
	out := make([]string, 0, len(s))
	for k, in := range s {
		if in {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// MarshalJSON encodes the set as a sorted array, which is how OPA encodes
// a set.
func (s Set) MarshalJSON() ([]byte, error) { return json.Marshal(s.Sorted()) }

// scriptKinds are the dynamic kinds that mean code could not be read.
var scriptKinds = map[string]bool{"nested_script": true, "eval": true, "procsubst_script": true, "stdin_script": true, "too_large": true}

// Index computes the Present index of f, with the command groups of a.
func (a *Analyzer) Index(f *Facts) Present {
	p := Present{Names: Set{}, Groups: Set{}, Access: Set{}, Zones: Set{}, Dynamic: Set{}}
	for _, c := range f.Commands {
		if c.Name != "" {
			p.Names[c.Name] = true
		}
		for _, w := range c.Wrappers {
			p.Names[w] = true
		}
	}
	for n := range p.Names {
		for _, g := range a.groupsOf(n) {
			p.Groups[g] = true
		}
	}
	for _, x := range f.Paths {
		p.Access[x.Access] = true
		if x.Access == "write" || x.Access == "delete" {
			p.Writes = true
		}
		p.Zones[x.Zone] = true
		if x.Sensitive {
			p.Sensitive = true
		}
		if x.Role == "upload" {
			p.Uploads = true
		}
		if x.Protected != "" {
			p.Protected = true
		}
	}
	for _, d := range f.Dynamic {
		p.Dynamic[d.Kind] = true
		if scriptKinds[d.Kind] {
			p.Scripts = true
		}
	}
	for _, fn := range f.Functions {
		if fn.Forks {
			p.Forks = true
		}
	}
	p.Assigns = len(f.Assigns) > 0
	p.Pipelines = len(f.Pipelines) > 0
	return p
}

// groupsOf lists the command groups name belongs to.
func (a *Analyzer) groupsOf(name string) []string {
	if gs, ok := a.groupExact[name]; ok && len(a.groupPatterns) == 0 && strings.ToLower(name) == name {
		return gs
	}
	out := append([]string(nil), a.groupExact[name]...)
	if low := strings.ToLower(name); low != name {
		out = append(out, a.groupExact[low]...) // Windows and PowerShell names
	}
	for _, gp := range a.groupPatterns {
		if ok, _ := path.Match(gp.pattern, name); ok {
			out = append(out, gp.group)
		}
	}
	return out
}

type groupPattern struct{ group, pattern string }
