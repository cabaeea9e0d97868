package dlp

import (
	"encoding/base64"
	"strings"
)

// Matchers for credentials with a recognisable format: a fixed prefix, a
// charset and a length, sometimes an internal structure (JWT header,
// Basic "user:password"). Documented example values and template filler
// ("xxxx", "0000", "EXAMPLE") are not secrets.

// maxKeyBody bounds the bytes read for one private key block.
const maxKeyBody = 64 << 10

// matchPrivateKey finds "-----BEGIN <label>-----" with PRIVATE KEY in the
// label and at least 64 bytes of base64 body (a bare header in code or
// docs is not a key). The span runs to the END line when there is one.
func matchPrivateKey(sc *scan, i int) int {
	s := sc.s
	h := i + len("-----BEGIN ")
	e := strings.Index(s[h:min(len(s), h+48)], "-----")
	if e < 0 || !strings.Contains(s[h:h+e], "PRIVATE KEY") {
		return 0
	}
	n, stop := keyBody(s, h+e+5)
	if n < 64 {
		return 0
	}
	end := stop
	if has(s, stop, "-----END ") {
		if f := strings.Index(s[stop+9:min(len(s), stop+57)], "-----"); f >= 0 {
			end = stop + 9 + f + 5
		}
	}
	sc.add(idPrivateKey, i, end)
	return end
}

// keyBody reads a PEM/PGP body from j: header lines ("Proc-Type: ..."),
// base64 lines and line breaks, also JSON-escaped ones ("\n"). It returns
// the count of base64 bytes and where the body stops.
func keyBody(s string, j int) (n, stop int) {
	limit := min(len(s), j+maxKeyBody)
	lineStart := true
	for j < limit {
		c := s[j]
		switch {
		case c == '\n' || c == '\r' || c == ' ' || c == '\t':
			lineStart = lineStart || c == '\n'
			j++
		case c == '\\' && j+1 < limit && (s[j+1] == 'n' || s[j+1] == 'r'):
			lineStart = true
			j += 2
		case lineStart && isHeaderLine(s, j, limit):
			for j < limit && s[j] != '\n' && s[j] != '\\' {
				j++
			}
		case isB64(c) || c == '=':
			lineStart = false
			n++
			j++
		default:
			return n, j
		}
	}
	return n, j
}

// isHeaderLine reports whether the line at j is "Name: value".
func isHeaderLine(s string, j, limit int) bool {
	k := run(s, j, 32, func(c byte) bool { return isAlnum(c) || c == '-' })
	return k > j && k < limit && s[k] == ':'
}

// filler reports whether a fixed-format token is template filler rather
// than a generated value.
func filler(v string) bool {
	if repetitive(v) {
		return true
	}
	for _, f := range [...]string{"xxxx", "XXXX", "0000", "1234", "abcd", "ABCD", "EXAMPLE", "example", "****", "...."} {
		if strings.Contains(v, f) {
			return true
		}
	}
	return false
}

// token reads bytes of set from j (at most limit) and reports the end
// and whether the token stops at a boundary (not followed by more of set).
func token(s string, j, limit int, set func(byte) bool) (end int, bounded bool) {
	end = run(s, j, limit+1, set)
	return end, end-j <= limit && (end >= len(s) || !set(s[end]))
}

func isUpperDigit(c byte) bool { return isUpper(c) || isDigit(c) }

// matchAWSKeyID: AKIA/ASIA/ABIA/ACCA + 16 [A-Z0-9]. Keys ending in
// EXAMPLE are AWS's documentation keys. All-letter candidates need the
// entropy of a random id (not a 20-letter word).
func matchAWSKeyID(sc *scan, i int) int {
	s := sc.s
	end, ok := token(s, i+4, 16, isUpperDigit)
	if !ok || end-i != 20 || (end < len(s) && isAlnum(s[end])) {
		return 0
	}
	v := s[i:end]
	if strings.HasSuffix(v, "EXAMPLE") || filler(v[4:]) {
		return 0
	}
	_, _, digit, _ := mix(v[4:])
	if digit == 0 && entropy(v[4:]) < 3.4 {
		return 0
	}
	sc.add(idAWSAccessKeyID, i, end)
	return 0
}

// fixedToken records id when exactly n bytes of set follow the prefix at
// i+p and the token is not filler.
func fixedToken(sc *scan, id scannerID, i, p, n int, set func(byte) bool) {
	end, ok := token(sc.s, i+p, n, set)
	if !ok || end-i-p != n || filler(sc.s[i+p:end]) {
		return
	}
	sc.add(id, i, end)
}

// minToken records id when at least lo and at most hi bytes of set follow
// the prefix at i+p, and the token has the entropy of a generated value.
func minToken(sc *scan, id scannerID, i, p, lo, hi int, set func(byte) bool) {
	end, ok := token(sc.s, i+p, hi, set)
	v := sc.s[i+p : end]
	if !ok || len(v) < lo || filler(v) || entropy(v) < 3.0 {
		return
	}
	sc.add(id, i, end)
}

// matchGCPAPIKey: AIza + 35 base64url bytes.
func matchGCPAPIKey(sc *scan, i int) int {
	fixedToken(sc, idGCPAPIKey, i, 4, 35, isURLSafe)
	return 0
}

// matchGCPOAuthSecret: GOCSPX- + 28 base64url bytes.
func matchGCPOAuthSecret(sc *scan, i int) int {
	fixedToken(sc, idGCPOAuthSecret, i, 7, 28, isURLSafe)
	return 0
}

func isAzureSecretByte(c byte) bool { return isWord(c) || c == '~' || c == '.' || c == '-' }

// matchAzureClientSecret: 3 bytes, a digit, "Q~", 31 to 34 bytes, from
// [A-Za-z0-9_~.-] (the Entra ID client secret layout).
func matchAzureClientSecret(sc *scan, i int) int {
	s := sc.s
	if i < 4 || !isDigit(s[i-1]) {
		return 0
	}
	start := i - 4
	for k := start; k < i-1; k++ {
		if !isAzureSecretByte(s[k]) || s[k] == '-' {
			return 0
		}
	}
	if start > 0 && isAzureSecretByte(s[start-1]) {
		return 0
	}
	end, ok := token(s, i+2, 34, isAzureSecretByte)
	for end > i+2 && s[end-1] == '.' { // a sentence-ending dot
		end--
		ok = true
	}
	if n := end - i - 2; !ok || n < 31 || n > 34 || filler(s[i+2:end]) {
		return 0
	}
	sc.add(idAzureClientSecret, start, end)
	return 0
}

// matchGitHub: gh[pousr]_ + 36 alphanumerics.
func matchGitHub(sc *scan, i int) int {
	s := sc.s
	if len(s)-i < 4 || s[i+3] != '_' || !strings.ContainsRune("pousr", rune(s[i+2])) {
		return 0
	}
	end, ok := token(s, i+4, 36, isAlnum)
	if !ok || end-i-4 != 36 || (end < len(s) && s[end] == '_') || filler(s[i+4:end]) {
		return 0
	}
	sc.add(idGitHubToken, i, end)
	return 0
}

// matchGitHubPAT: github_pat_ + 22 alphanumerics + "_" + 59 alphanumerics.
func matchGitHubPAT(sc *scan, i int) int {
	s := sc.s
	j := i + len("github_pat_")
	end, ok := token(s, j, 82, isWord)
	if !ok || end-j != 82 || s[j+22] != '_' || filler(s[j:end]) {
		return 0
	}
	sc.add(idGitHubToken, i, end)
	return 0
}

var gitlabPrefixes = [...]string{"glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-", "glft-"}

func isGitLabByte(c byte) bool { return isURLSafe(c) || c == '.' }

// matchGitLab: a GitLab token prefix + 20 or more [A-Za-z0-9_.-].
func matchGitLab(sc *scan, i int) int {
	for _, p := range gitlabPrefixes {
		if has(sc.s, i, p) {
			end, _ := token(sc.s, i+len(p), 160, isGitLabByte)
			for end > i+len(p) && sc.s[end-1] == '.' {
				end--
			}
			v := sc.s[i+len(p) : end]
			if len(v) >= 20 && !filler(v) && !isPlaceholder(v) && entropy(v) >= 3.0 {
				sc.add(idGitLabToken, i, end)
			}
			return 0
		}
	}
	return 0
}

// matchSlackToken: xox[abposre]- or xapp- + 20 or more [A-Za-z0-9-] with
// at least two dash-separated groups and digits (Slack's layout).
func matchSlackToken(sc *scan, i int) int {
	s := sc.s
	j := i + 5
	if has(s, i, "xox") && (len(s)-i < 5 || s[i+4] != '-' || !strings.ContainsRune("abposre", rune(s[i+3]))) {
		return 0
	}
	end, ok := token(s, j, 255, func(c byte) bool { return isAlnum(c) || c == '-' })
	v := s[j:end]
	if !ok || len(v) < 20 || strings.Count(v, "-") < 2 || filler(v) || isPlaceholder(v) {
		return 0
	}
	if _, _, digit, _ := mix(v); digit < 4 {
		return 0
	}
	sc.add(idSlackToken, i, end)
	return 0
}

// matchSlackWebhook: hooks.slack.com/services/T.../B.../secret or
// hooks.slack.com/workflows/...; the span includes the scheme.
func matchSlackWebhook(sc *scan, i int) int {
	s := sc.s
	j := i + len("hooks.slack.com/")
	switch {
	case has(s, j, "services/"):
		j += len("services/")
	case has(s, j, "workflows/"):
		j += len("workflows/")
	default:
		return 0
	}
	end, _ := token(s, j, 160, func(c byte) bool { return isAlnum(c) || c == '/' })
	rest := s[j:end]
	parts := strings.Split(strings.TrimRight(rest, "/"), "/")
	if len(parts) < 3 || len(parts[len(parts)-1]) < 20 || filler(rest) || strings.Contains(rest, "XXX") {
		return 0
	}
	start := i
	if i >= 8 && has(s, i-8, "https://") {
		start = i - 8
	}
	sc.add(idSlackWebhook, start, end)
	return 0
}

// matchStripe: sk_live_/rk_live_ + 24 or more alphanumerics, whsec_ + 32
// or more base64. Test-mode keys (sk_test_) reach no real money or
// customer and Stripe publishes them in docs; publishable keys (pk_) are
// public by design: neither is reported.
func matchStripe(sc *scan, i int) int {
	if sc.s[i] == 'w' {
		minToken(sc, idStripeKey, i, 6, 32, 128, func(c byte) bool { return isB64(c) || c == '=' })
		return 0
	}
	minToken(sc, idStripeKey, i, 8, 24, 247, isAlnum)
	return 0
}

// anthropicKinds are the key kinds after "sk-ant-".
var anthropicKinds = [...]string{"api", "admin", "oat", "sid"}

// matchSKDash tells Anthropic keys (sk-ant-<kind>NN- + 80 or more
// base64url) from OpenAI keys (sk-proj-/sk-svcacct-/sk-admin-/sk-None- +
// 40 or more base64url, or any sk- key carrying the "T3BlbkFJ" marker).
func matchSKDash(sc *scan, i int) int {
	s := sc.s
	if has(s, i, "sk-ant-") {
		j := i + 7
		for _, k := range anthropicKinds {
			if has(s, j, k) && len(s) > j+len(k)+2 && isDigit(s[j+len(k)]) && isDigit(s[j+len(k)+1]) && s[j+len(k)+2] == '-' {
				minToken(sc, idAnthropicKey, i, 7+len(k)+3, 80, 160, isURLSafe)
				return 0
			}
		}
		return 0
	}
	for _, p := range [...]string{"sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-"} {
		if has(s, i, p) {
			minToken(sc, idOpenAIKey, i, len(p), 40, 256, isURLSafe)
			return 0
		}
	}
	end, ok := token(s, i+3, 64, isURLSafe) // legacy keys: 48 bytes
	if ok && end-i-3 >= 40 && strings.Contains(s[i+3:end], "T3BlbkFJ") {
		sc.add(idOpenAIKey, i, end)
	}
	return 0
}

// matchNPM: npm_ + 36 alphanumerics.
func matchNPM(sc *scan, i int) int {
	fixedToken(sc, idNPMToken, i, 4, 36, isAlnum)
	return 0
}

// matchPyPI: pypi-AgE + 60 or more base64url (a macaroon for pypi.org).
func matchPyPI(sc *scan, i int) int {
	minToken(sc, idPyPIToken, i, 8, 60, 512, isURLSafe)
	return 0
}

// matchSendGrid: SG. + 22 base64url + "." + 43 base64url.
func matchSendGrid(sc *scan, i int) int {
	s := sc.s
	a, _ := token(s, i+3, 22, isURLSafe)
	if a-i-3 != 22 || a >= len(s) || s[a] != '.' {
		return 0
	}
	end, ok := token(s, a+1, 43, isURLSafe)
	if !ok || end-a-1 != 43 || filler(s[i+3:end]) {
		return 0
	}
	sc.add(idSendGridKey, i, end)
	return 0
}

// matchJWT: three base64url segments whose header decodes to a JSON
// object naming "alg" and whose payload decodes to a JSON object. The
// signature may be empty (alg none).
// jwtMinSignature is the shortest signature a JWT that proves something
// has: HMAC-SHA256 is 43 base64url characters, the smallest ECDSA more.
const jwtMinSignature = 16

func matchJWT(sc *scan, i int) int {
	s := sc.s
	if i > 0 && s[i-1] == '-' {
		return 0
	}
	h, _ := token(s, i, 2048, isURLSafe)
	if h-i < 10 || h >= len(s) || s[h] != '.' {
		return 0
	}
	p, _ := token(s, h+1, 16<<10, isURLSafe)
	if p-h-1 < 10 || p >= len(s) || s[p] != '.' {
		return 0
	}
	end, _ := token(s, p+1, 2048, isURLSafe)
	if end-p-1 < jwtMinSignature {
		return 0 // unsecured (alg "none", RFC 7519 section 6): it proves nothing
	}
	hdr, ok := decodeB64URL(s[i:h])
	if !ok || !strings.Contains(hdr, `"alg"`) {
		return 0
	}
	if body, ok := decodeB64URL(s[h+1 : min(p, h+1+64)]); !ok || !strings.HasPrefix(strings.TrimLeft(body, " \t\r\n"), "{") {
		return 0
	}
	sc.add(idJWT, i, end)
	return end
}

// decodeB64URL decodes base64url without padding, ignoring a trailing
// partial quantum; it reports whether the text starts with '{'.
func decodeB64URL(v string) (string, bool) {
	v = v[:len(v)-len(v)%4]
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil || len(b) == 0 || b[0] != '{' {
		return "", false
	}
	return string(b), true
}
