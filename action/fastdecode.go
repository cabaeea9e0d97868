package action

// fastCommand decodes the most common payload there is, an
// execute_command that holds only {"command": "<ASCII text>"}, without
// encoding/json. It accepts exactly what the general path accepts and
// decodes it the same way (FuzzFastCommand checks both on every input);
// anything else (another field, a character outside ASCII) is
// left to the general path by returning ok=false.
func fastCommand(b []byte) (p *ExecuteCommandPayload, ok bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i = skipWS(b, i+1)
	const key = `"command"`
	if len(b)-i < len(key) || string(b[i:i+len(key)]) != key {
		return nil, false
	}
	i = skipWS(b, i+len(key))
	if i >= len(b) || b[i] != ':' {
		return nil, false
	}
	i = skipWS(b, i+1)
	cmd, end, ok := asciiString(b, i)
	if !ok {
		return nil, false
	}
	i = skipWS(b, end)
	if i >= len(b) || b[i] != '}' || skipWS(b, i+1) != len(b) {
		return nil, false
	}
	return &ExecuteCommandPayload{Command: cmd}, true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// asciiEscape decodes the four hex digits of a \u escape when they
// name an ASCII character (Go's encoder writes & < > so).
func asciiEscape(b []byte) (byte, bool) {
	if len(b) < 4 || b[0] != '0' || b[1] != '0' {
		return 0, false
	}
	hi, ok1 := hexVal(b[2])
	lo, ok2 := hexVal(b[3])
	if !ok1 || !ok2 || hi > 7 {
		return 0, false
	}
	return hi<<4 | lo, true
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// asciiString reads the JSON string starting at b[i] (its opening quote)
// when it holds only printable ASCII and escapes of ASCII characters. end is
// the index after the closing quote.
func asciiString(b []byte, i int) (s string, end int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return "", 0, false
	}
	i++
	start, esc := i, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			if !esc {
				return string(b[start:i]), i + 1, true
			}
			return unescapeASCII(b[start:i]), i + 1, true
		case c == '\\':
			if i+1 >= len(b) {
				return "", 0, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if _, ok := asciiEscape(b[i+2:]); !ok {
					return "", 0, false // beyond ASCII: the general path
				}
				i += 5
			default:
				return "", 0, false // malformed: the general path says why
			}
			esc = true
		case c < 0x20 || c >= 0x80:
			return "", 0, false
		}
	}
	return "", 0, false
}

// unescapeASCII resolves the escapes asciiString admitted.
func unescapeASCII(b []byte) string {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch b[i] {
		case 'u':
			c, _ = asciiEscape(b[i+1:])
			i += 4
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		default: // " \ /
			c = b[i]
		}
		out = append(out, c)
	}
	return string(out)
}
