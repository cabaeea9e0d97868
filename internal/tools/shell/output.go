//go:build linux

package shell

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// headTail keeps the first and the last bytes written to it within a cap
// and counts what it drops in between.
type headTail struct {
	mu    sync.Mutex
	head  []byte // up to cap/2
	tail  []byte // ring of up to cap - cap/2 bytes
	start int    // index of the oldest tail byte once the ring is full
	tcap  int
	total int64
}

func newHeadTail(limit int) *headTail {
	h := limit / 2
	return &headTail{head: make([]byte, 0, h), tcap: limit - h}
}

func (b *headTail) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.total += int64(n)
	if room := cap(b.head) - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if b.tcap == 0 {
		return n, nil
	}
	if len(p) >= b.tcap { // only the last tcap bytes can survive
		b.tail = append(b.tail[:0], p[len(p)-b.tcap:]...)
		b.start = 0
		return n, nil
	}
	for len(p) > 0 {
		if len(b.tail) < b.tcap {
			k := min(b.tcap-len(b.tail), len(p))
			b.tail = append(b.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(b.tail[b.start:], p)
		p = p[k:]
		b.start = (b.start + k) % b.tcap
	}
	return n, nil
}

// String renders the output: whole when it fit, else head, a note of the
// bytes omitted, and tail. Truncated says whether anything was omitted.
func (b *headTail) String() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tail := append(append([]byte(nil), b.tail[b.start:]...), b.tail[:b.start]...)
	kept := int64(len(b.head) + len(tail))
	if kept == b.total {
		return string(b.head) + string(tail), false
	}
	head := trimEnd(b.head)
	tail = trimStart(tail)
	omitted := b.total - int64(len(head)) - int64(len(tail))
	return fmt.Sprintf("%s\n[… %d bytes omitted …]\n%s", head, omitted, tail), true
}

// trimEnd drops a UTF-8 sequence cut at the end of p.
func trimEnd(p []byte) []byte {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				return p[:i]
			}
			return p
		}
	}
	return p
}

// trimStart drops continuation bytes at the start of p.
func trimStart(p []byte) []byte {
	for i := 0; i < len(p) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(p[i]) {
			return p[i:]
		}
	}
	return p
}
