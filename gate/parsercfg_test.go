package gate

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/parser"
)

// viaJSON is how the gate used to read the parser's config.
func viaJSON(cfg map[string]any) (parser.Config, error) {
	var pc parser.Config
	b, err := json.Marshal(cfg)
	if err != nil {
		return pc, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	return pc, dec.Decode(&pc)
}

// TestParserConfigAsJSON: parserConfig reads what encoding/json reads,
// for the default data, for a config setting every field parser.Config
// has (so a field added there and not here fails), and refuses what JSON
// refuses.
func TestParserConfigAsJSON(t *testing.T) {
	p, err := LoadPolicy(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	every := map[string]any{}
	typ := reflect.TypeFor[parser.Config]()
	for i := range typ.NumField() {
		tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		switch typ.Field(i).Type.Kind() {
		case reflect.Slice:
			every[tag] = []any{"a-" + tag, nil, "b"}
		case reflect.Map:
			every[tag] = map[string]any{"k": []any{"v-" + tag}, "empty": []any{}, "null": nil}
		default:
			t.Fatalf("parser.Config.%s has a kind parserConfig does not read", typ.Field(i).Name)
		}
	}
	for name, cfg := range map[string]map[string]any{"default": p.Config(), "every field": every, "empty": {}} {
		got, gotErr := parserConfig(cfg)
		want, wantErr := viaJSON(cfg)
		if gotErr != nil || wantErr != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, %v\nvia JSON: %+v, %v", name, got, gotErr, want, wantErr)
		}
	}
	for _, bad := range []map[string]any{
		{"shells": "sh"}, {"shells": []any{1.5}}, {"command_groups": []any{"x"}}, {"command_groups": map[string]any{"g": "x"}},
		{"package_managers": map[string]any{"npm": []any{true}}},
	} {
		if _, err := parserConfig(bad); err == nil {
			t.Errorf("%v was accepted", bad)
		}
		if _, err := viaJSON(bad); err == nil {
			t.Errorf("JSON accepts %v", bad)
		}
	}
}
