package gate

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The evaluated data document adds data.toolgate.index without touching
// the policy's own data, which a reload or a second gate reads again.
func TestDataDocLeavesPolicyDataAlone(t *testing.T) {
	p, err := LoadPolicy(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(p.Data)
	doc, err := p.dataDoc()
	if err != nil {
		t.Fatal(err)
	}
	if tg, _ := doc["toolgate"].(map[string]any); tg == nil || tg["index"] == nil || tg["config"] == nil {
		t.Fatalf("no index or config in the document: %v", doc["toolgate"])
	}
	after, _ := json.Marshal(p.Data)
	if !bytes.Equal(before, after) {
		t.Fatal("dataDoc changed the policy's data")
	}
}
