package dlp

import (
	"bytes"
	"strings"
)

// Assignments: "name = value", "name: value", `"name": "value"`,
// "name := value", "name => value", "Name=value;" (connection strings),
// "?name=value" (query strings) and "Label: value" (forms, records). One
// matcher reads the label before the operator and the value after it, and
// the label decides which scanner judges the value. Labels are compared
// normalised: lowercase, letters and digits only ("DB_PASSWORD",
// "db.password" and "dbPassword" are all "dbpassword").

// labelKind is what a label announces.
type labelKind uint8

const (
	labelNone labelKind = iota
	labelSecret
	labelAWSSecret
	labelAzureKey
	labelDOB
	labelSSN
	labelSIN
	labelMRN
	labelClassification
)

// labelSuffixes maps label endings to kinds, checked in order (the first
// match wins, so longer, more specific endings come first).
var labelSuffixes = [...]struct {
	suffix string
	kind   labelKind
}{
	{"secretaccesskey", labelAWSSecret}, {"awssecretkey", labelAWSSecret}, {"awssecret", labelAWSSecret},
	{"accountkey", labelAzureKey}, {"storagekey", labelAzureKey},
	{"dateofbirth", labelDOB}, {"birthdate", labelDOB}, {"birthday", labelDOB}, {"dob", labelDOB},
	{"geburtsdatum", labelDOB}, {"fechadenacimiento", labelDOB}, {"datedenaissance", labelDOB},
	{"socialsecuritynumber", labelSSN}, {"socialsecurityno", labelSSN}, {"ssn", labelSSN},
	{"socialinsurancenumber", labelSIN}, {"socialinsuranceno", labelSIN},
	{"medicalrecordnumber", labelMRN}, {"medicalrecordno", labelMRN}, {"mrn", labelMRN},
	{"patientid", labelMRN}, {"patientnumber", labelMRN}, {"patientno", labelMRN}, {"chartnumber", labelMRN},
	{"dataclassification", labelClassification}, {"securityclassification", labelClassification},
	{"classification", labelClassification}, {"sensitivitylabel", labelClassification},
	{"sensitivity", labelClassification}, {"confidentiality", labelClassification},
	{"password", labelSecret}, {"passwd", labelSecret}, {"pwd", labelSecret}, {"passphrase", labelSecret},
	{"secret", labelSecret}, {"secretkey", labelSecret}, {"apikey", labelSecret}, {"token", labelSecret},
	{"privatekey", labelSecret}, {"accesskey", labelSecret}, {"signingkey", labelSecret},
	{"encryptionkey", labelSecret}, {"masterkey", labelSecret}, {"authkey", labelSecret},
	{"credential", labelSecret}, {"credentials", labelSecret},
}

// exactLabels are whole labels too short to match as endings.
var exactLabels = [...]struct {
	label string
	kind  labelKind
}{
	{"sin", labelSIN}, {"sinno", labelSIN}, {"sinnumber", labelSIN}, {"nas", labelSIN},
	{"born", labelDOB},
}

// notSecretLabels end like secret labels but name something public or
// structural.
var notSecretLabels = [...]string{"public", "publishable", "pagetoken", "nexttoken",
	"continuationtoken", "synctoken", "cancellationtoken", "tokentype", "secretname", "secretref"}

// suffixesByEnd indexes labelSuffixes (positions, in order) by their last
// byte: most labels in code end otherwise and cost one load.
var suffixesByEnd = func() (t [256][]uint8) {
	for k, e := range labelSuffixes {
		c := e.suffix[len(e.suffix)-1]
		t[c] = append(t[c], uint8(k))
	}
	return t
}()

// classifyLabel returns the kind of a normalised label. A trailing "is"
// is dropped ("your new password is: ...").
func classifyLabel(n []byte) labelKind {
	if len(n) > 4 && bytes.HasSuffix(n, []byte("is")) {
		n = n[:len(n)-2]
	}
	if len(n) == 0 {
		return labelNone
	}
	for _, e := range exactLabels {
		if string(n) == e.label {
			return e.kind
		}
	}
	for _, k := range suffixesByEnd[n[len(n)-1]] {
		e := &labelSuffixes[k]
		if !bytes.HasSuffix(n, []byte(e.suffix)) {
			continue
		}
		if e.kind == labelSecret || e.kind == labelAWSSecret {
			for _, x := range notSecretLabels {
				if bytes.Contains(n, []byte(x)) {
					return labelNone
				}
			}
		}
		return e.kind
	}
	return labelNone
}

// maxLabel bounds the label read before an operator.
const maxLabel = 40

func isLabelByte(c byte) bool { return isWord(c) || c == '.' || c == '-' }

// labelBefore reads the label ending before the operator at i: an
// identifier, a dotted or dashed name, or up to four words ("Date of
// Birth"), after an optional closing quote. It writes the normalised
// label (lowercase alphanumerics) to buf and returns its length and where
// the label starts.
func labelBefore(s string, i int, buf *[maxLabel]byte) (int, int) {
	j := i
	for j > 0 && i-j < 4 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'' || s[j-1] == '`' || s[j-1] == ']') {
		j--
	}
	end := j
	words := 1
	for j > 0 && end-j < maxLabel {
		c := s[j-1]
		if c == ' ' && j > 1 && isLabelByte(s[j-2]) && words < 4 && end-j > 0 {
			words++
			j--
			continue
		}
		if !isLabelByte(c) {
			break
		}
		j--
	}
	if j == end || end-j >= maxLabel {
		return 0, j
	}
	n := 0
	for k := j; k < end; k++ {
		if c := s[k]; isAlnum(c) {
			buf[n] = toLower(c)
			n++
		}
	}
	return n, j
}

// operatorEnd returns where the value starts after the operator at i, or
// 0 when the byte at i is not an assignment (comparisons, "::", "://",
// the second byte of ":=").
func operatorEnd(s string, i int) int {
	next := byte(0)
	if i+1 < len(s) {
		next = s[i+1]
	}
	prev := byte(0)
	if i > 0 {
		prev = s[i-1]
	}
	if s[i] == ':' {
		switch {
		case next == ':' || prev == ':' || next == '/' && i+2 < len(s) && s[i+2] == '/':
			return 0
		case next == '=':
			return i + 2
		}
		return i + 1
	}
	switch {
	case next == '=' || strings.IndexByte("=!<>:+-*/%&|^~", prev) >= 0 && prev != 0:
		return 0
	case next == '>':
		return i + 2
	}
	return i + 1
}

// maxValue bounds an assigned value; longer values are not judged.
const maxValue = 256

// valueAfter reads the value from j: spaces, then a quoted string (to the
// closing quote on the same line) or a bare token. It reports the span
// and whether the value was quoted.
func valueAfter(s string, j int) (start, end int, quoted bool) {
	for n := 0; j < len(s) && n < 8 && (s[j] == ' ' || s[j] == '\t'); n++ {
		j++
	}
	if j < len(s) && (s[j] == '"' || s[j] == '\'' || s[j] == '`') {
		q := s[j]
		for k := j + 1; k < len(s) && k <= j+maxValue+1; k++ {
			if s[k] == q {
				return j + 1, k, true
			}
			if s[k] == '\n' {
				break
			}
		}
		return j + 1, j + 1, true
	}
	k := j
	for k < len(s) && k <= j+maxValue && !isValueStop(s[k]) {
		k++
	}
	return j, k, false
}

// valueStops ends a bare value: whitespace, quotes, separators and
// closing brackets, and the backslash of an escaped line break.
var valueStops = func() (t [256]bool) {
	for c := 0; c <= ' '; c++ {
		t[c] = true
	}
	for _, c := range []byte("\"'`,;&<>)]}\\") {
		t[c] = true
	}
	return t
}()

func isValueStop(c byte) bool { return valueStops[c] }

// matchAssignment is the matcher at "=" and ":".
func matchAssignment(sc *scan, i int) int {
	s := sc.s
	vs := operatorEnd(s, i)
	if vs == 0 {
		return 0
	}
	var buf [maxLabel]byte
	n, lstart := labelBefore(s, i, &buf)
	label := buf[:n]
	kind := classifyLabel(label)
	if kind == labelNone {
		return 0
	}
	start, end, quoted := valueAfter(s, vs)
	if start >= end && kind != labelDOB {
		return 0
	}
	switch kind {
	case labelSecret, labelAWSSecret, labelAzureKey:
		judgeSecret(sc, kind, label, lstart, start, end, quoted)
	case labelDOB:
		if e, ok := parseDate(s, start); ok {
			sc.add(idDOB, start, e)
		}
	case labelSSN:
		matchLabelledSSN(sc, start)
	case labelSIN:
		matchLabelledSIN(sc, start)
	case labelMRN:
		matchMRN(sc, start, end)
	case labelClassification:
		matchClassification(sc, start, end)
	}
	return 0
}

// judgeSecret decides which credential scanner, if any, a value under a
// secret label belongs to.
func judgeSecret(sc *scan, kind labelKind, label []byte, lstart, start, end int, quoted bool) {
	v := sc.s[start:end]
	if len(v) > maxValue {
		return
	}
	switch {
	case kind == labelAWSSecret && len(v) == 40 && awsSecretShape(v):
		sc.add(idAWSSecretKey, start, end)
	case kind == labelAzureKey && len(v) == 88 && strings.HasSuffix(v, "==") && azureKeyShape(v):
		sc.add(idAzureStorageKey, start, end)
	case kind == labelAzureKey:
		return
	case (string(label) == "password" || string(label) == "pwd") && !weakValue(v) &&
		inConnString(sc.s, lstart):
		sc.add(idConnString, start, end)
	case generatedValue(v, quoted) && !namesLabel(v, label):
		sc.add(idGenericSecret, start, end)
	}
}

// awsSecretShape: 40 bytes of base64 with upper, lower and digits, not
// AWS's documentation key.
func awsSecretShape(v string) bool {
	for i := 0; i < len(v); i++ {
		if !isB64(v[i]) {
			return false
		}
	}
	lower, upper, digit, _ := mix(v)
	return lower > 0 && upper > 0 && digit > 0 && !filler(v)
}

// azuriteKey is the storage emulator's published account key.
const azuriteKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

func azureKeyShape(v string) bool {
	for i := 0; i < 86; i++ {
		if !isB64(v[i]) {
			return false
		}
	}
	return v != azuriteKey && !filler(v[:86]) && entropy(v) > 4.5
}

// connStringKeys mark a line as an ADO/ODBC-style connection string.
var connStringKeys = [...]string{"server=", "data source=", "host=", "user id=", "uid=",
	"database=", "initial catalog=", "dsn=", "hostname="}

// inConnString reports whether the line before position j holds a
// connection-string key.
func inConnString(s string, j int) bool {
	k := j
	for k > 0 && j-k < 512 && s[k-1] != '\n' {
		k--
	}
	for _, key := range connStringKeys {
		if containsFold(s[k:j], key) {
			return true
		}
	}
	return false
}

// generatedValue reports whether a value under a secret label reads as a
// real secret: 8 to 256 bytes, letters plus digits or symbols, enough
// entropy, and not a placeholder, a reference, a path, a URL, code or an
// identifier.
func generatedValue(v string, quoted bool) bool {
	if len(v) < 8 || len(v) > maxValue {
		return false
	}
	lead := "$<{%*[(@&/.~"
	if !quoted {
		lead += "#!|>"
	}
	if strings.IndexByte(lead, v[0]) >= 0 || strings.Contains(v, "://") ||
		strings.ContainsAny(v, "()[]{} ") || isPlaceholder(v) || filler(v) || identifierLike(v) {
		return false
	}
	lower, upper, digit, other := mix(v)
	if lower+upper == 0 || digit+other == 0 {
		return false
	}
	h := entropy(v)
	if len(v) < 12 {
		return h >= 2.75
	}
	return h >= 3.0
}

// namesLabel reports whether the value spells the label's last part
// ("encryptionKey": "encryptionKey1024"): a name for the value, not the
// value.
func namesLabel(v string, label []byte) bool {
	var buf [maxValue]byte
	n := 0
	for i := 0; i < len(v); i++ {
		if isAlnum(v[i]) {
			buf[n] = toLower(v[i])
			n++
		}
	}
	tail := label[max(0, len(label)-8):]
	return len(tail) >= 3 && bytes.Contains(buf[:n], tail)
}

// identifierLike reports whether v is a dotted or colon-separated name
// ("settings.db.password2", "GID:user_list") or an upper-case constant
// name: a reference to a value, not the value.
func identifierLike(v string) bool {
	dotted, upperConst := true, true
	partStart := true
	for i := 0; i < len(v); i++ {
		c := v[i]
		sep := c == '.' || c == ':'
		dotted = dotted && (isAlpha(c) || c == '_' || sep || isDigit(c) && !partStart)
		upperConst = upperConst && (isUpper(c) || c == '_' || (isDigit(c) && i > 0))
		partStart = sep
	}
	return dotted && strings.ContainsAny(v, ".:") || upperConst && strings.Contains(v, "_")
}
