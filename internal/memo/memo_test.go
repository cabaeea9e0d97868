package memo

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

func TestDoComputesOnce(t *testing.T) {
	tb := New[int](0)
	calls := 0
	f := func(k string) func() int { return func() int { calls++; return len(k) } }
	for i := 0; i < 3; i++ {
		if got := tb.Do("abc", f("abc")); got != 3 {
			t.Fatalf("Do(abc) = %d, want 3", got)
		}
	}
	if calls != 1 {
		t.Fatalf("f ran %d times, want 1", calls)
	}
	if got := tb.Do("", f("")); got != 0 || calls != 2 {
		t.Fatalf("Do(\"\") = %d after %d calls, want 0 after 2", got, calls)
	}
	// DoBytes shares the entries and copies its key.
	key := []byte("abc")
	if got := tb.DoBytes(key, f("wrong")); got != 3 || calls != 2 {
		t.Fatalf("DoBytes(abc) = %d after %d calls, want the stored 3 after 2", got, calls)
	}
	key = []byte("xy")
	if got := tb.DoBytes(key, f("xy")); got != 2 || calls != 3 {
		t.Fatalf("DoBytes(xy) = %d after %d calls, want 2 after 3", got, calls)
	}
	copy(key, "zz")
	if v, ok := tb.Get("xy"); !ok || v != 2 {
		t.Fatal("DoBytes kept a key that aliases the caller's buffer")
	}
}

func TestGetBytes(t *testing.T) {
	tb := New[int](0)
	tb.Put("k\x00a", 7)
	if v, ok := tb.GetBytes([]byte("k\x00a")); !ok || v != 7 {
		t.Fatalf("GetBytes = %d, %v; want 7, true", v, ok)
	}
	if _, ok := tb.GetBytes([]byte("k\x00b")); ok {
		t.Fatal("GetBytes finds a key never stored")
	}
	key := []byte("k\x00a")
	if n := testing.AllocsPerRun(100, func() { tb.GetBytes(key) }); n != 0 {
		t.Fatalf("GetBytes allocates %v times", n)
	}
}

func TestBounded(t *testing.T) {
	tb := New[int](8)
	for i := 0; i < 100; i++ {
		tb.Put(fmt.Sprint(i), i)
		if n := tb.Len(); n > 8 {
			t.Fatalf("after %d puts the table holds %d entries, limit 8", i+1, n)
		}
	}
	// The newest entry survives the clearing that made room for it.
	if v, ok := tb.Get("99"); !ok || v != 99 {
		t.Fatalf("Get(99) = %d, %v; want 99, true", v, ok)
	}
	// Overwriting a present key in a full table keeps the others.
	full := New[int](2)
	full.Put("a", 1)
	full.Put("b", 2)
	full.Put("b", 3)
	if v, ok := full.Get("a"); !ok || v != 1 {
		t.Fatalf("overwrite in a full table dropped a: %d, %v", v, ok)
	}
}

func TestKeyIsCopied(t *testing.T) {
	tb := New[bool](0)
	buf := []byte("/home/dev/x")
	k := unsafe.String(&buf[0], len(buf)) // a key aliasing reused memory
	tb.Put(k, true)
	copy(buf, "/home/dev/y")
	if _, ok := tb.Get("/home/dev/x"); !ok {
		t.Fatal("the stored key changed with the caller's buffer")
	}
	if _, ok := tb.Get("/home/dev/y"); ok {
		t.Fatal("a key never stored is found")
	}
}

func TestConcurrent(t *testing.T) {
	tb := New[string](64)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				k := fmt.Sprint(i % 300)
				if got := tb.Do(k, func() string { return strings.ToLower(k) }); got != k {
					t.Errorf("Do(%s) = %s", k, got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkGetHit(b *testing.B) {
	tb := New[bool](0)
	tb.Put("/home/dev/project/**", true)
	for b.Loop() {
		tb.Get("/home/dev/project/**")
	}
}
