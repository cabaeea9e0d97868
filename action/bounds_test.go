package action

import (
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// nested returns a JSON value of n nested arrays.
func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

func TestCheckBounds(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     error
	}{
		{"flat", `{"command":"ls -la","n":[1,2,{"a":"b"}]}`, nil},
		{"at the limit", nested(MaxJSONDepth), nil},
		{"one past the limit", nested(MaxJSONDepth + 1), ErrTooDeep},
		{"brackets in strings do not count", `{"a":"` + strings.Repeat("[{", 500) + `"}`, nil},
		{"escaped quote keeps the string open", `{"a":"\"` + strings.Repeat("[", 500) + `"}`, nil},
		{"deep objects", strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100), ErrTooDeep},
		{"utf-8", `{"path":"/tmp/caf\u00e9/é/日本"}`, nil},
		{"surrogate pair", `{"s":"\ud83d\ude00"}`, nil},
		{"escaped backslash then u", `{"s":"\\ud800"}`, nil},
		{"invalid utf-8 in a value", "{\"command\":\"rm -rf /\xff\"}", ErrInvalidUTF8},
		{"invalid utf-8 in a key", "{\"comm\xc3\":\"ls\"}", ErrInvalidUTF8},
		{"non-ascii outside strings", "{\"a\":1\xa0}", ErrInvalidUTF8},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckBounds([]byte(c.in))
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

// TestPayloadSurrogates: a lone surrogate is refused in an action
// payload (it decodes to U+FFFD, as another one would), and let through
// in the rest of a document (a host cutting a string mid-pair).
func TestPayloadSurrogates(t *testing.T) {
	for _, c := range []struct {
		name, in string
		bad      bool
	}{
		{"pair", `{"s":"\ud83d\ude00"}`, false},
		{"escaped backslash then u", `{"s":"\\ud800"}`, false},
		{"lone high", `{"command":"ls \ud800"}`, true},
		{"lone low", `{"command":"ls \udc00"}`, true},
		{"high then non-low", `{"command":"ls \ud800\u0041"}`, true},
		{"high at the end", `{"command":"ls \ud83d"}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckPayloadBounds([]byte(c.in))
			if c.bad != errors.Is(err, ErrInvalidUTF8) {
				t.Errorf("CheckPayloadBounds: got %v, want refused=%v", err, c.bad)
			}
			if err := CheckBounds([]byte(c.in)); err != nil {
				t.Errorf("CheckBounds: got %v, want nil", err)
			}
			_, derr := Decode("execute_command", []byte(c.in))
			if c.bad && !errors.Is(derr, ErrInvalidUTF8) {
				t.Errorf("Decode: got %v, want ErrInvalidUTF8", derr)
			}
		})
	}
}

// TestCheckBoundsNamesTheFieldNotTheInput: the error says where, with
// plain key names only, and carries no string content.
func TestCheckBoundsNamesTheFieldNotTheInput(t *testing.T) {
	err := CheckBounds([]byte("{\"payload\":{\"command\":\"secret-token-\xff\"}}"))
	if err == nil || !strings.Contains(err.Error(), "payload.command") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("got %v, want an error naming payload.command without the value", err)
	}
	err = CheckBounds([]byte(`{"sk-secret key!":` + nested(100) + `}`))
	if !errors.Is(err, ErrTooDeep) || strings.Contains(err.Error(), "secret") {
		t.Fatalf("got %v, want ErrTooDeep without the key", err)
	}
}

// TestDecodeBoundedOnDeepNesting reproduces issue 13: a 100k-level
// payload took 14-35 s and 10 GB in CheckDuplicateKeys (invalid for
// encoding/json past 10k levels, so the slow walker built a path string
// per level). Every depth must be refused by the pre-scan.
func TestDecodeBoundedOnDeepNesting(t *testing.T) {
	for _, n := range []int{10_000, 100_000, 500_000} {
		payload := `{"server":"s","tool":"t","arguments":{"a":` + nested(n) + `}}`
		if len(payload) > MaxPayloadBytes {
			payload = `{"server":"s","tool":"t","arguments":{"a":` + nested(MaxPayloadBytes/2-100) + `}}`
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := Decode(string(MCPCall), []byte(payload))
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrTooDeep) {
			t.Fatalf("%d levels: got %v, want ErrTooDeep", n, err)
		}
		t.Logf("%d levels (%d bytes): refused in %v, %d KB allocated", n, len(payload), took,
			(after.TotalAlloc-before.TotalAlloc)>>10)
	}
}

// TestDupWalkSlowIsLinear: invalid JSON goes to the tokenizing walker,
// which used to copy its path string for every key (quadratic on a long
// key over many members).
func TestDupWalkSlowIsLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"` + strings.Repeat("k", 200_000) + `":{`)
	for i := 0; i < 20_000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strings.Repeat("x", 4) + string(rune('a'+i%26)) + itoa(i) + `":1`)
	}
	b.WriteString(`,x}}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := CheckDuplicateKeys([]byte(b.String()))
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes: %v, %d KB allocated", b.Len(), err, alloc>>10)
	if err == nil {
		t.Fatal("got no error for invalid JSON, want one")
	}
	// A path copy per key would allocate 20k x 200 KB = 4 GB.
	if alloc > 256<<20 {
		t.Fatalf("allocated %d MB, want under 256 MB: the walker copies its path per key", alloc>>20)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

// BenchmarkCheckBounds: a refused deep input costs the same at any depth
// (the scan stops at level 65); an accepted one is scanned whole, so the
// worst case is a payload at the size limit that nests to the bound.
func BenchmarkCheckBounds(b *testing.B) {
	var wide strings.Builder
	wide.WriteString(`{"type":"mcp_call","payload":{"arguments":` + strings.Repeat(`{"a":`, MaxJSONDepth-4) + `[`)
	for wide.Len() < MaxPayloadBytes-4096 {
		wide.WriteString(`"some text \"quoted\" and caf\u00e9 é",`)
	}
	wide.WriteString(`1]` + strings.Repeat("}", MaxJSONDepth-4) + `}}`)
	cases := []struct {
		name string
		in   []byte
		ok   bool
	}{
		{"refused/10k", []byte(`{"type":"mcp_call","payload":{"arguments":` + nested(10_000) + `}}`), false},
		{"refused/100k", []byte(`{"type":"mcp_call","payload":{"arguments":` + nested(100_000) + `}}`), false},
		{"refused/500k", []byte(`{"type":"mcp_call","payload":{"arguments":` + nested(500_000) + `}}`), false},
		{"accepted/1MB-at-depth-62", []byte(wide.String()), true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				if err := CheckDuplicateKeys(c.in); (err == nil) != c.ok {
					b.Fatalf("got %v, want ok=%v", err, c.ok)
				}
			}
		})
	}
}

func TestTopLevelString(t *testing.T) {
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	for _, c := range []struct{ in, key, want string }{
		{`{"session_id":"s1","x":1}`, "session_id", "s1"},
		{`{"x":{"session_id":"inner"},"session_id":"s\u0031"}`, "session_id", "s1"},
		{`{"tool_response":` + deep + `,"session_id":"s2"}`, "session_id", "s2"},
		{`{"session_id":"a","session_id":"b"}`, "session_id", ""},
		{`{"session_id":["s1"]}`, "session_id", ""},
		{`{"a":"session_id","b":"x"}`, "session_id", ""},
		{`{"session_id":"s1`, "session_id", ""},
	} {
		if got := TopLevelString([]byte(c.in), c.key); got != c.want {
			t.Errorf("%.60q: got %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzCheckBounds: no panic; what it accepts and encoding/json decodes
// nests at most MaxJSONDepth and holds only UTF-8 strings, and valid
// JSON within both bounds is accepted.
func FuzzCheckBounds(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"c"}]}`, nested(MaxJSONDepth), nested(MaxJSONDepth + 1),
		`{"a":"\"[[["}`, "{\"a\":\"\xff\"}", `{"s":"\ud800"}`, `"\\"`, `{"a":"x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := CheckBounds(b)
		_ = CheckPayloadBounds(b)
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		d, okUTF8 := valueDepth(v), utf8.Valid(b)
		if err == nil && (d > MaxJSONDepth || !okUTF8) {
			t.Fatalf("accepted depth %d, utf-8 %v", d, okUTF8)
		}
		if err != nil && d <= MaxJSONDepth && okUTF8 {
			t.Fatalf("refused valid JSON of depth %d: %v", d, err)
		}
	})
}

// valueDepth is the nesting of a decoded value (an empty array or object
// counts as a level).
func valueDepth(v any) int {
	m := 0
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			m = max(m, valueDepth(e))
		}
		return m + 1
	case map[string]any:
		for _, e := range x {
			m = max(m, valueDepth(e))
		}
		return m + 1
	}
	return 0
}

// TestTextsLinear: one long key over many strings built the long path
// once per string (a 720 KB stream line took 24 GB and was killed).
func TestTextsLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"server":"s","tool":"t","arguments":{"` + strings.Repeat("k", 400_000) + `":[`)
	for i := range 80_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"a"`)
	}
	b.WriteString(`]}}`)
	a, err := Decode(string(MCPCall), []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	texts := a.Payload.Texts()
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes, %d texts: %d KB allocated", b.Len(), len(texts), alloc>>10)
	if len(texts) != 80_000 {
		t.Fatalf("got %d texts, want 80000", len(texts))
	}
	if alloc > 64<<20 {
		t.Fatalf("allocated %d MB, want under 64 MB: a path per string", alloc>>20)
	}
	if p := texts[0].Name; len(p) > maxTextPath+8 || !strings.HasPrefix(p, "arguments.kkk") {
		t.Errorf("path %.40q… (%d bytes), want the clipped path", p, len(p))
	}
}
