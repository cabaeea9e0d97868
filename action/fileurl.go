package action

import (
	"errors"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"
)

// ErrFileURL is the error of a file URL whose path cannot be named with
// certainty (FileURLError wraps it).
var ErrFileURL = errors.New("file URL")

// FileURLError is a file URL whose path the URL parsers servers use do
// not agree on, or that names no local path. Path is what a WHATWG
// parser (Node's URL, browsers) reads, when it reads one.
type FileURLError struct {
	URL  string
	Path string // the WHATWG reading; "" when there is none (a host, a bad escape)
	Why  string // "a backslash", "a host", …
}

func (e *FileURLError) Error() string { return "file URL with " + e.Why }

func (e *FileURLError) Unwrap() error { return ErrFileURL }

// IsFileURL reports whether a WHATWG URL parser reads s as a file URL:
// once C0 controls and spaces around it and tabs and newlines anywhere
// are dropped, its scheme is "file" in any case ("FILE:/x", " file:…",
// "fi\tle:…"). "filex://", "https://" and a path are not.
func IsFileURL(s string) bool {
	_, ok := fileScheme(s)
	return ok
}

// ParseFileURL is the one reading of a file URL: the tool arguments the
// MCP proxy maps, the resource URIs it forwards and the URL fields the
// gate judges all go through it. isFile is IsFileURL(raw); for a file
// URL, p is the absolute, clean, decoded path a WHATWG parser reads,
// when every URL parser a server may use reads the same path from it
// (WHATWG, Python's urllib, Go's net/url, Node's fileURLToPath).
//
// Normalised, since they all agree: C0 controls and spaces before the
// scheme; tabs and newlines anywhere (a trailing newline included);
// the scheme in any case; "file:/x", "file:///x", "file:////x"; the
// host localhost in any case or escaped; percent-escapes in the path.
//
// Refused (a *FileURLError, with the WHATWG reading when there is one),
// since parsers read them differently or no local path is named: C0
// controls or spaces after the URL (WHATWG drops them, Python and Go
// keep them in the name); a backslash (WHATWG reads a slash, the others
// a character of the name); . or .. segments, in any escaping (WHATWG
// removes them by spelling, a server that hands the path to the kernel
// follows links first); a query or fragment (a server that strips
// "file://" reads them as part of the name); another host; a relative
// path; a bad escape; an escaped slash, backslash, control character
// or invalid UTF-8; a raw control character.
func ParseFileURL(raw string) (p string, isFile bool, err error) {
	s, ok := fileScheme(raw)
	if !ok {
		return "", false, nil
	}
	refuse := func(whatwg, why string) (string, bool, error) {
		return "", true, &FileURLError{URL: raw, Path: whatwg, Why: why}
	}
	rest := s[len("file:"):]
	if t := strings.TrimRightFunc(rest, isC0OrSpace); t != rest {
		return refuse(whatwgPath(t), "spaces or control characters after it")
	}
	if strings.ContainsRune(rest, '\\') {
		return refuse(whatwgPath(rest), "a backslash")
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		return refuse(whatwgPath(rest[:i]), "a query or fragment")
	}
	if r, ok := strings.CutPrefix(rest, "//"); ok {
		host, _, _ := strings.Cut(r, "/")
		h, err := url.PathUnescape(host)
		if err != nil || h != "" && !strings.EqualFold(h, "localhost") {
			return refuse("", "a host")
		}
		if rest = r[len(host):]; rest == "" {
			rest = "/" // file://localhost is file:///
		}
	}
	if !strings.HasPrefix(rest, "/") {
		return refuse("", "a relative path")
	}
	var b strings.Builder
	for _, seg := range strings.Split(rest[1:], "/") {
		dec, why := fileSegment(seg)
		if why != "" {
			return refuse(whatwgPath(rest), why)
		}
		b.WriteString("/")
		b.WriteString(dec)
	}
	return path.Clean("/" + b.String()), true, nil
}

// fileSegment decodes one segment of a file URL's path, or says why it
// is refused.
func fileSegment(seg string) (string, string) {
	if strings.ContainsFunc(seg, isControl) {
		return "", "a control character"
	}
	dec, err := url.PathUnescape(seg)
	switch {
	case err != nil:
		return "", "a bad escape"
	case dec == "." || dec == "..":
		return "", ". or .. segments"
	case strings.ContainsAny(dec, `/\`) || strings.ContainsFunc(dec, isControl):
		return "", "an escaped slash, backslash or control character"
	case !utf8.ValidString(dec):
		return "", "escapes that are not UTF-8"
	}
	return dec, ""
}

// fileScheme returns s as a WHATWG parser reads it before the scheme
// (C0 controls and spaces dropped at the start, tabs and newlines
// anywhere) when its scheme is file (compared in ASCII: "fıle" is not
// file to any parser).
func fileScheme(s string) (string, bool) {
	s = strings.TrimLeftFunc(s, isC0OrSpace)
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
	}
	if len(s) < len("file:") || s[4] != ':' {
		return s, false
	}
	for i, c := range []byte("file") {
		if s[i]|0x20 != c {
			return s, false
		}
	}
	return s, true
}

// whatwgPath is the path a WHATWG parser reads from the part of a file
// URL after "file:" (without query or fragment): backslashes are
// slashes, a localhost or empty host is dropped, . and .. segments (also
// escaped) are removed by spelling, escapes are decoded. It is "" when
// there is none: another host, a bad escape.
func whatwgPath(rest string) string {
	rest = strings.ReplaceAll(strings.TrimRightFunc(rest, isC0OrSpace), `\`, "/")
	if r, ok := strings.CutPrefix(rest, "//"); ok {
		host, _, _ := strings.Cut(r, "/")
		if h, err := url.PathUnescape(host); err != nil || h != "" && !strings.EqualFold(h, "localhost") {
			return ""
		}
		rest = r[len(host):]
	}
	var out []string
	for _, seg := range strings.Split(strings.TrimPrefix(rest, "/"), "/") {
		switch strings.ToLower(seg) {
		case ".", "%2e":
			continue
		case "..", ".%2e", "%2e.", "%2e%2e":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			continue
		}
		dec, err := url.PathUnescape(seg)
		if err != nil {
			return ""
		}
		out = append(out, dec)
	}
	return path.Clean("/" + strings.Join(out, "/"))
}

// isC0OrSpace is what a WHATWG parser strips around a URL.
func isC0OrSpace(r rune) bool { return r <= 0x20 }

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
