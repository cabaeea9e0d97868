package dlp

// Payment data: card numbers (network prefix and length, Luhn) and IBANs
// (country length, mod-97). Card numbers the processors publish for
// testing and the IBANs standards bodies print as examples are nobody's
// account: they are not reported.

// luhn checks the Luhn sum of digits (values 0-9).
func luhn(d []byte) bool {
	sum := 0
	for k := 0; k < len(d); k++ {
		v := int(d[len(d)-1-k])
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

// cardNetwork reports whether the digits carry a known network prefix
// with a length that network issues.
func cardNetwork(d []byte) bool {
	n := len(d)
	p2 := int(d[0])*10 + int(d[1])
	p3 := p2*10 + int(d[2])
	p4 := p3*10 + int(d[3])
	p6 := p4*100 + int(d[4])*10 + int(d[5])
	switch {
	case d[0] == 4: // Visa
		return n == 13 || n == 16 || n == 19
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720: // Mastercard
		return n == 16
	case p2 == 34 || p2 == 37: // American Express
		return n == 15
	case p4 == 6011, p2 == 65, p3 >= 644 && p3 <= 649, p6 >= 622126 && p6 <= 622925: // Discover
		return n >= 16 && n <= 19
	case p4 >= 3528 && p4 <= 3589: // JCB
		return n >= 16 && n <= 19
	case p3 >= 300 && p3 <= 305, p2 == 36, p2 == 38, p2 == 39: // Diners Club
		return n >= 14 && n <= 19
	case p2 == 62: // UnionPay
		return n >= 16 && n <= 19
	case p4 >= 2200 && p4 <= 2204: // Mir
		return n >= 16 && n <= 19
	}
	return false
}

// testCards are card numbers payment processors publish for testing.
var testCards = map[string]bool{
	"4242424242424242": true, "4000056655665556": true, "4111111111111111": true,
	"4012888888881881": true, "4222222222222": true, "4000000000000002": true,
	"4000000000009995": true, "4000000000000077": true, "4000002500003155": true,
	"4000000000003220": true, "4000000000000341": true, "4005519200000004": true,
	"4009348888881881": true, "4012000033330026": true, "4012000077777777": true,
	"4217651111111119": true, "4500600000000061": true, "4917610000000000": true,
	"5555555555554444": true, "2223003122003222": true, "5200828282828210": true,
	"5105105105105100": true, "5431111111111111": true, "5454545454545454": true,
	"2221000000000009": true, "5425233430109903": true,
	"378282246310005": true, "371449635398431": true, "378734493671000": true,
	"6011111111111117": true, "6011000990139424": true, "6011981111111113": true,
	"6011000400000000": true, "6445644564456445": true,
	"3056930009020004": true, "36227206271667": true, "30569309025904": true,
	"38520000023237": true, "36006666333344": true,
	"3566002020360505": true, "3530111333300000": true, "3566111111111113": true,
	"6200000000000005": true, "6200000000000047": true,
}

// isCard checks prefix, length, Luhn, the test list and the test-number
// pattern.
func isCard(d []byte) bool {
	if !cardNetwork(d) || !luhn(d) || repeatedQuad(d) {
		return false
	}
	var buf [19]byte
	for k, c := range d {
		buf[k] = '0' + c
	}
	return !testCards[string(buf[:len(d)])]
}

// repeatedQuad reports whether two of the first four 4-digit groups are
// equal (4242 4242 ..., 4000 1234 1234 1234, 5555 5555 ...): the pattern of
// made-up and test numbers. A random number has it with odds under 1 in
// 1,500.
func repeatedQuad(d []byte) bool {
	var q [4][4]byte
	n := 0
	for k := 0; k+4 <= len(d) && n < 4; k += 4 {
		q[n] = [4]byte(d[k : k+4])
		n++
	}
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			if q[a] == q[b] {
				return true
			}
		}
	}
	return false
}

// ibanLength is the IBAN length per country (ISO 13616 registry).
var ibanLength = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
	"BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28,
	"EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
	"GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
	"IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
	"LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18,
	"NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24,
	"SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "TN": 24, "TR": 26, "UA": 29, "VA": 22,
	"VG": 24, "XK": 20,
}

// exampleIBANs are the IBANs printed as examples by the registry, banks'
// documentation and encyclopaedias.
var exampleIBANs = map[string]bool{
	"GB82WEST12345698765432": true, "GB29NWBK60161331926819": true, "GB33BUKB20201555555555": true,
	"DE89370400440532013000": true, "DE75512108001245126199": true, "FR1420041010050500013M02606": true,
	"FR7630006000011234567890189": true, "NL91ABNA0417164300": true, "ES9121000418450200051332": true,
	"IT60X0542811101000000123456": true, "CH9300762011623852957": true, "BE68539007547034": true,
	"AT611904300234573201": true, "NO9386011117947": true, "DK5000400440116243": true,
	"FI2112345600000785": true, "SE4550000000058398257466": true, "PL61109010140000071219812874": true,
	"IE29AIBK93115212345678": true, "LU280019400644750000": true, "PT50000201231234567890154": true,
}

// matchIBAN reads an IBAN at i: country, check digits and the country's
// BBAN length of capitals and digits, optionally grouped by spaces.
func matchIBAN(sc *scan, i int) {
	s := sc.s
	want, ok := ibanLength[s[i:i+2]]
	if !ok {
		return
	}
	var buf [34]byte
	n := 0
	j := i
	for j < len(s) && n < want {
		c := s[j]
		switch {
		case isUpper(c) || isDigit(c):
			buf[n] = c
			n++
			j++
		case c == ' ' && n >= 4 && n%4 == 0 && j+1 < len(s) && (isUpper(s[j+1]) || isDigit(s[j+1])):
			j++
		default:
			return
		}
	}
	if n != want || (j < len(s) && isAlnum(s[j])) {
		return
	}
	iban := string(buf[:n])
	if ibanMod97(iban) == 1 && !exampleIBANs[iban] {
		sc.add(idIBAN, i, j)
	}
}

// ibanMod97 computes the ISO 7064 mod-97 of the rearranged IBAN.
func ibanMod97(iban string) int {
	r := 0
	for k := 0; k < len(iban); k++ {
		c := iban[(k+4)%len(iban)]
		if isDigit(c) {
			r = (r*10 + int(c-'0')) % 97
		} else {
			r = (r*100 + int(c-'A') + 10) % 97
		}
	}
	return r
}
