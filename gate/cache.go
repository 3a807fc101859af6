package gate

import "sync"

// maxCacheKey bounds the input documents the cache keeps (bytes of their
// encoding): with two generations of at most 1,024 entries the cache stays
// under ~16 MiB.
const maxCacheKey = 8 << 10

// decisionCache remembers decisions by their input document. It is bounded
// and keeps the recent ones: two generations of at most max entries each;
// when the current one is full it becomes the old one (the older is
// dropped), and a hit in the old generation moves the entry to the
// current. A stream that cycles through more than max distinct calls still
// finds the ones it repeats soon.
type decisionCache struct {
	mu       sync.Mutex
	max      int
	cur, old map[string]Result
}

func newDecisionCache(max int) *decisionCache {
	return &decisionCache{max: max, cur: make(map[string]Result, max)}
}

func (c *decisionCache) get(key string) (Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.cur[key]
	if !ok {
		if r, ok = c.old[key]; ok {
			delete(c.old, key)
			c.insert(key, r)
		}
	}
	if ok {
		// callers own their reasons slice
		r.Reasons = append([]Reason(nil), r.Reasons...)
	}
	return r, ok
}

func (c *decisionCache) put(key string, r Result) {
	if r.Decision == "" {
		return
	}
	r.Input = nil
	r.Reasons = append([]Reason(nil), r.Reasons...)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.insert(key, r)
}

func (c *decisionCache) insert(key string, r Result) {
	if len(c.cur) >= c.max {
		c.old, c.cur = c.cur, make(map[string]Result, c.max)
	}
	c.cur[key] = r
}
