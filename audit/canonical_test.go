package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fullEntry uses every field, with characters that need escaping.
func fullEntry() Entry {
	return Entry{
		Version: Version, Seq: 42,
		Time:       time.Date(2026, 3, 1, 12, 0, 0, 120000000, time.UTC),
		Type:       ActionFailed,
		Session:    "sess-1 é",
		ActionType: "execute_command",
		ActionHash: "sha256:" + strings.Repeat("0f", 32),
		Decision:   "ALLOW", Stage: "policy", Tier: 1, Rule: "workspace_reads",
		Reason: "quote \" backslash \\ newline \n tab \t <b>&</b> \u2028 \x7f",
		Detail: Detail{Code: "exit", Message: "m", Path: "/w/a b", Target: "make test", Ref: "tx:9",
			Labels: []string{"pii", "secret"}, Offset: 0, Length: 3, Count: -2, ExitCode: 127, DurationMS: 15,
			BytesUp: 512, BytesDown: 4096},
		Prev: Genesis,
	}
}

// The canonical bytes of fullEntry, spelled out: this is the contract an
// external verifier relies on (doc.go).
const fullCanonical = `{"v":1,"seq":42,"time":"2026-03-01T12:00:00.12Z","type":"ActionFailed",` +
	`"session":"sess-1 é","action":"execute_command","action_hash":"sha256:0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f",` +
	`"decision":"ALLOW","stage":"policy","tier":1,"rule":"workspace_reads",` +
	`"reason":"quote \" backslash \\ newline \u000a tab \u0009 <b>&</b> ` + "\u2028 \x7f" + `",` +
	`"detail":{"code":"exit","message":"m","path":"/w/a b","target":"make test","ref":"tx:9","labels":["pii","secret"],` +
	`"length":3,"count":-2,"exit_code":127,"duration_ms":15,"bytes_up":512,"bytes_down":4096},` +
	`"prev":"sha256:0000000000000000000000000000000000000000000000000000000000000000"}`

func TestCanonicalEncoding(t *testing.T) {
	e := fullEntry()
	if got := string(encodeCanonical(nil, &e)); got != fullCanonical {
		t.Fatalf("canonical bytes:\ngot  %s\nwant %s", got, fullCanonical)
	}
	line := encodeLine(nil, &e)

	// The external verifier's recipe: cut the hash member, close, hash.
	body, ok := strings.CutSuffix(string(line), `,"hash":"`+e.Hash+`"}`+"\n")
	if !ok {
		t.Fatalf("line does not end in the hash member: %s", line)
	}
	sum := sha256.Sum256([]byte(body + "}"))
	if want := "sha256:" + hex.EncodeToString(sum[:]); e.Hash != want {
		t.Errorf("got hash %s, want %s", e.Hash, want)
	}
	// Any JSON parser reads the line.
	var generic map[string]any
	if err := json.Unmarshal(line, &generic); err != nil {
		t.Errorf("generic JSON parse: %v", err)
	}
	if _, ok := parseFast(line[:len(line)-1]); !ok {
		t.Errorf("the fast parser refuses a canonical line")
	}
	got, lerr := parseLine(line[:len(line)-1])
	if lerr != nil {
		t.Fatalf("parse: %s: %s", lerr.code, lerr.msg)
	}
	if !reflect.DeepEqual(got, e) {
		t.Errorf("round trip:\ngot  %+v\nwant %+v", got, e)
	}
	if l := got.Line(); string(l) != string(line) {
		t.Errorf("Line: got %s, want %s", l, line)
	}
	mj, err := json.Marshal(got)
	var back map[string]any
	if err == nil {
		err = json.Unmarshal(mj, &back)
	}
	if err != nil || !reflect.DeepEqual(back, generic) {
		t.Errorf("json.Marshal: got %s, %v; want the line's content", mj, err)
	}
}

func TestCanonicalMinimal(t *testing.T) {
	e := Entry{Version: 1, Seq: 1, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Type: SessionStarted, Prev: Genesis}
	want := `{"v":1,"seq":1,"time":"2026-01-02T03:04:05Z","type":"SessionStarted","prev":"` + Genesis + `"}`
	if got := string(encodeCanonical(nil, &e)); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	e.Detail = Detail{Offset: 9}
	want = strings.Replace(want, `,"prev"`, `,"detail":{"offset":9},"prev"`, 1)
	if got := string(encodeCanonical(nil, &e)); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestParseLineRejectsOtherSpellings(t *testing.T) {
	e := fullEntry()
	line := string(encodeLine(nil, &e))
	line = line[:len(line)-1]
	for _, c := range []struct {
		name, old, repl string
		code            Code
	}{
		{"keys reordered", `{"v":1,"seq":42,`, `{"seq":42,"v":1,`, CodeNotCanonical},
		{"duplicate key", `"seq":42,`, `"seq":42,"seq":42,`, CodeNotCanonical},
		{"key case", `"seq":`, `"SEQ":`, CodeNotCanonical},
		{"short escape", `\u000a`, `\n`, CodeNotCanonical},
		{"escaped slash", `"/w/a b"`, `"\/w/a b"`, CodeNotCanonical},
		{"escaped letter", `"policy"`, `"p\u006flicy"`, CodeNotCanonical},
		{"time offset", `12:00:00.12Z`, `12:00:00.12+00:00`, CodeNotCanonical},
		{"time trailing zero", `12:00:00.12Z`, `12:00:00.120Z`, CodeNotCanonical},
		{"empty labels", `"labels":["pii","secret"],`, `"labels":[],`, CodeNotCanonical},
		{"zero member", `"tier":1,`, `"tier":1,"offset":0,`, CodeBadJSON},
		{"explicit zero", `"length":3,`, `"offset":0,"length":3,`, CodeNotCanonical},
		{"unknown field", `"tier":1,`, `"tier":1,"extra":1,`, CodeBadJSON},
		{"float seq", `"seq":42,`, `"seq":42.0,`, CodeBadJSON},
		{"negative seq", `"seq":42,`, `"seq":-42,`, CodeBadJSON},
		{"version", `{"v":1,`, `{"v":2,`, CodeBadField},
		{"unknown type", `"ActionFailed"`, `"ActionFumbled"`, CodeBadField},
		{"tier range", `"tier":1,`, `"tier":7,`, CodeBadField},
		{"year 1", `"2026-03-01T12:00:00.12Z"`, `"0001-01-01T00:00:00Z"`, CodeBadField},
		{"decision", `"ALLOW"`, `"allow"`, CodeBadField},
		{"upper-case hash", `"prev":"sha256:0`, `"prev":"SHA256:0`, CodeBadField},
		{"rule charset", `"workspace_reads"`, `"workspace reads"`, CodeBadField},
		{"trailing data", `"}`, `"}{}`, CodeBadJSON},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(line, c.old) {
				t.Fatalf("line lacks %q", c.old)
			}
			bad := strings.Replace(line, c.old, c.repl, 1)
			if c.name == "trailing data" {
				bad = line + "{}"
			}
			_, lerr := parseLine([]byte(bad))
			if lerr == nil || lerr.code != c.code {
				t.Errorf("got %v, want %s", lerr, c.code)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 10, "abcdefghij"},
		{"abcdefghijk", 10, "abcdefg…"},
		{"ééééé", 8, "éé…"},
	} {
		if got := truncate(c.in, c.n); got != c.want || len(got) > c.n {
			t.Errorf("truncate(%q, %d): got %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
