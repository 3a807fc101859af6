package gate

import "sync"

// maxCacheKey bounds the input documents the cache keeps (bytes of their
// encoding): with at most 1,024 entries the cache stays under ~8 MiB.
const maxCacheKey = 8 << 10

// decisionCache remembers decisions by their input document. It is bounded:
// when full it starts over, which keeps it simple and its memory flat.
type decisionCache struct {
	mu  sync.Mutex
	max int
	m   map[string]Result
}

func newDecisionCache(max int) *decisionCache {
	return &decisionCache{max: max, m: make(map[string]Result, max)}
}

func (c *decisionCache) get(key string) (Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[key]
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
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[key] = r
}
