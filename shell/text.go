package shell

import (
	"strconv"
	"strings"
)

// This file computes the output of echo and printf.

// textOut is the output of a builtin that prints words.
func (a *analyzer) textOut(c *Call, text string, known, decoded bool) stream {
	out := stream{piped: true, from: c.Name, text: text, known: known}
	if decoded {
		out.decoded, out.layer = true, c.Name+" escapes"
	}
	for _, w := range c.Args {
		if w.flags&wDecoded != 0 {
			out.decoded, out.layer = true, "decoded"
		}
		if w.flags&wNet != 0 {
			out.net = true
		}
	}
	if c.smark <= len(a.wsrc) {
		out.srcs = append(out.srcs, a.wsrc[c.smark:]...)
	}
	return out
}

// echo prints its arguments.
func (a *analyzer) echo(c *Call) stream {
	args := c.Args
	nl, esc := true, false
	for len(args) > 0 && isEchoFlag(args[0]) {
		for _, ch := range args[0].Value[1:] {
			switch ch {
			case 'n':
				nl = false
			case 'e':
				esc = true
			case 'E':
				esc = false
			}
		}
		args = args[1:]
	}
	j := joinArgs(args)
	text, dec := j.Value, false
	if esc {
		text, dec = unescape(text, false)
	}
	if nl {
		text += "\n"
	}
	return a.textOut(c, text, j.Known, dec)
}

func isEchoFlag(w Word) bool {
	if !w.Known || len(w.Value) < 2 || w.Value[0] != '-' {
		return false
	}
	for _, ch := range w.Value[1:] {
		if ch != 'n' && ch != 'e' && ch != 'E' {
			return false
		}
	}
	return true
}

// printf formats its arguments; -v assigns the result to a variable.
func (a *analyzer) printf(c *Call) stream {
	args := c.Args
	varName := ""
	switch {
	case len(args) >= 2 && args[0].Known && args[0].Value == "-v":
		varName, args = args[1].Value, args[2:]
		if !c.Args[1].Known {
			a.havocAll = true // printf -v "$name": any variable
		}
	case len(args) >= 1 && args[0].Known && strings.HasPrefix(args[0].Value, "-v"):
		varName, args = args[0].Value[2:], args[1:] // printf -vNAME
	case len(args) >= 1 && !args[0].Known && strings.HasPrefix(args[0].Value, "-"):
		a.havocAll = true // an option known only at run time may be -vNAME
	}
	if len(args) > 0 && args[0].Known && args[0].Value == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return stream{}
	}
	text, known, dec := formatPrintf(args[0], args[1:])
	if varName != "" {
		w := Word{Value: text, Known: known}
		if dec {
			w.flags |= wDecoded
		}
		a.setVar(varName, w, nil)
		return stream{}
	}
	return a.textOut(c, text, known, dec)
}

// formatPrintf applies a printf format; dec reports numeric escapes.
func formatPrintf(fw Word, args []Word) (text string, known, dec bool) {
	known = fw.Known
	var sb strings.Builder
	f := fw.Value
	for round := 0; round < 64; round++ {
		used := 0
		for i := 0; i < len(f); i++ {
			switch ch := f[i]; {
			case ch == '\\' && i+1 < len(f):
				end := escEnd(f, i)
				s, e := unescape(f[i:end], true)
				dec = dec || e
				sb.WriteString(s)
				i = end - 1
			case ch == '%' && i+1 < len(f):
				j := i + 1
				for j < len(f) && strings.IndexByte("-+ #0123456789.", f[j]) >= 0 {
					j++
				}
				if j >= len(f) {
					sb.WriteString(f[i:])
					i = len(f)
					continue
				}
				if f[j] == '%' {
					sb.WriteByte('%')
					i = j
					continue
				}
				arg := Word{Known: true}
				if used < len(args) {
					arg = args[used]
				}
				used++
				s, e, ok := convert(f[j], f[i+1:j], arg)
				known = known && ok && arg.Known
				dec = dec || e
				sb.WriteString(s)
				i = j
			default:
				sb.WriteByte(ch)
			}
			if sb.Len() > maxDecoded {
				return "", false, dec
			}
		}
		args = args[min(used, len(args)):]
		if used == 0 || len(args) == 0 {
			break
		}
	}
	return sb.String(), known, dec
}

// escEnd returns the end of the escape sequence starting at f[i] ('\\').
func escEnd(f string, i int) int {
	switch c := f[i+1]; {
	case c >= '0' && c <= '7':
		_, k := numEsc(f[i+1:], 8, 3)
		return i + 1 + k
	case c == 'x':
		_, k := numEsc(f[i+2:], 16, 2)
		return i + 2 + k
	case c == 'u':
		_, k := numEsc(f[i+2:], 16, 4)
		return i + 2 + k
	}
	return i + 2
}

// convert formats one printf argument.
func convert(verb byte, spec string, arg Word) (s string, dec, ok bool) {
	switch verb {
	case 's', 'q':
		s = arg.Value
	case 'b':
		s, dec = unescape(arg.Value, false)
	case 'c':
		if arg.Value != "" {
			s = arg.Value[:1]
		}
	case 'd', 'i', 'u', 'x', 'X', 'o':
		n, err := strconv.ParseInt(strings.TrimSpace(orDefault(arg.Value, "0")), 0, 64)
		if err != nil {
			return "", false, false
		}
		switch verb {
		case 'x':
			s, dec = strconv.FormatInt(n, 16), true
		case 'X':
			s, dec = strings.ToUpper(strconv.FormatInt(n, 16)), true
		case 'o':
			s, dec = strconv.FormatInt(n, 8), true
		default:
			s = strconv.FormatInt(n, 10)
		}
	default:
		return "", false, false
	}
	return pad(s, spec), dec, true
}

// pad applies a printf width and precision ("5", "-5", ".3").
func pad(s, spec string) string {
	left := strings.HasPrefix(spec, "-")
	spec = strings.TrimLeft(spec, "-+ #0")
	if i := strings.IndexByte(spec, '.'); i >= 0 {
		if p, err := strconv.Atoi(spec[i+1:]); err == nil && p < len(s) {
			s = s[:p]
		}
		spec = spec[:i]
	}
	n, err := strconv.Atoi(spec)
	if err != nil || n <= len(s) || n > 1024 {
		return s
	}
	if left {
		return s + strings.Repeat(" ", n-len(s))
	}
	return strings.Repeat(" ", n-len(s)) + s
}
