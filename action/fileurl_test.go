package action

import (
	"errors"
	"path"
	"strings"
	"testing"
	"unicode/utf8"
)

// fileURLCases are the spellings of a file URL the attack on the MCP
// proxy used, and the ones around them. want is the path (for a refusal,
// the WHATWG reading the error carries); refused marks a refusal.
var fileURLCases = []struct {
	name, raw string
	file      bool
	want      string
	refused   bool
}{
	// Normalised: every URL parser reads the same path.
	{"plain", "file:///home/dev/.netrc", true, "/home/dev/.netrc", false},
	{"leading space", " file:///home/dev/.netrc", true, "/home/dev/.netrc", false},
	{"leading C0 controls", "\x00\x1f file:///home/dev/.netrc", true, "/home/dev/.netrc", false},
	{"tab in the scheme", "fi\tle:///home/dev/.netrc", true, "/home/dev/.netrc", false},
	{"tab in the path", "file:///home/dev/.ne\ttrc", true, "/home/dev/.netrc", false},
	{"newline in the path", "file:///ws/.parallax/api\n.token", true, "/ws/.parallax/api.token", false},
	{"carriage return", "file:///home/dev/\r.netrc", true, "/home/dev/.netrc", false},
	{"trailing newline", "file:///home/dev/.netrc\n", true, "/home/dev/.netrc", false},
	{"trailing CRLF", "file:///home/dev/.netrc\r\n", true, "/home/dev/.netrc", false},
	{"upper-case scheme", "FILE:///home/dev/.netrc", true, "/home/dev/.netrc", false},
	{"mixed-case scheme", "FiLe:///home/dev/.netrc", true, "/home/dev/.netrc", false},
	{"one slash", "file:/home/dev/.netrc", true, "/home/dev/.netrc", false},
	{"four slashes", "file:////home/dev/.netrc", true, "/home/dev/.netrc", false},
	{"localhost", "file://localhost/home/dev/.netrc", true, "/home/dev/.netrc", false},
	{"LOCALHOST", "file://LOCALHOST/home/dev/.netrc", true, "/home/dev/.netrc", false},
	{"escaped localhost", "file://%6Cocalhost/home/dev/.netrc", true, "/home/dev/.netrc", false},
	{"localhost alone", "file://localhost", true, "/", false},
	{"empty host alone", "file://", true, "/", false},
	{"escaped letters", "file:///home/dev/%2Enet%72c", true, "/home/dev/.netrc", false},
	{"escaped space", "file:///home/dev/My%20Docs/a", true, "/home/dev/My Docs/a", false},
	{"escaped UTF-8", "file:///home/dev/caf%C3%A9", true, "/home/dev/café", false},
	{"trailing slash", "file:///home/dev/", true, "/home/dev", false},
	{"double slash inside", "file:///home//dev/.netrc", true, "/home/dev/.netrc", false},

	// Refused: parsers read them differently, or no local path.
	{"trailing space", "file:///home/dev/.netrc ", true, "/home/dev/.netrc", true},
	{"trailing NUL", "file:///home/dev/.netrc\x00", true, "/home/dev/.netrc", true},
	{"backslashes", `file:\\\home\dev\.netrc`, true, "/home/dev/.netrc", true},
	{"backslash in the path", `file:///home/dev\.netrc`, true, "/home/dev/.netrc", true},
	{"dot dot", "file:///ws/a/../../home/dev/.netrc", true, "/home/dev/.netrc", true},
	{"dot", "file:///home/dev/./.netrc", true, "/home/dev/.netrc", true},
	{"escaped dot dot", "file:///ws/%2e%2e/home/dev/.netrc", true, "/home/dev/.netrc", true},
	{"mixed escaped dot dot", "file:///ws/x/.%2E/%2e./dev/.netrc", true, "/dev/.netrc", true},
	{"escaped dot", "file:///home/dev/%2e/.netrc", true, "/home/dev/.netrc", true},
	{"query", "file:///home/dev/.netrc?x", true, "/home/dev/.netrc", true},
	{"fragment", "file:///home/dev/.netrc#x", true, "/home/dev/.netrc", true},
	{"host", "file://server/share/x", true, "", true},
	{"host with a port", "file://localhost:80/x", true, "", true},
	{"user info", "file://u@localhost/x", true, "", true},
	{"fullwidth localhost", "file://ｌocalhost/x", true, "", true},
	{"relative host", "file://../.bashrc", true, "", true},
	{"relative", "file:home/dev/.netrc", true, "", true},
	{"bad escape", "file:///home/dev/%zz", true, "", true},
	{"escaped slash", "file:///home/dev/.ssh%2fid_rsa", true, "/home/dev/.ssh/id_rsa", true},
	{"escaped backslash", "file:///home/dev/.ssh%5cid_rsa", true, `/home/dev/.ssh\id_rsa`, true},
	{"escaped NUL", "file:///home/dev/.netrc%00", true, "/home/dev/.netrc\x00", true},
	{"escaped newline", "file:///home/dev/.ne%0Atrc", true, "/home/dev/.ne\ntrc", true},
	{"raw control", "file:///home/dev/.ne\x01trc", true, "/home/dev/.ne\x01trc", true},
	{"not UTF-8", "file:///home/dev/%ff", true, "/home/dev/\xff", true},

	// Not file URLs: today's handling (a URL, a name, a path).
	{"https", "https://example.com/home/dev/.netrc", false, "", false},
	{"filex", "filex:///home/dev/.netrc", false, "", false},
	{"files", "files:///home/dev/.netrc", false, "", false},
	{"no colon", "file///home/dev/.netrc", false, "", false},
	{"dotless i", "fıle:///home/dev/.netrc", false, "", false},
	{"path", "/home/dev/.netrc", false, "", false},
	{"file inside a URL", "https://example.com/file:///etc", false, "", false},
	{"empty", "", false, "", false},
}

// TestParseFileURL: each spelling is read as a WHATWG parser reads it,
// and refused where the parsers a server may use disagree.
func TestParseFileURL(t *testing.T) {
	for _, tc := range fileURLCases {
		t.Run(tc.name, func(t *testing.T) {
			p, file, err := ParseFileURL(tc.raw)
			if file != tc.file || IsFileURL(tc.raw) != tc.file {
				t.Fatalf("file: got %v (IsFileURL %v), want %v", file, IsFileURL(tc.raw), tc.file)
			}
			var fe *FileURLError
			switch {
			case tc.refused && !errors.As(err, &fe):
				t.Errorf("got %q, %v; want a FileURLError", p, err)
			case tc.refused && (fe.Path != tc.want || p != "" || !errors.Is(err, ErrFileURL)):
				t.Errorf("refusal: got %q (reading %q), want the reading %q", p, fe.Path, tc.want)
			case !tc.refused && (err != nil || p != tc.want):
				t.Errorf("got %q, %v; want %q", p, err, tc.want)
			}
		})
	}
}

// TestFileURLPathUsesParseFileURL: a URL field is read by the same
// normaliser; what names no local path is the root.
func TestFileURLPathUsesParseFileURL(t *testing.T) {
	for _, tc := range fileURLCases {
		if strings.ContainsAny(tc.raw, "\x00\x01") || !utf8.ValidString(tc.raw) {
			continue // not a payload the decoder takes
		}
		a := &Action{Type: HTTPRequest, Payload: &HTTPRequestPayload{Method: "GET", URL: tc.raw}}
		p, ok := FileURLPath(a)
		want := tc.want
		if tc.refused && want == "" {
			want = "/"
		}
		if ok != tc.file || ok && p != want {
			t.Errorf("%s: FileURLPath(%q): got %q %v, want %q %v", tc.name, tc.raw, p, ok, want, tc.file)
		}
	}
}

// FuzzParseFileURL: no panic; a path is absolute and clean, and only a
// file URL has one.
func FuzzParseFileURL(f *testing.F) {
	for _, tc := range fileURLCases {
		f.Add(tc.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, file, err := ParseFileURL(raw)
		if file != IsFileURL(raw) {
			t.Fatalf("%q: ParseFileURL file %v, IsFileURL %v", raw, file, IsFileURL(raw))
		}
		if !file && (p != "" || err != nil) {
			t.Fatalf("%q: not a file URL, got %q, %v", raw, p, err)
		}
		if err == nil && file && (p == "" || p != path.Clean(p) || p[0] != '/' || strings.ContainsAny(p, "\x00\\")) {
			t.Fatalf("%q: path %q is not absolute and clean", raw, p)
		}
		if err == nil && file && strings.Contains("/"+p+"/", "/../") {
			t.Fatalf("%q: path %q keeps a .. segment", raw, p)
		}
	})
}
