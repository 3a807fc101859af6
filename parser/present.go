package parser

// Present is an index of what the facts contain, for policies to open rules
// with a look-up OPA can index: a rule guarded by input.present.names.chmod is
// skipped without evaluation when no chmod is present. Each key is present
// only when true, so a missing key is an undefined reference.
type Present struct {
	Names     map[string]bool `json:"names"`   // every command name and wrapper name
	Access    map[string]bool `json:"access"`  // access kinds of the path set
	Zones     map[string]bool `json:"zones"`   // zones of the path set
	Dynamic   map[string]bool `json:"dynamic"` // kinds of dynamic parts
	Sensitive bool            `json:"sensitive,omitempty"`
	Assigns   bool            `json:"assigns,omitempty"`
	Forks     bool            `json:"forks,omitempty"`
	Pipelines bool            `json:"pipelines,omitempty"`
	Uploads   bool            `json:"uploads,omitempty"`
}

// Index computes the Present index of f.
func (f *Facts) Index() Present {
	p := Present{Names: map[string]bool{}, Access: map[string]bool{}, Zones: map[string]bool{}, Dynamic: map[string]bool{}}
	for _, c := range f.Commands {
		if c.Name != "" {
			p.Names[c.Name] = true
		}
		for _, w := range c.Wrappers {
			p.Names[w] = true
		}
	}
	for _, x := range f.Paths {
		p.Access[x.Access] = true
		p.Zones[x.Zone] = true
		if x.Sensitive {
			p.Sensitive = true
		}
		if x.Role == "upload" {
			p.Uploads = true
		}
	}
	for _, d := range f.Dynamic {
		p.Dynamic[d.Kind] = true
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
