package parser

import "testing"

// TestResolveFromAgrees: resolving from a known-real directory gives the
// same answer as the full walk, for links, "..", missing parts and loops.
func TestResolveFromAgrees(t *testing.T) {
	ws, _ := world(t)
	rels := []string{"", ".", "src/main.go", "src/link_up/../x", "src/link_up/ws/src", "link_ssh/id_rsa", "link_etc/hostname",
		"inner/../README.md", "../ws/src", "../../..", "missing/../src", "missing/../../x", "src/main.go/x", "src/", "a//b/./c",
		"link_etc/../proc/self/environ", "../../../proc/1/mem", ".git/hooks/../config"}
	for _, rel := range rels {
		r1, e1, l1 := Resolve(ws + "/" + rel)
		r2, e2, l2 := ResolveFrom(ws, rel)
		if r1 != r2 || e1 != e2 || l1 != l2 {
			t.Errorf("%q: Resolve %q %v %v, ResolveFrom %q %v %v", rel, r1, e1, l1, r2, e2, l2)
		}
	}
}
