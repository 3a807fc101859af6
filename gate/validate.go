package gate

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolgate/toolgate/tools"
)

// validator holds every tool's compiled JSON Schema.
type validator struct {
	schemas map[string]*jsonschema.Schema
}

// newValidator compiles the tools' schemas once, with no loader: a schema
// can never fetch anything.
func newValidator(ts []tools.Tool) (*validator, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(jsonschema.SchemeURLLoader{})
	v := &validator{schemas: map[string]*jsonschema.Schema{}}
	for _, t := range ts {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(t.Schema))
		if err != nil {
			return nil, fmt.Errorf("tool %s: schema is not JSON: %w", t.Name, err)
		}
		url := "mem:///tools/" + t.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		s, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("tool %s: schema does not compile: %w", t.Name, err)
		}
		v.schemas[t.Name] = s
	}
	return v, nil
}

// validate checks args against the tool's schema and returns every
// violation as "location: message", sorted.
func (v *validator) validate(tool string, args []byte) ([]string, bool) {
	s, ok := v.schemas[tool]
	if !ok {
		return nil, false
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return []string{"/: arguments are not valid JSON: " + err.Error()}, true
	}
	err = s.Validate(doc)
	if err == nil {
		return nil, true
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{"/: " + err.Error()}, true
	}
	var out []string
	seen := map[string]bool{}
	var walk func(u *jsonschema.OutputUnit)
	walk = func(u *jsonschema.OutputUnit) {
		if u.Error != nil {
			loc := u.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			msg := loc + ": " + u.Error.String()
			if !seen[msg] && !strings.Contains(u.Error.String(), "validation failed") {
				seen[msg] = true
				out = append(out, msg)
			}
		}
		for i := range u.Errors {
			walk(&u.Errors[i])
		}
	}
	walk(ve.BasicOutput())
	if len(out) == 0 {
		out = append(out, "/: "+ve.Error())
	}
	sort.Strings(out)
	return out, true
}
