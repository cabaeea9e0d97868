package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parallax/parallax/internal/wire"
)

// sseTextPieces answers with text streamed in the given pieces (JSON
// encoded, so control characters reach the client as the model sent them).
func sseTextPieces(pieces ...string) func(http.ResponseWriter) {
	var chunks []string
	for _, p := range pieces {
		b, _ := json.Marshal(p)
		chunks = append(chunks, fmt.Sprintf(`{"choices":[{"index":0,"delta":{"role":"assistant","content":%s},"finish_reason":null}]}`, b))
	}
	return sse(append(chunks, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)...)
}

// Plain `parallax run` prints the model's reply without its terminal
// control sequences: an OSC 52 clipboard write, a title change and a
// screen clear (some cut between two pieces of the stream) never reach
// the terminal; the words around them do.
func TestPlainRunCannotWriteTerminalControlSequences(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildParallax(t)
	fake := newFakeOpenAI(t)
	root, home := runtimeWorkspace(t, fake.srv.URL)
	fake.script(sseTextPieces(
		"Hello \x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07there",
		", \x1b]0;pwn", "ed title\x07friend\x1b[2J\x1b",
		"[H\u009d0;t\x07\x1b[31m!\x1b[0m\r\n",
	))
	out, err := pxCmd(bin, root, home, "run", "say hello").Output()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	for _, c := range []string{"\x1b", "\u009b", "\u009d", "\x07", "\r"} {
		if strings.Contains(string(out), c) {
			t.Errorf("the output holds control %q: %q", c, out)
		}
	}
	if got, want := string(out), "Hello there, friend!\n\n"; got != want {
		t.Errorf("output: got %q, want %q", got, want)
	}
}

// Bytes that are not UTF-8, in a command's output and in a planted file
// name, reach `parallax run --json` escaped (wire.Text) and the turn
// goes on to its reply: they cannot break the agent's link.
func TestRunJSONCarriesInvalidBytesEscaped(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildParallax(t)
	fake := newFakeOpenAI(t)
	root, home := runtimeWorkspace(t, fake.srv.URL)
	dir := filepath.Join(root, "planted")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad\xff\xfe.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	fake.script(
		sseToolCall("call_c", "execute_command", map[string]any{"command": `printf 'out\377\376end'`}),
		sseToolCall("call_l", "list_directory", map[string]any{"path": dir}),
		sseText("Both read."),
	)
	stdout, err := pxCmd(bin, root, home, "run", "--json", "look").Output()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stdout)
	}
	var results []string
	evs := parseEvents(t, stdout)
	for _, ev := range evs {
		if ev.Type == "tool_result" {
			results = append(results, ev.Output)
		}
	}
	if len(evs) == 0 || evs[len(evs)-1].Type != "response_complete" || !strings.HasSuffix(evs[len(evs)-1].Text, "Both read.") {
		t.Fatalf("the turn did not end in its reply: %+v", evs)
	}
	want := []string{"out\xff\xfeend", "bad\xff\xfe.txt"}
	if len(results) != len(want) {
		t.Fatalf("tool results: got %q, want %d", results, len(want))
	}
	for i, got := range results {
		back, err := wire.UnText(got)
		if !utf8.ValidString(got) || !strings.HasPrefix(got, wire.TextMarker) || err != nil || !strings.Contains(back, want[i]) {
			t.Errorf("result %d = %q (unescaped %q, %v), want %q escaped", i+1, got, back, err, want[i])
		}
	}
}
