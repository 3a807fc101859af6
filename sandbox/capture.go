package sandbox

import (
	"sync"
	"unicode/utf8"
)

// Capture keeps what a stream wrote without ever holding more than a fixed
// amount: the first HeadBytes bytes, the last TailBytes bytes, and counts of
// what fell between them. An output flood costs the host a bounded buffer,
// and a reader still sees the beginning and the end, which is what the exec
// tool shows a model anyway.
type Capture struct {
	mu       sync.Mutex
	head     []byte
	headCap  int
	ring     []byte // circular buffer of the last bytes, made on first use
	ringSize int
	ringLen  int
	ringPos  int // next write position in ring
	total    int64
	dropped  int64 // bytes that left the ring
	droppedR int64 // runes (UTF-8 start bytes) among them
	// onWrite, when set, is told the running total after each write (the
	// sandbox stops a box whose output passes its limit).
	onWrite func(total int64)
}

// NewCapture returns a capture keeping headBytes from the start and
// tailBytes from the end. Its buffers grow as the stream does: most
// commands write little or nothing, and a box per call should not cost
// clearing a quarter of a megabyte.
func NewCapture(headBytes, tailBytes int) *Capture {
	return &Capture{headCap: headBytes, ringSize: tailBytes}
}

// setOnWrite installs the hook; the copying goroutines may already be
// writing, so it takes the lock.
func (c *Capture) setOnWrite(fn func(total int64)) {
	c.mu.Lock()
	c.onWrite = fn
	c.mu.Unlock()
}

// Write never fails and never blocks on the size of p.
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	n := len(p)
	c.total += int64(n)
	if room := c.headCap - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > 0 && c.ringSize > 0 {
		if c.ring == nil {
			c.ring = make([]byte, c.ringSize)
		}
		c.toRing(p)
	} else if len(p) > 0 {
		c.dropped += int64(len(p))
		c.droppedR += runeStarts(p)
	}
	total, cb := c.total, c.onWrite
	c.mu.Unlock()
	if cb != nil {
		cb(total)
	}
	return n, nil
}

func (c *Capture) toRing(p []byte) {
	size := len(c.ring)
	if len(p) >= size {
		// Everything in the ring and the front of p fall out.
		c.evict(c.ringLen)
		lost := p[:len(p)-size]
		c.dropped += int64(len(lost))
		c.droppedR += runeStarts(lost)
		copy(c.ring, p[len(p)-size:])
		c.ringLen, c.ringPos = size, 0
		return
	}
	if over := c.ringLen + len(p) - size; over > 0 {
		c.evict(over)
	}
	for len(p) > 0 {
		k := copy(c.ring[c.ringPos:], p)
		p = p[k:]
		c.ringPos = (c.ringPos + k) % size
		c.ringLen += k
	}
}

// evict drops the n oldest bytes of the ring, counting them.
func (c *Capture) evict(n int) {
	size := len(c.ring)
	start := (c.ringPos - c.ringLen + size) % size
	for n > 0 {
		k := min(n, size-start)
		seg := c.ring[start : start+k]
		c.dropped += int64(k)
		c.droppedR += runeStarts(seg)
		start = (start + k) % size
		n -= k
		c.ringLen -= k
	}
}

// runeStarts counts the bytes of p that begin a UTF-8 sequence (or are
// invalid on their own), which is the number of characters they decode to
// closely enough for a truncation notice.
func runeStarts(p []byte) int64 {
	var n int64
	for _, b := range p {
		if b&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// Text is what a Capture kept, decoded: Head, then Gap characters that were
// not kept, then Tail. Invalid UTF-8 is replaced with U+FFFD.
type Text struct {
	Head string
	Gap  int64 // characters dropped between Head and Tail
	Tail string
	// Bytes is the number of bytes the stream wrote in all.
	Bytes int64
}

// String is the kept text with the gap closed up; callers that show text to
// a model should use the gap instead (see tools.FormatExec).
func (t Text) String() string { return t.Head + t.Tail }

// Len is the length of the whole stream in characters (the dropped middle
// counted approximately: one per UTF-8 start byte).
func (t Text) Len() int64 {
	return int64(utf8.RuneCountInString(t.Head)) + t.Gap + int64(utf8.RuneCountInString(t.Tail))
}

// Text returns what was kept. The cut points are moved to character
// boundaries so no character is split in two.
func (c *Capture) Text() Text {
	c.mu.Lock()
	defer c.mu.Unlock()
	head := c.head
	tail := make([]byte, 0, c.ringLen)
	if c.ringLen > 0 {
		size := len(c.ring)
		start := (c.ringPos - c.ringLen + size) % size
		if start+c.ringLen <= size {
			tail = append(tail, c.ring[start:start+c.ringLen]...)
		} else {
			tail = append(tail, c.ring[start:]...)
			tail = append(tail, c.ring[:c.ringPos]...)
		}
	}
	gap := c.droppedR
	if c.dropped > 0 || len(tail) > 0 {
		// The head may end inside a character whose rest is in the gap or
		// the tail: drop the partial bytes and count one character for them.
		if cut := partialSuffix(head); cut > 0 {
			head = head[:len(head)-cut]
			gap++
		}
	}
	if c.dropped > 0 {
		// The tail may start with the continuation bytes of a character
		// that began in the gap; it is already counted there.
		i := 0
		for i < len(tail) && i < utf8.UTFMax && tail[i]&0xC0 == 0x80 {
			i++
		}
		tail = tail[i:]
	}
	return Text{Head: decode(head), Gap: gap, Tail: decode(tail), Bytes: c.total}
}

// partialSuffix is the number of bytes at the end of b that start a UTF-8
// sequence without finishing it.
func partialSuffix(b []byte) int {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c&0xC0 == 0x80 {
			continue // continuation byte: look further back
		}
		if c < 0x80 {
			return 0
		}
		need := 2
		switch {
		case c >= 0xF0:
			need = 4
		case c >= 0xE0:
			need = 3
		}
		if need > i {
			return i
		}
		return 0
	}
	return 0
}

func decode(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]rune, 0, len(b))
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		out = append(out, r) // RuneError for each invalid byte
		b = b[n:]
	}
	return string(out)
}
