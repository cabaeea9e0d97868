package shell

// This file recycles the analyser's scratch memory: Calls, flag maps and
// word-building buffers live as long as one analysis and are reused by
// the next (the analyzer is pooled). Nothing here may end up in Effects.

// newCallSlot returns a zeroed Call from the slab.
func (a *analyzer) newCallSlot() *Call {
	if a.ncall == len(a.calls) {
		// The old slab stays alive through the Calls still in use.
		a.calls = make([]Call, max(16, 2*len(a.calls)))
		a.ncall = 0
	}
	c := &a.calls[a.ncall]
	a.ncall++
	return c
}

// wordSlice returns an empty slice with room for n words, from a slab
// reused by the next analysis (argv and Positional: never part of the
// Effects). Appending past n moves the slice to the heap.
func (a *analyzer) wordSlice(n int) []Word {
	if n == 0 {
		return nil
	}
	if len(a.wslab)-a.nword < n {
		a.wslab = make([]Word, max(64, 2*len(a.wslab), n))
		a.nword = 0
	}
	s := a.wslab[a.nword : a.nword : a.nword+n]
	a.nword += n
	return s
}

// getMap returns an empty flag map.
func (a *analyzer) getMap() map[string]Word {
	if n := len(a.maps); n > 0 {
		m := a.maps[n-1]
		a.maps = a.maps[:n-1]
		return m
	}
	return make(map[string]Word, 8)
}

// putMap recycles a flag map no Call uses any more.
func (a *analyzer) putMap(m map[string]Word) {
	if m == nil || len(a.maps) >= 16 {
		return
	}
	clear(m)
	a.maps = append(a.maps, m)
}

// getBuf returns an empty byte buffer.
func (a *analyzer) getBuf() []byte {
	if n := len(a.bufs); n > 0 {
		b := a.bufs[n-1]
		a.bufs = a.bufs[:n-1]
		return b[:0]
	}
	return make([]byte, 0, 64)
}

// putBuf recycles a buffer (large ones are dropped).
func (a *analyzer) putBuf(b []byte) {
	if cap(b) == 0 || cap(b) > 4096 || len(a.bufs) >= 16 {
		return
	}
	a.bufs = append(a.bufs, b)
}

// argStrings returns n strings for Exec.Args, carved from an arena that
// the Effects own.
func (a *analyzer) argStrings(n int) []string {
	if n == 0 {
		return nil
	}
	if cap(a.strs)-len(a.strs) < n {
		a.strs = make([]string, 0, max(16, n))
	}
	s := a.strs[len(a.strs) : len(a.strs)+n : len(a.strs)+n]
	a.strs = a.strs[:len(a.strs)+n]
	return s
}

// flagNames spells the one-letter flags ("-a") without allocating.
var flagNames = func() (t [128]string) {
	for c := 33; c < 127; c++ {
		t[c] = "-" + string(rune(c))
	}
	return t
}()

// shortName is "-" + the flag letter c.
func shortName(c byte) string {
	if c < 128 && flagNames[c] != "" {
		return flagNames[c]
	}
	return "-" + string(c)
}
