package mcpproxy

import (
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parallax/parallax/action"
)

// deepArgs nests n arrays under a path-named key, so that a walk that
// reached the bottom would find a path there.
func deepArgs(n int) json.RawMessage {
	return json.RawMessage(`{"text":"hi","path":` + strings.Repeat("[", n) + `"/etc/shadow"` + strings.Repeat("]", n) + `}`)
}

// TestMapBoundedOnDeepNesting reproduces issue 13 on the proxy's own
// decoding: the arguments of a call are refused by the bounds pre-scan
// before the duplicate-key walk, the decode and the path walk run.
// Figures are logged, not asserted.
func TestMapBoundedOnDeepNesting(t *testing.T) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		args := deepArgs(n)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := Map("echo", args, testEnv)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		t.Logf("%d levels (%d bytes): refused in %v, %d KB allocated", n, len(args), took,
			(after.TotalAlloc-before.TotalAlloc)>>10)
		if !errors.Is(err, action.ErrTooDeep) || !strings.Contains(err.Error(), `tool "echo"`) {
			t.Errorf("%d levels: got %v, want ErrTooDeep naming the tool", n, err)
		}
	}
	if _, err := Map("echo", json.RawMessage("{\"text\":\"caf\xe9\"}"), testEnv); !errors.Is(err, action.ErrInvalidUTF8) {
		t.Errorf("invalid UTF-8 argument: got %v, want ErrInvalidUTF8", err)
	}
}

// TestWalksStopAtTheirBound: a value deeper than the bound that reached
// a walk anyway is not taken as seen through: no path missed silently, no
// poisoned schema passed unread.
func TestWalksStopAtTheirBound(t *testing.T) {
	var v any = "/etc/shadow"
	for range maxWalkDepth + 5 {
		v = []any{v}
	}
	if eachString(v, func(string, string) bool { return true }) {
		t.Error("eachString went through a value past its bound")
	}
	m := &mapper{env: testEnv}
	if _, err := m.pathWrites(deepArgsValue(t, maxWalkDepth+5)); !errors.Is(err, action.ErrTooDeep) {
		t.Errorf("pathWrites: got %v, want ErrTooDeep", err)
	}
	var schema any = map[string]any{"type": "string"}
	for range maxWalkDepth + 5 {
		schema = map[string]any{"type": "object", "properties": map[string]any{"a": schema}}
	}
	if rules := toolInjection(&mcp.Tool{Name: "t", InputSchema: schema}); len(rules) == 0 {
		t.Error("a schema nested past the bound was passed as clean")
	}
	if !schemaTakesPaths(schema) {
		t.Error("a schema nested past the bound was taken as taking no paths")
	}
}

func deepArgsValue(t *testing.T, n int) json.RawMessage {
	t.Helper()
	return json.RawMessage(`{"x":` + strings.Repeat("[", n) + `"/etc/shadow"` + strings.Repeat("]", n) + `}`)
}

// TestProxyCallDeepArguments: through the real proxy, with the tool
// trusted, a call whose arguments nest past the bound is refused and
// never reaches the server; the next call goes through.
func TestProxyCallDeepArguments(t *testing.T) {
	e := start(t, newWorkspace(t), options{trust: []string{"echo"}})
	var deep any = "/etc/shadow"
	for range 200 {
		deep = []any{deep}
	}
	got, isErr := e.call("echo", map[string]any{"text": "hi", "extra": deep})
	if !isErr || !strings.Contains(got, RuleBadArguments) || !strings.Contains(got, "nested too deeply") {
		t.Errorf("deep call: got %q (error %v), want a %s block saying it nests too deeply", got, isErr, RuleBadArguments)
	}
	if got, isErr := e.call("echo", map[string]any{"text": "after"}); isErr {
		t.Errorf("the next call: got %q, want it served", got)
	}
	if s := e.served(); len(s) != 1 || !strings.Contains(s[0], "after") {
		t.Errorf("served %v, want only the call after", s)
	}
}

// TestMapWideLinear: one long argument name over many path strings was
// examined (split into words, lowered) once per string, and every string
// placed (which reads the disk) once per occurrence: a 30 KB key over
// 4,000 strings took 2.6 GB and 2 s. Each key and each string is now
// examined once.
func TestMapWideLinear(t *testing.T) {
	args := json.RawMessage(`{"` + strings.Repeat("k", 30_000) + `_file":[` +
		strings.TrimSuffix(strings.Repeat(`"/etc/x",`, 4000), ",") + `]}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := Map("tool", args, testEnv)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes: %d KB allocated", len(args), alloc>>10)
	if err != nil || len(m.Paths) != 1 {
		t.Fatalf("got %d paths, %v; want the one path judged as a write", len(m.Paths), err)
	}
	if alloc > 64<<20 {
		t.Fatalf("allocated %d MB, want under 64 MB: work per string, not per key", alloc>>20)
	}
}
