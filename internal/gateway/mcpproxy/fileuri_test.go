package mcpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// oddFileURLs are the spellings of a file URL naming the absolute path p
// that the attack on the proxy used (with the real MCP SDK client and a
// server that reads URIs with a WHATWG parser), and the plain one.
func oddFileURLs(p string) map[string]string {
	dir, base := filepath.Split(p)
	return map[string]string{
		"plain":           "file://" + p,
		"leading space":   " file://" + p,
		"leading tab":     "\tfile://" + p,
		"tab in scheme":   "fi\tle://" + p,
		"tab in path":     "file://" + dir + base[:2] + "\t" + base[2:],
		"newline in path": "file://" + dir + "\n" + base,
		"trailing LF":     "file://" + p + "\n",
		"trailing space":  "file://" + p + " ",
		"upper case":      "FILE://" + p,
		"one slash":       "file:" + p,
		"four slashes":    "file:///" + p,
		"localhost":       "file://localhost" + p,
		"LOCALHOST":       "file://LOCALHOST" + p,
		"backslashes":     "file:" + strings.ReplaceAll(p, "/", `\`),
		"backslash":       "file://" + strings.TrimSuffix(dir, "/") + `\` + base,
		"escaped name":    "file://" + dir + "%" + strings.ToUpper(hexByte(base[0])) + base[1:],
		"dot dot":         "file://" + dir + "x/../" + base,
		"escaped dot dot": "file://" + dir + "x/%2e%2e/" + base,
		"escaped dot":     "file://" + dir + "%2E/" + base,
		"query":           "file://" + p + "?raw=1",
		"fragment":        "file://" + p + "#x",
		"escaped slash":   "file://" + strings.TrimSuffix(dir, "/") + "%2F" + base,
	}
}

func hexByte(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&15]})
}

// TestFileURLOneJudgement: a file URL is read by one code path whether it
// is a path argument of a tool (read_file, or a fetch of a URL) or the
// URI of a resource request: the same path, or the same refusal.
func TestFileURLOneJudgement(t *testing.T) {
	for _, target := range []string{"/home/dev/.netrc", "/ws/.parallax/api.token", "/ws/My Docs/notes.txt"} {
		for name, u := range oddFileURLs(target) {
			t.Run(name+" "+target, func(t *testing.T) {
				res, isFile, resErr := resourceFile(testEnv, u)
				if !isFile {
					t.Fatalf("resourceFile(%q): not a file URL", u)
				}
				for _, tool := range []string{"read_file", "fetch"} {
					key := map[string]string{"read_file": "path", "fetch": "url"}[tool]
					args, _ := json.Marshal(map[string]string{key: u})
					m, err := Map(tool, args, testEnv)
					var perr *PlaceError
					switch {
					case resErr != nil:
						if !errors.As(resErr, &perr) || !errors.As(err, &perr) {
							t.Errorf("%s: got %s, %v; want a PlaceError as for the resource (%v)", tool, m.Primary.Payload, err, resErr)
						}
					case err != nil || !sameJSON(string(m.Primary.Payload), `{"path":"`+res+`"}`) || m.Primary.Type != "read_file":
						t.Errorf("%s: got %s %s, %v; want a read_file of %s as for the resource", tool, m.Primary.Type, m.Primary.Payload, err, res)
					}
				}
			})
		}
	}
	for _, u := range []string{"https://example.com/home/dev/.netrc", "filex:///home/dev/.netrc", "test://doc/plain", "file"} {
		if got, isFile, err := resourceFile(testEnv, u); isFile || err != nil || got != u {
			t.Errorf("resourceFile(%q): got %q %v %v, want the URI left to the server", u, got, isFile, err)
		}
	}
}

// TestResourceReadCannotReachSecretsBySpelling: resources/read and
// resources/subscribe of any spelling of .parallax/api.token or
// ~/.netrc are refused, and the server never receives them; the same
// spellings as a read_file argument are refused too. A plain workspace
// file reaches the server (the check can see a request arrive). Both
// protocols: 2025-11-25 subscribes with resources/subscribe, whose
// refusal the client sees; 2026-07-28 with subscriptions/listen, whose
// refusal it does not (the listen is never acknowledged). A spelling
// the URL parsers read differently is refused even for a workspace
// file: a server that takes the backslash, the .. or the query as part
// of the name opens another file than the gate would judge.
func TestResourceReadCannotReachSecretsBySpelling(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", ""} {
		t.Run("protocol "+protocol, func(t *testing.T) {
			ws := newWorkspace(t)
			e := start(t, ws, options{protocol: protocol})
			legacy := protocol != ""
			ctx := context.Background()
			for _, target := range []string{filepath.Join(ws, ".parallax", "api.token"), testHome + "/.netrc"} {
				for name, u := range oddFileURLs(target) {
					if _, err := e.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: u}); err == nil || !strings.Contains(err.Error(), "Blocked by Parallax") {
						t.Errorf("read %s %q: got %v, want it blocked", name, u, err)
					}
					err := e.client.Subscribe(ctx, &mcp.SubscribeParams{URI: u})
					if legacy && (err == nil || !strings.Contains(err.Error(), "Blocked by Parallax")) {
						t.Errorf("subscribe %s %q: got %v, want it blocked", name, u, err)
					}
					if got, isErr := e.call("read_file", map[string]any{"path": u}); !isErr || !strings.Contains(got, "Blocked by Parallax") {
						t.Errorf("read_file %s %q: got %q, want it blocked", name, u, got)
					}
				}
			}
			for _, name := range []string{"backslash", "dot dot", "escaped dot dot", "query", "trailing space", "escaped slash"} {
				u := oddFileURLs(filepath.Join(ws, "sub", "notes.txt"))[name]
				if _, err := e.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: u}); err == nil || !strings.Contains(err.Error(), RuleBadURI) {
					t.Errorf("read %s %q: got %v, want %s", name, u, err, RuleBadURI)
				}
			}
			// The control comes last: once its subscription has arrived,
			// what was sent before had its chance to arrive too.
			control := "file://" + ws + "/notes.txt"
			if res, err := e.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: control}); err != nil || len(res.Contents) == 0 {
				t.Fatalf("read of a workspace file: got %v, %v; want it served", res, err)
			}
			if err := e.client.Subscribe(ctx, &mcp.SubscribeParams{URI: control}); err != nil {
				t.Fatalf("subscribe to a workspace file: %v", err)
			}
			b, _ := json.Marshal(control)
			quoted := `"uri":` + string(b) + `}`
			var served []string
			for i := 0; i < 250; i++ {
				served = e.served()
				if n := len(served); n >= 2 && strings.Contains(served[n-1], quoted) && !strings.HasPrefix(served[n-1], "resources/read\t") {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			var got []string
			for _, line := range served {
				if !strings.Contains(line, quoted) {
					got = append(got, line)
				}
			}
			if len(got) != 0 {
				t.Errorf("the server received: %q; want nothing but the workspace file", got)
			}
			if s := strings.Join(served, "\n"); !strings.Contains(s, "resources/read\t") ||
				!strings.Contains(s, "resources/subscribe\t") && !strings.Contains(s, "subscriptions/listen\t") {
				t.Errorf("the server received %q; want the workspace file's read and subscription", s)
			}
		})
	}
}
