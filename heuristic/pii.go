package heuristic

// Payment card numbers and US social security numbers in outbound
// payloads. The DLP package will classify content fully; this is the
// tier-1 floor: regulated identifiers never leave in a request body.

// findPII returns the kind of regulated identifier found in s: a card
// number that passes the Luhn check and carries a card-network prefix, or
// an SSN in its dashed form with a valid area and group.
func findPII(s string) (string, bool) {
	if len(s) < 11 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) || (i > 0 && (isDigit(s[i-1]) || isAlnum(s[i-1]))) {
			continue
		}
		if cardAt(s, i) {
			return "a payment card number", true
		}
		if ssnAt(s, i) {
			return "a social security number", true
		}
	}
	return "", false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// cardAt reads 13 to 19 digits from i, allowing single spaces or dashes
// between groups, and checks the network prefix and the Luhn sum.
func cardAt(s string, i int) bool {
	var d [19]byte
	n := 0
	j := i
	for j < len(s) && n < 19 {
		c := s[j]
		switch {
		case isDigit(c):
			d[n] = c - '0'
			n++
			j++
		case (c == ' ' || c == '-') && j+1 < len(s) && isDigit(s[j+1]) && j > i && isDigit(s[j-1]):
			j++
		default:
			goto done
		}
	}
done:
	if n < 13 || (j < len(s) && isDigit(s[j])) {
		return false
	}
	switch d[0] {
	case 3, 4, 5, 6: // Amex/Diners/JCB, Visa, Mastercard, Discover/UnionPay
	default:
		return false
	}
	sum := 0
	for k := 0; k < n; k++ {
		v := int(d[n-1-k])
		if k%2 == 1 {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	return sum%10 == 0
}

// ssnAt reads "AAA-GG-SSSS" from i: area not 000, 666 or 9xx, group not
// 00, serial not 0000.
func ssnAt(s string, i int) bool {
	if i+11 > len(s) || (i+11 < len(s) && isDigit(s[i+11])) {
		return false
	}
	t := s[i : i+11]
	for k := 0; k < 11; k++ {
		if k == 3 || k == 6 {
			if t[k] != '-' {
				return false
			}
		} else if !isDigit(t[k]) {
			return false
		}
	}
	area := t[:3]
	return area != "000" && area != "666" && t[0] != '9' && t[4:6] != "00" && t[7:] != "0000"
}
