package claudecode

import "strings"

// Claude Code ignores @imports inside code (fenced blocks, code spans)
// and HTML comments. These blank such regions (keeping line breaks) the
// way CommonMark delimits them; where a region is not certainly code
// (a fence never closed), it is kept: an import too many is read, never
// one too few.

// stripCode blanks fenced code blocks and code spans.
func stripCode(text string) string {
	lines := strings.SplitAfter(text, "\n")
	open, start := "", 0
	blank := make([]bool, len(lines))
	for i, l := range lines {
		if open == "" {
			if f := fenceOpen(l); f != "" {
				open, start = f, i
			}
			continue
		}
		if fenceCloses(l, open) {
			for j := start; j <= i; j++ {
				blank[j] = true
			}
			open = ""
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if blank[i] {
			l = blankOut(l)
		}
		b.WriteString(l)
	}
	return stripSpans(b.String())
}

// fenceOpen returns the fence a line opens ("```", "~~~~", ...) or "".
func fenceOpen(l string) string {
	t, ok := fenceIndent(l)
	if !ok {
		return ""
	}
	c := t[0]
	if c != '`' && c != '~' {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 || c == '`' && strings.IndexByte(t[n:], '`') >= 0 {
		return ""
	}
	return t[:n]
}

// fenceCloses reports whether a line closes the fence open.
func fenceCloses(l, open string) bool {
	t, ok := fenceIndent(l)
	if !ok {
		return false
	}
	n := 0
	for n < len(t) && t[n] == open[0] {
		n++
	}
	return n >= len(open) && strings.TrimSpace(t[n:]) == ""
}

// fenceIndent cuts up to three leading spaces; more is no fence.
func fenceIndent(l string) (string, bool) {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || t == "" {
		return "", false
	}
	return t, true
}

// stripSpans blanks code spans: a run of n backticks up to the next run
// of exactly n on the same line. A run without its match is literal text.
// A backslash before the opening run escapes its first backtick.
// CommonMark lets a span go on over the lines of a paragraph; such a
// span is kept here (telling a paragraph's lines from an indented code
// block's takes a full parse): its imports are followed.
func stripSpans(text string) string {
	b := []byte(text)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := runLen(b, i)
		if i > 0 && b[i-1] == '\\' {
			i += n
			continue
		}
		end := closingRun(b, i+n, n)
		if end < 0 {
			i += n
			continue
		}
		for j := i; j < end; j++ {
			if b[j] != '\n' {
				b[j] = ' '
			}
		}
		i = end
	}
	return string(b)
}

// runLen is the length of the run of backticks at i.
func runLen(b []byte, i int) int {
	n := 0
	for i+n < len(b) && b[i+n] == '`' {
		n++
	}
	return n
}

// closingRun returns the end of the next run of exactly n backticks
// from i on the same line, or -1.
func closingRun(b []byte, i, n int) int {
	for i < len(b) && b[i] != '\n' {
		if b[i] != '`' {
			i++
			continue
		}
		m := runLen(b, i)
		if m == n {
			return i + m
		}
		i += m
	}
	return -1
}

// stripHTMLComments blanks closed HTML comments.
func stripHTMLComments(text string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, "<!--")
		if i < 0 {
			break
		}
		j := strings.Index(text[i+4:], "-->")
		if j < 0 {
			break
		}
		end := i + 4 + j + 3
		b.WriteString(text[:i])
		b.WriteString(blankOut(text[i:end]))
		text = text[end:]
	}
	b.WriteString(text)
	return b.String()
}

// blankOut replaces every byte but line breaks with a space.
func blankOut(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}
