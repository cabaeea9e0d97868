package mcpproxy

import (
	"errors"

	"github.com/parallax/parallax/action"
)

// fileURL is the proxy's one judgement of a file URL, for a path argument
// of a tool call (mapper.absolute) and the URI of resources/read and
// resources/subscribe (resourceFile) alike: action.ParseFileURL reads it
// as a WHATWG parser does, and a spelling that the URL parsers a server
// may use read differently is refused (a PlaceError naming what), never
// forwarded. isFile is false, and p the raw string, for anything that
// is not a file URL ("https://", "filex://", a path).
func fileURL(raw string) (p string, isFile bool, err error) {
	p, isFile, err = action.ParseFileURL(raw)
	if !isFile {
		return raw, false, nil
	}
	if err != nil {
		why := err.Error()
		var fe *action.FileURLError
		if errors.As(err, &fe) && fe.Path != "" {
			why += " (a WHATWG parser reads " + fe.Path + ", other parsers another path)"
		}
		return "", true, &PlaceError{Path: raw, Why: "a " + why + "; give a plain file URL (file:///absolute/path) or an absolute path"}
	}
	return p, true, nil
}

// resourceFile places the URI of a resource request: a file URL is its
// path (fileURL), placed as a path argument of the same server would be
// (mapper.place: the Unicode twin a server may open instead is judged
// or refused); isFile is false for any other URI, which is the server's
// own namespace.
func resourceFile(env MapEnv, uri string) (p string, isFile bool, err error) {
	p, isFile, err = fileURL(uri)
	if !isFile || err != nil {
		return p, isFile, err
	}
	p, err = (&mapper{env: env}).place(p)
	return p, true, err
}
