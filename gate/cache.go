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

	// The key is the input document printed whole, which costs about a
	// tenth of a decision: a stream of calls that never repeat pays it for
	// nothing. After probeWindow look-ups without a hit the cache rests
	// for restWindow calls (decisions made then are not looked up or
	// kept), then probes again. Resting never changes a decision.
	lookups, hits, resting int
}

const (
	probeWindow = 256
	restWindow  = 4096
)

// worthIt says whether this call should use the cache (compute its key).
func (c *decisionCache) worthIt() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.resting > 0 {
		c.resting--
		return false
	}
	return true
}

// newDecisionCache makes an empty cache: its first generation grows as it
// fills (made at full size, its table alone was a quarter of a one-call
// hook's heap, every page of it touched).
func newDecisionCache(max int) *decisionCache {
	return &decisionCache{max: max, cur: map[string]Result{}}
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
	c.count(ok)
	if ok {
		// callers own their reasons slice
		r.Reasons = append([]Reason(nil), r.Reasons...)
	}
	return r, ok
}

// count keeps the hit rate of the current probe window; under the lock.
func (c *decisionCache) count(hit bool) {
	c.lookups++
	if hit {
		c.hits++
	}
	if c.lookups >= probeWindow {
		if c.hits == 0 {
			c.resting = restWindow
		}
		c.lookups, c.hits = 0, 0
	}
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
