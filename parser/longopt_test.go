package parser

import (
	"strings"
	"testing"
)

func TestGetoptArgs(t *testing.T) {
	longs := []string{"--eval=", "--file=", "--makefile=", "--silent", "--jobs", "--just-print", "--environment-overrides"}
	for _, c := range []struct{ in, want string }{
		{"-sE $(shell\x00x) all", "-s|-E|$(shell\x00x)|all"},
		{"-sE$(shell) all", "-s|-E|$(shell)|all"},
		{"--ev=$(x) --fi=- all", "--eval=$(x)|--file=-|all"},
		{"--fi - all", "--file|-|all"},
		{"-j4 -k -f Makefile.x", "-j|4|-k|-f|Makefile.x"},
		{"-j -f x", "-j|-f|x"},
		{"-f -E x", "-f|-E|x"},
		{"--e=x", "--e=x"}, // ambiguous: --eval, --environment-overrides
		{"--j", "--j"},     // ambiguous: --jobs, --just-print
		{"-- -sE x", "--|-sE|x"},
		{"- x", "-|x"},
	} {
		var args []field
		for _, w := range strings.Split(c.in, " ") {
			w = strings.ReplaceAll(w, "\x00", " ")
			args = append(args, field{text: w, pattern: w})
		}
		var got []string
		for _, f := range getoptArgs(args, "C:f:I:j::l::o:W:E:O::", longs) {
			got = append(got, f.text)
		}
		if want := strings.ReplaceAll(c.want, "\x00", " "); strings.Join(got, "|") != want {
			t.Errorf("%q: %q, want %q", c.in, strings.Join(got, "|"), want)
		}
	}
}

// TestGetoptArgsDynamicCluster: a cluster whose end is known only at run
// time still shows the value letter before the unknown part.
func TestGetoptArgsDynamicCluster(t *testing.T) {
	in := []field{{text: "-ave$R", pattern: "-ave*", dynamic: true}, {text: "src/", pattern: "src/"}}
	var got []string
	for _, f := range getoptArgs(in, "e:f:", nil) {
		got = append(got, f.text)
		if f.text == "$R" && !f.dynamic {
			t.Errorf("the unknown value lost its dynamic mark")
		}
	}
	if strings.Join(got, "|") != "-a|-v|-e|$R|src/" {
		t.Errorf("got %q", got)
	}
	in = []field{{text: "-a$X", pattern: "-a*", dynamic: true}}
	got = nil
	for _, f := range getoptArgs(in, "e:", nil) {
		got = append(got, f.text)
	}
	if strings.Join(got, "|") != "-a|-a$X" {
		t.Errorf("no value letter before the unknown part: got %q", got)
	}
}
