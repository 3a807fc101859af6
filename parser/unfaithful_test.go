package parser

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestUnfaithful lists the parameter expansions mvdan/sh computes otherwise
// than bash 5.2 does (checked against bash): they must count as unknown.
func TestUnfaithful(t *testing.T) {
	for src, want := range map[string]bool{
		"${x/%X/$HOME}":  true, // anchored at the end: bash replaces, the library looks for "%X"
		"${x/#X/~}":      true,
		"${x/*/&}":       true, // & is the match in bash 5.2
		`${x/X/\/etc}`:   true, // the library keeps the backslash
		"${x##+(X)}":     true, // extglob: a literal here
		"${x%%@(a|b)}":   true,
		"${x#$p}":        true, // a parameter in a pattern is a pattern
		"${x/$p/y}":      true,
		"${x^^[a-c]}":    false,
		"${x/.txt/.md}":  false,
		"${x//a/b}":      false,
		"${x%.txt}":      false,
		"${x##*/}":       false,
		"${x/a/$suffix}": false, // a parameter in the replacement is its value in both
		"${x:-default}":  false,
		`${x/a/"&"}`:     false, // quoted: a literal & in bash too
		"${x/a/'\\/'}":   false,
		`${x//\//_}`:     false, // an escaped / in a pattern: both match a /
		`${x%\/*}`:       false,
		"${x:0:3}":       false,
		"${#x}":          false,
		"${x/\"#\"X/y}":  false, // a quoted # is no anchor
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader("echo "+src), "")
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		var pe *syntax.ParamExp
		syntax.Walk(f, func(n syntax.Node) bool {
			if p, ok := n.(*syntax.ParamExp); ok && pe == nil {
				pe = p
			}
			return true
		})
		if got := unfaithful(pe); got != want {
			t.Errorf("unfaithful(%s) = %v, want %v", src, got, want)
		}
	}
}
