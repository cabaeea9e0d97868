package shield

import (
	"strconv"
	"testing"
)

// TestSessionListsAreBounded: a session keeps its most recent items, an
// item recorded again replaces the old one, and the oldest session is
// forgotten first: the memory of downloads and written files cannot grow
// without bound.
func TestSessionListsAreBounded(t *testing.T) {
	l := newSessionLists(2, 3, func(a, b string) bool { return a == b })
	has := func(s, x string) bool {
		_, ok := l.find(s, func(y string) bool { return y == x })
		return ok
	}
	l.add("s1", "a", "b", "c")
	l.add("s1", "a", "d") // a is the most recent again; b goes
	if has("s1", "b") || !has("s1", "a") || !has("s1", "c") || !has("s1", "d") {
		t.Errorf("s1 holds %v, want a, c, d", l.m["s1"])
	}
	for i := 2; i <= 3; i++ {
		l.add("s"+strconv.Itoa(i), "x")
	}
	if has("s1", "a") || !has("s2", "x") || !has("s3", "x") || len(l.m) != 2 {
		t.Errorf("sessions %v: want s1 forgotten, s2 and s3 kept", l.order)
	}
}
