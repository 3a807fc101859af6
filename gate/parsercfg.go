package gate

import (
	"fmt"

	"github.com/toolgate/toolgate/parser"
)

// parserConfig reads the parser's lists out of data.toolgate.config as
// encoding/json would decode that object into a parser.Config (a list
// of strings, null entries as "", a missing or null list left nil), but
// without the round trip through JSON text, which was a tenth of a cold
// hook's start. TestParserConfigAsJSON holds the two equal, for every
// field parser.Config has.
func parserConfig(cfg map[string]any) (parser.Config, error) {
	var pc parser.Config
	for _, l := range []struct {
		name string
		dst  *[]string
	}{
		{"shells", &pc.Shells}, {"interpreters", &pc.Interpreters}, {"wrappers", &pc.Wrappers},
		{"read_roots", &pc.ReadRoots}, {"sensitive_paths", &pc.SensitivePaths}, {"sensitive_names", &pc.SensitiveNames},
		{"exec_sink_vars", &pc.ExecSinkVars}, {"file_sink_vars", &pc.FileSinkVars},
		{"downloaders", &pc.Downloaders}, {"decoders", &pc.Decoders},
	} {
		v, err := stringList(cfg[l.name], l.name)
		if err != nil {
			return pc, err
		}
		*l.dst = v
	}
	for _, m := range []struct {
		name string
		dst  *map[string][]string
	}{{"command_groups", &pc.CommandGroups}, {"package_managers", &pc.PackageManagers}} {
		switch v := cfg[m.name].(type) {
		case nil:
		case map[string]any:
			out := make(map[string][]string, len(v))
			for k, e := range v {
				l, err := stringList(e, m.name+"."+k)
				if err != nil {
					return pc, err
				}
				out[k] = l
			}
			*m.dst = out
		default:
			return pc, fmt.Errorf("data.toolgate.config.%s: want an object of lists of strings, got %T", m.name, v)
		}
	}
	return pc, nil
}

func stringList(v any, name string) ([]string, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			switch e := e.(type) {
			case string:
				out[i] = e
			case nil:
			default:
				return nil, fmt.Errorf("data.toolgate.config.%s: entries must be strings, got %T", name, e)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("data.toolgate.config.%s: want a list of strings, got %T", name, v)
}
