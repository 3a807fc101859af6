package parser

import (
	"fmt"
	"math/rand"
	"path"
	"strings"
	"testing"
)

// linearCouldMatch is the plain definition the secret tree implements: an
// entry matches when its components intersect the pattern's and the
// pattern is at least as long, or open.
func linearCouldMatch(entries map[string]string, comps []string, open bool, skip func(string) bool) map[string]bool {
	out := map[string]bool{}
	for abs, raw := range entries {
		if skip(abs) {
			continue
		}
		entry := splitPath(abs)
		if len(comps) < len(entry) && !open {
			continue
		}
		ok := true
		for i := 0; i < len(entry) && i < len(comps); i++ {
			if !compsIntersect(comps[i], entry[i]) {
				ok = false
				break
			}
		}
		if ok {
			out[raw] = true
		}
	}
	return out
}

// TestSecretTreeMatchesDefinition compares the tree with the definition on
// random entries and patterns: it finds an entry exactly when one exists,
// and the one it names is such an entry.
func TestSecretTreeMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"a", "b", "ab", "home", "u", ".ssh", ".aws", "x.pem", "etc", "root"}
	comp := func(pattern bool) string {
		w := words[rng.Intn(len(words))]
		if pattern {
			switch rng.Intn(6) {
			case 0:
				return "*"
			case 1:
				return w[:1] + "*"
			case 2:
				return "*" + w[len(w)-1:]
			case 3:
				return "?" + w[1:]
			}
		}
		return w
	}
	pathOf := func(n int, pattern bool) []string {
		cs := make([]string, n)
		for i := range cs {
			cs[i] = comp(pattern)
		}
		return cs
	}
	for round := 0; round < 300; round++ {
		entries := map[string]string{}
		tree := &secretNode{}
		for range 1 + rng.Intn(30) {
			cs := pathOf(1+rng.Intn(4), false)
			abs := "/" + strings.Join(cs, "/")
			entries[abs] = "~" + abs
		}
		for abs, raw := range entries {
			tree.add(abs, splitPath(abs), raw)
		}
		tree.sort()
		ws := "/" + strings.Join(pathOf(1+rng.Intn(3), false), "/")
		for range 50 {
			comps := pathOf(rng.Intn(5), true)
			open := len(comps) > 0 && strings.Contains(comps[len(comps)-1], "*") && rng.Intn(2) == 0
			inWS := rng.Intn(3) == 0
			skip := func(abs string) bool { return inWS && under(ws, abs) }
			want := linearCouldMatch(entries, comps, open, skip)
			got, ok := tree.match(comps, open, skip)
			if ok != (len(want) > 0) || ok && !want[got] {
				t.Fatalf("entries %v, pattern %q open=%v ws %s inWS=%v: tree says %q %v, want one of %v",
					keys(entries), comps, open, ws, inWS, got, ok, want)
			}
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestCouldBeSensitiveDeterministic: the entry named in a reason is the
// same every time (it used to follow map order).
func TestCouldBeSensitiveDeterministic(t *testing.T) {
	var paths []string
	for i := range 50 {
		paths = append(paths, fmt.Sprintf("~/.secret%d", i))
	}
	c := newClassifier(Config{SensitivePaths: paths}, "/w", "/h")
	first, _ := c.tree.match(splitPath("/h/*"), false, func(string) bool { return false })
	for range 20 {
		c := newClassifier(Config{SensitivePaths: paths}, "/w", "/h")
		if ok, r := c.couldBeSensitive("/h/*", false, "outside"); !ok || r != first {
			t.Fatalf("got %q %v, want %q", r, ok, first)
		}
	}
}

// TestNameMatcherAgreesWithPathMatch: the sensitive-name matcher answers
// as path.Match for every shape of name it shortens.
func TestNameMatcherAgreesWithPathMatch(t *testing.T) {
	names := []string{"id_rsa", ".env", "*.pem", "*.key", "*", "*.", "id_*", "*_key*", "[.]env", `\*.pem`, "*.p[e]m", "?env", ".env.*", "credentials", ""}
	bases := []string{"id_rsa", "id_rsa.pub", ".env", "x.pem", ".pem", "pem", "a.key", "key", "a.b.pem", "*.pem", "env", "xenv", ".env.local", "", "/", ".", "a.", "id_", "credentials", "x_key_y"}
	for _, n := range names {
		m := matcherFor(n)
		for _, b := range bases {
			want, _ := path.Match(n, b)
			if got := m.match(b); got != want {
				t.Errorf("name %q, base %q: %v, path.Match %v", n, b, got, want)
			}
		}
	}
}
