package gate

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
)

// CheckInputEncoding compares inputValue with the JSON encoding of in.
func CheckInputEncoding(in *Input) error {
	direct, err := inputValue(in)
	if err != nil {
		return err
	}
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	viaJSON, err := ast.ValueFromReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if direct.Compare(viaJSON) != 0 {
		return fmt.Errorf("direct %v\n json %v", direct, viaJSON)
	}
	return nil
}
