package dlp

import "strings"

// Personal identifiers: email addresses, phone numbers, national ids and
// dates of birth. Where a format has a checksum (DNI/NIE letter, SIN
// Luhn) it is checked; where it has issuing rules (SSN area/group/serial,
// NINO prefixes, NANP area and exchange codes) they are applied.

func isLocalByte(c byte) bool { return isWord(c) || strings.IndexByte(".%+-", c) >= 0 }
func isHostByte(c byte) bool  { return isAlnum(c) || c == '-' }

// matchEmail: local@domain.tld, the trigger at "@". Not emails: URL
// userinfo (scheme://user@host), scp-style git remotes (git@host:path),
// package@version, decorators, hosts without a known top-level domain
// (icon@2x.png) and the reserved example domains.
func matchEmail(sc *scan, i int) int {
	s := sc.s
	j := i
	for j > 0 && i-j < 64 && isLocalByte(s[j-1]) {
		j--
	}
	for j < i && !isAlnum(s[j]) {
		j++
	}
	if j == i || s[i-1] == '.' {
		return 0
	}
	if j > 0 && (s[j-1] == '/' || s[j-1] == '@' || s[j-1] == ':' && !(j >= 7 && hasFold(s, j-7, "mailto:"))) {
		return 0
	}
	end, tld := domainAt(s, i+1)
	if end < 0 || !knownTLD(tld) || reservedDomain(s[i+1:end]) || placeholderMail(s[j:end]) {
		return 0
	}
	if end < len(s) && (s[end] == '@' || s[end] == ':' && end+1 < len(s) && s[end+1] > ' ') {
		return 0
	}
	if inUserinfo(s, j) || sshTarget(s, j) {
		return 0
	}
	sc.add(idEmail, j, end)
	return 0
}

// inUserinfo reports whether position j is inside the userinfo of a URL
// ("scheme://user:pa!ss@host"): "://" before it with no space, slash or
// quote in between.
func inUserinfo(s string, j int) bool {
	for k := j - 1; k >= 0 && j-k < 256; k-- {
		c := s[k]
		if c == '/' {
			return k >= 2 && s[k-1] == '/' && s[k-2] == ':'
		}
		if c <= ' ' || strings.IndexByte("\"'<>`", c) >= 0 {
			return false
		}
	}
	return false
}

// sshTarget reports whether the word at j is the user@host argument of an
// ssh-family command earlier on the line.
func sshTarget(s string, j int) bool {
	k := j
	for k > 0 && j-k < 160 && s[k-1] != '\n' {
		k--
	}
	line := s[k:j]
	for _, p := range [...]string{"ssh ", "sftp ", "mosh ", "ssh-copy-id "} {
		if p := strings.Index(line, p); p >= 0 && (p == 0 || !isWord(line[p-1])) {
			return true
		}
	}
	return false
}

// placeholderMail reports addresses written as stand-ins: "your_email@",
// "@yourdomain.com", "@domain.com", "@email.com".
func placeholderMail(addr string) bool {
	if containsFold(addr, "your") || containsFold(addr, "example") || containsFold(addr, "sample") {
		return true
	}
	at := strings.IndexByte(addr, '@')
	switch lowerASCII(addr[at+1:]) {
	case "domain.com", "email.com", "test.com", "foo.com", "bar.com", "company.com", "server.com", "host.com":
		return true
	}
	return false
}

// domainAt reads dot-separated host labels from j; it returns the end and
// the last label, or -1 when there are fewer than two labels.
func domainAt(s string, j int) (int, string) {
	labels := 0
	end := -1
	last := ""
	for k := j; k < len(s) && k-j < 253; {
		e := run(s, k, 63, isHostByte)
		if e == k || s[k] == '-' || s[e-1] == '-' {
			break
		}
		labels++
		end, last = e, s[k:e]
		if e+1 >= len(s) || s[e] != '.' || !isHostByte(s[e+1]) {
			break
		}
		k = e + 1
	}
	if labels < 2 || (end < len(s) && isWord(s[end])) {
		return -1, ""
	}
	return end, last
}

// tlds are the top-level domains accepted for email addresses: the
// generic ones people use and the country codes (two letters, checked
// against ccTLDs).
var tlds = map[string]bool{
	"com": true, "net": true, "org": true, "edu": true, "gov": true, "mil": true, "int": true,
	"io": true, "ai": true, "co": true, "dev": true, "app": true, "me": true, "info": true,
	"biz": true, "email": true, "cloud": true, "tech": true, "online": true, "site": true,
	"xyz": true, "eu": true, "name": true, "pro": true, "mobi": true, "asia": true, "health": true,
	"bank": true, "law": true, "news": true, "media": true, "company": true, "agency": true,
	"studio": true, "design": true, "systems": true, "solutions": true, "services": true,
	"consulting": true, "finance": true, "legal": true, "clinic": true, "care": true,
	"hospital": true, "school": true, "university": true, "academy": true, "global": true,
	"world": true, "life": true, "live": true, "shop": true, "store": true, "blog": true,
}

// ccTLDs lists the two-letter country code top-level domains in use.
const ccTLDs = "ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn " +
	"bo br bs bt bw by bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz " +
	"ec ee eg er es et eu fi fj fk fm fo fr ga gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk " +
	"hm hn hr ht hu id ie il im in io iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la lb " +
	"lc li lk lr ls lt lu lv ly ma mc md me mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na " +
	"nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw " +
	"sa sb sc sd se sg sh si sk sl sm sn so sr ss st su sv sx sy sz tc td tf tg th tj tk tl tm tn to " +
	"tr tt tv tw tz ua ug uk us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw"

func knownTLD(t string) bool {
	t = lowerASCII(t)
	if len(t) == 2 {
		return isAlpha(t[0]) && isAlpha(t[1]) && strings.Contains(ccTLDs, t)
	}
	return tlds[t]
}

// reservedDomain: example.com/.net/.org (RFC 2606) and their subdomains.
func reservedDomain(d string) bool {
	d = lowerASCII(d)
	for _, r := range [...]string{"example.com", "example.net", "example.org"} {
		if d == r || strings.HasSuffix(d, "."+r) {
			return true
		}
	}
	return false
}

// groups is a run of digit groups joined by one separator byte.
type groups struct {
	n      int    // groups
	lens   [8]int // digits per group
	sep    byte   // the separator (0: one group)
	digits [24]byte
	nd     int // digits
	end    int
}

// readGroups reads digit groups from i; a separator (space, dash, dot)
// counts only between digits and must be the same throughout.
func readGroups(s string, i int) groups {
	var g groups
	j := i
	if j >= len(s) || !isDigit(s[j]) {
		g.end = j
		return g
	}
	for j < len(s) && g.nd < len(g.digits) {
		c := s[j]
		if isDigit(c) {
			g.digits[g.nd] = c - '0'
			g.nd++
			g.lens[g.n]++
			j++
			continue
		}
		if (c == ' ' || c == '-' || c == '.') && (g.sep == 0 || g.sep == c) && g.n < len(g.lens)-1 &&
			j+1 < len(s) && isDigit(s[j+1]) {
			g.sep = c
			g.n++
			j++
			continue
		}
		break
	}
	g.n++
	g.end = j
	return g
}

func (g *groups) shape(lens ...int) bool {
	if g.n != len(lens) {
		return false
	}
	for k, l := range lens {
		if g.lens[k] != l {
			return false
		}
	}
	return true
}

// num returns digits [a, b) as a number.
func (g *groups) num(a, b int) int {
	v := 0
	for k := a; k < b; k++ {
		v = v*10 + int(g.digits[k])
	}
	return v
}

// matchDigits is the matcher at the start of a digit run: payment cards,
// dashed SSNs, North American phone numbers, Spanish DNIs.
func matchDigits(sc *scan, i int) int {
	s := sc.s
	if i > 0 && strings.IndexByte(".-/:+$#", s[i-1]) >= 0 && (i < 2 || isDigit(s[i-2]) || s[i-1] == '+' || s[i-1] == '#') {
		return 0 // part of a larger number, a version, a path or an anchor
	}
	g := readGroups(s, i)
	if g.end < len(s) && isWord(s[g.end]) {
		if g.n == 1 && g.nd == 8 {
			matchDNI(sc, i, &g)
		}
		return 0
	}
	switch {
	case g.nd >= 13 && g.nd <= 19 && g.sep != '.':
		if cardLayout(&g) && isCard(g.digits[:g.nd]) {
			sc.add(idCard, i, g.end)
		}
	case g.sep == '-' && g.shape(3, 2, 4):
		if validSSN(&g) {
			sc.add(idUSSSN, i, g.end)
		}
	case g.sep == '-' || g.sep == '.':
		if nanpGroups(&g) {
			sc.add(idPhone, i, g.end)
		}
	case g.n == 1 && g.nd == 8:
		matchDNI(sc, i, &g)
	}
	return 0
}

// cardLayout accepts the ways card numbers are written: 13 to 16 digits
// in one run, or groups of four (the last one shorter), or the 4-6-5 and
// 4-6-4 layouts of Amex and Diners. Longer bare runs are numeric
// constants far more often than 17-19 digit cards.
func cardLayout(g *groups) bool {
	if g.n == 1 {
		return g.nd <= 16
	}
	if g.shape(4, 6, 5) || g.shape(4, 6, 4) {
		return true
	}
	for k := 0; k < g.n-1; k++ {
		if g.lens[k] != 4 {
			return false
		}
	}
	return g.lens[g.n-1] >= 1 && g.lens[g.n-1] <= 4
}

// validSSN applies the SSA rules: area 001-899 but not 666, group 01-99,
// serial 0001-9999; the SSA's advertising and example numbers are not
// anyone's.
func validSSN(g *groups) bool {
	area, group, serial := g.num(0, 3), g.num(3, 5), g.num(5, 9)
	if area == 0 || area == 666 || area >= 900 || group == 0 || serial == 0 {
		return false
	}
	switch area*1000000 + group*10000 + serial {
	case 78051120, 219099999, 123456789:
		return false
	}
	return true
}

// nanpGroups accepts NPA-NXX-XXXX and 1-NPA-NXX-XXXX.
func nanpGroups(g *groups) bool {
	switch {
	case g.shape(3, 3, 4):
		return validNANP(g.num(0, 3), g.num(3, 6), g.num(6, 10))
	case g.shape(1, 3, 3, 4) && g.digits[0] == 1:
		return validNANP(g.num(1, 4), g.num(4, 7), g.num(7, 11))
	}
	return false
}

// validNANP: area and exchange start with 2-9 and are not N11 service
// codes; 555-0100..0199 is reserved for fiction.
func validNANP(area, exch, line int) bool {
	if area < 200 || exch < 200 || area%100 == 11 || exch%100 == 11 {
		return false
	}
	return !(exch == 555 && line >= 100 && line <= 199)
}

// matchParenPhone: (NPA) NXX-XXXX, the trigger at "(".
func matchParenPhone(sc *scan, i int) int {
	s := sc.s
	if len(s)-i < 13 || (i > 0 && isWord(s[i-1])) || s[i+4] != ')' {
		return 0
	}
	j := i + 5
	if s[j] == ' ' {
		j++
	}
	g := readGroups(s, j)
	if !g.shape(3, 4) || g.sep == '.' || (g.end < len(s) && isWord(s[g.end])) {
		return 0
	}
	a := readGroups(s, i+1)
	if !a.shape(3) || a.end != i+4 || !validNANP(a.num(0, 3), g.num(0, 3), g.num(3, 7)) {
		return 0
	}
	sc.add(idPhone, i, g.end)
	return 0
}

// twoDigitCC are the two-digit country calling codes.
const twoDigitCC = " 20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58 " +
	"60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98 "

// ccLen returns the length of the country calling code the digits start
// with, or 0.
func ccLen(d []byte) int {
	switch {
	case len(d) < 3 || d[0] == 0:
		return 0
	case d[0] == 1 || d[0] == 7:
		return 1
	case strings.Contains(twoDigitCC, " "+string([]byte{'0' + d[0], '0' + d[1]})+" "):
		return 2
	case d[0] == 2 || d[0] == 3 || d[0] == 4 || d[0] == 5 || d[0] == 6 || d[0] == 8 || d[0] == 9:
		return 3
	}
	return 0
}

// matchIntlPhone: +CC followed by 9 to 15 digits in all, grouped by
// spaces, dashes or dots (one kind), with an optional "(0)" or "(NPA)"
// group; a compact +CCNNN... needs 10 digits or more.
func matchIntlPhone(sc *scan, i int) int {
	s := sc.s
	if i > 0 && (isWord(s[i-1]) || s[i-1] == '+') {
		return 0
	}
	if i+1 >= len(s) || !isDigit(s[i+1]) {
		return 0
	}
	var d []byte
	var buf [16]byte
	d = buf[:0]
	j := i + 1
	groupsSeen := 0
	for j < len(s) && len(d) <= 15 {
		g := readGroups(s, j)
		if g.nd == 0 {
			break
		}
		for k := 0; k < g.n; k++ {
			if g.lens[k] > 8 && (groupsSeen > 0 || k > 0) {
				return 0 // a decimal or a long number, not a subscriber group
			}
		}
		d = append(d, g.digits[:min(g.nd, 16-len(d))]...)
		groupsSeen += g.n
		j = g.end
		// "(0)", "(415)": a parenthesised group between separators.
		if k, ok := parenGroup(s, j); ok {
			if k-j != 4 || s[j+2] != '0' { // "(0)" is the trunk prefix
				for _, c := range []byte(s[j+2 : k-1]) {
					d = append(d, c-'0')
				}
			}
			groupsSeen++
			j = k
			if j < len(s) && s[j] == ' ' {
				j++
			}
			continue
		}
		if j+1 < len(s) && (s[j] == ' ' || s[j] == '-' || s[j] == '.') && isDigit(s[j+1]) {
			j++ // groups may change separators: +81 3-1234-5678, +55 11 91234-5678
			continue
		}
		break
	}
	if len(d) > 15 || (j < len(s) && isWord(s[j])) {
		return 0
	}
	cc := ccLen(d)
	if cc == 0 || len(d) < 9 || (groupsSeen == 1 && len(d) < 10) {
		return 0
	}
	if cc == 1 && d[0] == 1 && (len(d) != 11 || !validNANP(digitsNum(d[1:4]), digitsNum(d[4:7]), digitsNum(d[7:11]))) {
		return 0
	}
	sc.add(idPhone, i, j)
	return 0
}

func digitsNum(d []byte) int {
	v := 0
	for _, c := range d {
		v = v*10 + int(c)
	}
	return v
}

// dniLetters is the DNI/NIE check letter table (number mod 23).
const dniLetters = "TRWAGMYFPDXBNJZSQVHLCKE"

// parenGroup reads " (D...)" at j (one to four digits) and returns the
// position after ")".
func parenGroup(s string, j int) (int, bool) {
	if j+3 >= len(s) || s[j] != ' ' || s[j+1] != '(' {
		return 0, false
	}
	k := run(s, j+2, 4, isDigit)
	if k == j+2 || k+1 >= len(s) || s[k] != ')' || !(s[k+1] == ' ' || isDigit(s[k+1])) {
		return 0, false
	}
	return k + 1, true
}

// matchDNI: 8 digits, an optional dash or space, the check letter.
func matchDNI(sc *scan, i int, g *groups) {
	s := sc.s
	j := g.end
	if j < len(s) && (s[j] == '-' || s[j] == ' ') {
		j++
	}
	if j >= len(s) || !isUpper(s[j]) || (j+1 < len(s) && isWord(s[j+1])) {
		return
	}
	if dniLetters[g.num(0, 8)%23] == s[j] && !repetitiveDigits(g.digits[:8]) {
		sc.add(idESDNI, i, j+1)
	}
}

func repetitiveDigits(d []byte) bool {
	for _, c := range d[1:] {
		if c != d[0] {
			return false
		}
	}
	return true
}

// matchUpperID is the matcher at a capital letter starting a word: IBAN,
// UK NINO, Spanish NIE.
func matchUpperID(sc *scan, i int) int {
	s := sc.s
	if len(s)-i < 9 {
		return 0
	}
	if isUpper(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
		matchIBAN(sc, i)
	}
	if isUpper(s[i+1]) && (isDigit(s[i+2]) || s[i+2] == ' ') {
		matchNINO(sc, i)
	}
	if (s[i] == 'X' || s[i] == 'Y' || s[i] == 'Z') && isDigit(s[i+1]) {
		matchNIE(sc, i)
	}
	return 0
}

// matchNINO: two prefix letters (not D, F, I, Q, U, V; second not O; not
// BG, GB, KN, NK, NT, TN, ZZ), six digits (optionally in pairs), suffix
// A-D.
func matchNINO(sc *scan, i int) int {
	s := sc.s
	a, b := s[i], s[i+1]
	if strings.IndexByte("DFIQUV", a) >= 0 || strings.IndexByte("DFIQUVO", b) >= 0 {
		return 0
	}
	switch string([]byte{a, b}) {
	case "BG", "GB", "KN", "NK", "NT", "TN", "ZZ":
		return 0
	}
	j := i + 2
	if s[j] == ' ' {
		j++
	}
	g := readGroups(s, j)
	if !(g.shape(6) || g.shape(2, 2, 2) && g.sep == ' ') {
		return 0
	}
	k := g.end
	if k < len(s) && s[k] == ' ' {
		k++
	}
	if k >= len(s) || s[k] < 'A' || s[k] > 'D' || (k+1 < len(s) && isWord(s[k+1])) {
		return 0
	}
	sc.add(idUKNINO, i, k+1)
	return 0
}

// matchNIE: X, Y or Z, seven digits, an optional dash, the check letter
// (the leading letter counts as 0, 1 or 2).
func matchNIE(sc *scan, i int) int {
	s := sc.s
	g := readGroups(s, i+1)
	if !g.shape(7) {
		return 0
	}
	j := g.end
	if j < len(s) && s[j] == '-' {
		j++
	}
	if j >= len(s) || !isUpper(s[j]) || (j+1 < len(s) && isWord(s[j+1])) {
		return 0
	}
	n := int(s[i]-'X')*10000000 + g.num(0, 7)
	if dniLetters[n%23] == s[j] {
		sc.add(idESDNI, i, j+1)
	}
	return 0
}

// matchLabelledSSN: under an SSN label the nine digits may be undashed
// or spaced (the dashed form is found at its digits anyway).
func matchLabelledSSN(sc *scan, start int) {
	g := readGroups(sc.s, start)
	if !wordEnd(sc.s, g.end) || !(g.shape(9) || g.shape(3, 2, 4) && g.sep == ' ') {
		return
	}
	if validSSN(&g) {
		sc.add(idUSSSN, start, g.end)
	}
}

// matchLabelledSIN: nine digits (3-3-3 or plain) under a SIN label, first
// digit not 0 or 8, Luhn valid.
func matchLabelledSIN(sc *scan, start int) {
	g := readGroups(sc.s, start)
	if !wordEnd(sc.s, g.end) || !(g.shape(9) || g.shape(3, 3, 3)) || g.digits[0] == 0 || g.digits[0] == 8 {
		return
	}
	if luhn(g.digits[:9]) {
		sc.add(idCASIN, start, g.end)
	}
}

// matchMRN: a record number under its label: 5 to 20 letters, digits and
// dashes with at least 5 digits.
func matchMRN(sc *scan, start, end int) {
	v := sc.s[start:end]
	if len(v) < 5 || len(v) > 20 {
		return
	}
	for k := 0; k < len(v); k++ {
		if !isAlnum(v[k]) && v[k] != '-' {
			return
		}
	}
	if _, _, digit, _ := mix(v); digit < 5 || repetitive(v) || isPlaceholder(v) {
		return
	}
	sc.add(idMRN, start, end)
}

// matchDOBWord: "DOB" and a date with no colon between ("Dana, DOB
// 1987-03-14"): in prose the abbreviation labels what follows.
func matchDOBWord(sc *scan, i int) int {
	j := i + len("dob ")
	if e, ok := parseDate(sc.s, j); ok {
		sc.add(idDOB, j, e)
	}
	return 0
}

// matchBorn: "born" [on] <date>.
func matchBorn(sc *scan, i int) int {
	j := i + len("born ")
	if hasFold(sc.s, j, "on ") {
		j += 3
	}
	if e, ok := parseDate(sc.s, j); ok {
		sc.add(idDOB, j, e)
	}
	return 0
}
