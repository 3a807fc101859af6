//go:build !toolgate_small

package irvm_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/toolgate/toolgate/internal/irvm"
)

// roundTrip encodes prog, loads it back and wants the same encoding.
func roundTrip(t testing.TB, prog *irvm.Program) *irvm.Program {
	t.Helper()
	b, err := prog.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := irvm.Load(b)
	if err != nil {
		t.Fatalf("loading an encoded program: %v", err)
	}
	again, err := loaded.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, again) {
		t.Fatalf("the loaded program encodes differently (%d bytes, then %d)", len(b), len(again))
	}
	return loaded
}

func encodedModule(t testing.TB) []byte {
	prog, err := irvm.Prepare(context.Background(), rego.Query("data.p.result"), rego.Module("p.rego", module))
	if err != nil {
		t.Fatal(err)
	}
	b, err := prog.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLoadRefusesDamage: a truncated or altered encoding is refused with
// an error or loads as some program; it never panics, and the frame
// checks hold for whatever loads (evaluation indexes frames with them).
func TestLoadRefusesDamage(t *testing.T) {
	b := encodedModule(t)
	if _, err := irvm.Load(b[:len(b)-1]); err == nil {
		t.Error("a truncated program loaded")
	}
	if _, err := irvm.Load(append(b[:len(b):len(b)], 0)); err == nil || !strings.Contains(err.Error(), "trailing") {
		t.Errorf("a program with trailing bytes: %v", err)
	}
	if _, err := irvm.Load([]byte("{}")); err == nil || !strings.Contains(err.Error(), "not an encoded program") {
		t.Errorf("JSON loaded as a program: %v", err)
	}
	refused := 0
	for i := 16; i < len(b); i += 7 {
		for _, x := range []byte{0x01, 0x40, 0xff} {
			c := bytes.Clone(b)
			c[i] ^= x
			if _, err := irvm.Load(c); err != nil {
				refused++
			}
		}
		if _, err := irvm.Load(b[:i]); err == nil {
			t.Errorf("a program cut at byte %d loaded", i)
		}
	}
	if refused == 0 {
		t.Error("no altered program was refused")
	}
}

// TestLoadRefusesUnknownBuiltin: a program naming a built-in this build
// does not have is refused, as Compile refuses it.
func TestLoadRefusesUnknownBuiltin(t *testing.T) {
	b := encodedModule(t)
	c := bytes.Replace(b, []byte("regex.match"), []byte("regex.matcX"), 1)
	if bytes.Equal(b, c) {
		t.Fatal("the program calls no regex.match")
	}
	if _, err := irvm.Load(c); err == nil || !strings.Contains(err.Error(), "regex.matcX") {
		t.Errorf("an unknown built-in: %v", err)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add(encodedModule(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		prog, err := irvm.Load(b)
		if err != nil {
			return
		}
		if _, err := prog.MarshalBinary(); err != nil {
			t.Fatalf("a loaded program does not encode: %v", err)
		}
	})
}
