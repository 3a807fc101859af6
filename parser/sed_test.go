package parser

import (
	"slices"
	"testing"
)

// TestSedCommands: commands come out with their addresses dropped (regex
// addresses with other delimiters, escapes and I/M flags included); the
// text of a, i and c is not read as commands.
func TestSedCommands(t *testing.T) {
	for script, want := range map[string][]string{
		"1w/etc/x":               {"w/etc/x"},
		`/a/Iw /etc/x`:           {"w /etc/x"},
		`\%a%w /etc/x`:           {"w /etc/x"},
		`/a\/b/,+2 w out`:        {"w out"},
		`$!N;s/x/y/;P;D`:         {"N", "s/x/y/", "P", "D"},
		"1~2{p}":                 {"p}"},
		"/x/a foo; w /etc/x":     nil,
		"1i\\\necho hi\nw out":   {"w out"},
		"1i\\\nl1\\\nl2\ne date": {"e date"},
		"/unterminated":          nil,
		"s/a/b/g\n3d":            {"s/a/b/g", "d"},
	} {
		if got := sedCommands(script); !slices.Equal(got, want) {
			t.Errorf("%q: commands %q, want %q", script, got, want)
		}
	}
}
