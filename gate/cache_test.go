package gate

import (
	"fmt"
	"testing"
)

// TestDecisionCacheKeepsRecentEntries: a full generation becomes the old
// one instead of being cleared; hits in it are kept; entries older than
// two generations are gone; memory stays bounded.
func TestDecisionCacheKeepsRecentEntries(t *testing.T) {
	c := newDecisionCache(4)
	key := func(i int) string { return fmt.Sprint("k", i) }
	for i := range 6 {
		c.put(key(i), Result{Decision: "allow", Reasons: []Reason{{Rule: key(i)}}})
	}
	// 0-3 fill the first generation, 4 starts the second: 0-5 all kept
	for i := range 6 {
		r, ok := c.cur[key(i)]
		if !ok {
			r, ok = c.old[key(i)]
		}
		if !ok || r.Reasons[0].Rule != key(i) {
			t.Fatalf("entry %d lost: %v %v", i, r, ok)
		}
	}
	if r, ok := c.get(key(0)); !ok || r.Reasons[0].Rule != key(0) {
		t.Fatalf("old entry not found: %v %v", r, ok)
	}
	for i := 6; i < 20; i++ {
		c.put(key(i), Result{Decision: "deny"})
		c.get(key(0)) // kept alive by use
	}
	if _, ok := c.get(key(0)); !ok {
		t.Error("an entry in use was dropped")
	}
	if _, ok := c.get(key(1)); ok {
		t.Error("an entry two generations old is still there")
	}
	if n := len(c.cur) + len(c.old); n > 8 {
		t.Errorf("%d entries kept for a bound of 2x4", n)
	}
	// callers own the reasons they get
	r, _ := c.get(key(0))
	r.Reasons = append(r.Reasons, Reason{Rule: "x"})
	if r2, _ := c.get(key(0)); len(r2.Reasons) != 1 {
		t.Error("a caller's change reached the cache")
	}
	c.put("empty", Result{})
	if _, ok := c.get("empty"); ok {
		t.Error("a result without a decision was cached")
	}
}

// TestDecisionCacheRestsWhenNothingRepeats: after a window of look-ups
// without a hit the cache is not consulted for a while, then probes again;
// a window with a hit keeps it on.
func TestDecisionCacheRestsWhenNothingRepeats(t *testing.T) {
	c := newDecisionCache(1024)
	for i := range probeWindow {
		if !c.worthIt() {
			t.Fatalf("resting after %d look-ups", i)
		}
		c.get(fmt.Sprint("miss", i))
	}
	rested := 0
	for !c.worthIt() {
		rested++
	}
	if rested != restWindow {
		t.Errorf("rested %d calls, want %d", rested, restWindow)
	}
	// a window with one hit keeps it on
	c.put("k", Result{Decision: "allow"})
	for i := range probeWindow {
		c.worthIt()
		if i == 10 {
			c.get("k")
		} else {
			c.get(fmt.Sprint("miss2-", i))
		}
	}
	if !c.worthIt() {
		t.Error("a window with a hit put the cache to rest")
	}
}
