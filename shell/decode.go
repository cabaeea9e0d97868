package shell

import (
	"bytes"
	"compress/gzip"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"io"
	"strings"
)

// This file decodes literal data the way decoding programs in a pipeline
// would (base64 -d, xxd -r -p, rev, tr, gzip -d, ...), so that what is
// finally executed can be analysed.

// transform computes the output of data-transforming programs when their
// input is known.
func (a *analyzer) transform(c *Call, in *stream, out stream) stream {
	if in == nil || !in.piped {
		return out
	}
	stdinOnly := len(c.Positional) == 0 || len(c.Positional) == 1 && c.Positional[0].Value == "-"
	var text, layer string
	var ok bool
	switch c.Name {
	case "cat", "tee", "dd", "sponge", "stdbuf":
		if c.Name == "cat" && !stdinOnly {
			return out
		}
		if c.Name == "tee" && in.known && in.text != "" {
			app := c.has("-a", "--append")
			for _, w := range c.Positional {
				if w.Known && w.Value != "-" {
					if p, ok := a.absPath(a.cwd, w.Value); ok {
						a.wrote(p, in.text, app)
					}
				}
			}
		}
		return finishText(out, in.text, in.known, in.layer, in.decoded)
	case "base64", "base32", "basenc":
		if !c.has("-d", "--decode", "-D") || !stdinOnly {
			return out
		}
		if in.known {
			text, ok = decodeBase(c.Name, in.text)
		}
		layer = c.Name
	case "xxd":
		if !c.has("-r", "--revert") {
			return out
		}
		if in.known {
			text, ok = hexDecode(in.text, c.has("-p", "-ps", "-plain", "--plain", "-postscript"))
		}
		layer = "hex"
	case "rev":
		if !stdinOnly || !in.known {
			return out
		}
		text, ok, layer = revLines(in.text), true, "rev"
	case "tr":
		text, ok = a.tr(c, in)
		layer = "tr"
	case "gzip", "gunzip", "zcat", "pigz":
		if c.Name == "gzip" && !c.has("-d", "--decompress", "--uncompress") || !stdinOnly {
			return out
		}
		if in.known {
			text, ok = gunzip(in.text)
		}
		layer = "gzip"
	case "openssl":
		if !in.known || !hasWord(c.Args, "-d") || !(hasWord(c.Args, "base64") || hasWord(c.Args, "-base64") || hasWord(c.Args, "-a")) {
			return out
		}
		text, ok = decodeBase("base64", in.text)
		layer = "base64"
	default:
		return out
	}
	if !ok {
		out.decoded, out.layer = true, layer
		return out
	}
	if len(text) > maxDecoded {
		a.tagf(c, TagLimitExceeded, "decoded size")
		out.decoded = true
		return out
	}
	return finishText(out, text, true, layer, true)
}

func finishText(out stream, text string, ok bool, layer string, decoded bool) stream {
	out.text, out.known = text, ok
	if decoded {
		out.decoded, out.layer = true, layer
	}
	return out
}

// has reports whether any of the flags was given.
func (c *Call) has(names ...string) bool {
	_, ok := c.Flag(names...)
	return ok
}

func hasWord(ws []Word, v string) bool {
	for _, w := range ws {
		if w.Known && w.Value == v {
			return true
		}
	}
	return false
}

// decodeBase decodes base64 or base32 leniently (whitespace, padding).
func decodeBase(kind, s string) (string, bool) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			return -1
		}
		return r
	}, s)
	if kind == "base32" {
		b, err := base32.StdEncoding.DecodeString(s)
		return string(b), err == nil
	}
	s = strings.TrimRight(s, "=")
	if b, err := base64.RawStdEncoding.DecodeString(s); err == nil {
		return string(b), true
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	return string(b), err == nil
}

// hexDecode decodes a plain hex dump (xxd -r -p), or the hex columns of
// a canonical xxd dump.
func hexDecode(s string, plain bool) (string, bool) {
	var sb strings.Builder
	for _, ln := range strings.Split(s, "\n") {
		if !plain {
			if i := strings.IndexByte(ln, ':'); i >= 0 {
				ln = ln[i+1:]
			}
			if i := strings.Index(ln, "  "); i >= 0 {
				ln = ln[:i]
			}
		}
		for _, f := range strings.Fields(ln) {
			sb.WriteString(f)
		}
	}
	h := sb.String()
	if len(h)%2 == 1 {
		h = h[:len(h)-1]
	}
	b, err := hex.DecodeString(h)
	return string(b), err == nil
}

// revLines reverses each line, byte-wise (ASCII payloads).
func revLines(s string) string {
	b := []byte(s)
	start := 0
	for i := 0; i <= len(b); i++ {
		if i == len(b) || b[i] == '\n' {
			for l, r := start, i-1; l < r; l, r = l+1, r-1 {
				b[l], b[r] = b[r], b[l]
			}
			start = i + 1
		}
	}
	return string(b)
}

// gunzip decompresses at most maxDecoded+1 bytes.
func gunzip(s string) (string, bool) {
	r, err := gzip.NewReader(strings.NewReader(s))
	if err != nil {
		return "", false
	}
	var buf bytes.Buffer
	_, err = io.Copy(&buf, io.LimitReader(r, maxDecoded+1))
	if err != nil && buf.Len() == 0 {
		return "", false
	}
	return buf.String(), true
}

// tr maps or deletes literal character sets.
func (a *analyzer) tr(c *Call, in *stream) (string, bool) {
	if !in.known || len(c.Positional) == 0 || c.has("-c", "-C", "--complement", "-s", "--squeeze-repeats") {
		return "", false
	}
	set1, ok1 := trSet(c.Positional[0])
	if !ok1 {
		return "", false
	}
	if c.has("-d", "--delete") {
		var del [256]bool
		for _, ch := range []byte(set1) {
			del[ch] = true
		}
		b := make([]byte, 0, len(in.text))
		for i := 0; i < len(in.text); i++ {
			if !del[in.text[i]] {
				b = append(b, in.text[i])
			}
		}
		return string(b), true
	}
	if len(c.Positional) < 2 {
		return "", false
	}
	set2, ok2 := trSet(c.Positional[1])
	if !ok2 || set2 == "" {
		return "", false
	}
	var m [256]byte
	for i := range m {
		m[i] = byte(i)
	}
	for i := 0; i < len(set1); i++ {
		m[set1[i]] = set2[min(i, len(set2)-1)]
	}
	b := []byte(in.text)
	for i := range b {
		b[i] = m[b[i]]
	}
	return string(b), true
}

// trSet expands a tr set: ranges a-z, escapes; classes are not resolved.
func trSet(w Word) (string, bool) {
	if !w.Known || strings.Contains(w.Value, "[:") || len(w.Value) > 512 {
		return "", false
	}
	s, _ := unescape(w.Value, false)
	var b []byte
	for i := 0; i < len(s); i++ {
		if i+2 < len(s) && s[i+1] == '-' && s[i] <= s[i+2] {
			for ch := int(s[i]); ch <= int(s[i+2]); ch++ {
				b = append(b, byte(ch))
			}
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b), true
}
