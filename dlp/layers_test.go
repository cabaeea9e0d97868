package dlp

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// hexJoin writes s as hex pairs, each with prefix pre, joined by sep.
func hexJoin(s, pre, sep string) string {
	parts := make([]string, len(s))
	for k := 0; k < len(s); k++ {
		parts[k] = fmt.Sprintf("%s%02x", pre, s[k])
	}
	return strings.Join(parts, sep)
}

// pctAll writes every byte of s as %XX, n times over.
func pctTimes(s string, n int) string {
	var b strings.Builder
	for k := 0; k < len(s); k++ {
		fmt.Fprintf(&b, "%%%02X", s[k])
	}
	out := b.String()
	for range n - 1 {
		out = strings.ReplaceAll(out, "%", "%25")
	}
	return out
}

func reverseString(s string) string { return reversed(s) }

// Each decoder alone, on the shared path (variants): the decoded form
// must be among the variants, and look-alikes must decode to nothing.
func TestDecoders(t *testing.T) {
	b32 := base32.StdEncoding.EncodeToString([]byte(testGHTok))
	tests := []struct {
		name, in string
		want     string // a variant must contain it; "" for no variant holding text
	}{
		{"hex with dashes", hexJoin(testAWSID, "", "-"), testAWSID},
		{"hex with colons", hexJoin(testAWSID, "", ":"), testAWSID},
		{"hex with spaces", hexJoin(testAWSID, "", " "), testAWSID},
		{"hex with comma and space", hexJoin(testAWSID, "", ", "), testAWSID},
		{`hex \x`, hexJoin(testAWSID, `\x`, ""), testAWSID},
		{"hex 0x joined", hexJoin(testAWSID, "0x", ""), testAWSID},
		{"hex 0x spaced", hexJoin(testAWSID, "0x", " "), testAWSID},
		{"0x and a hex run", "0x" + hex.EncodeToString([]byte(testAWSID)), testAWSID},
		{"percent twice", pctTimes(testGHTok, 2), testGHTok},
		{"percent three times", pctTimes(testGHTok, 3), testGHTok},
		{"base64 under percent three times", pctTimes(base64.StdEncoding.EncodeToString([]byte(testGHTok)), 3), testGHTok},
		{"base32 padded", b32, testGHTok},
		{"base32 lower unpadded", strings.ToLower(strings.TrimRight(b32, "=")), testGHTok},
		{"base32 extended hex", base32.HexEncoding.EncodeToString([]byte(testGHTok)), testGHTok},
		{"base64 of hex", base64.StdEncoding.EncodeToString([]byte(hex.EncodeToString([]byte(testAWSID)))), testAWSID},
		{"percent of base64 of hex", pctTimes(base64.StdEncoding.EncodeToString([]byte(hex.EncodeToString([]byte(testAWSID)))), 1), testAWSID},
		{"zero width", splitEvery(testGHTok, "\u200b", 5), testGHTok},
		{"soft hyphen", splitEvery(testGHTok, "\u00ad", 5), testGHTok},
		{"mac address", "00:1a:2b:3c:4d:5e", ""},
		{"ssh fingerprint", "43:51:43:a1:b5:fc:8b:b7:0a:3a:a9:b1:0f:66:73:a8", ""},
		{"sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", ""},
		{"uuid", "3f2a9c1e-7b4d-4e2a-9c1f-2b3d4e5f6a7b", ""},
		{"eth tx hash", "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := variants(tt.in)
			found := false
			for _, v := range vs {
				if tt.want != "" && strings.Contains(v, tt.want) {
					found = true
				}
			}
			if tt.want == "" {
				for _, v := range vs {
					if decodedText([]byte(v)) && v != stripZeroWidth(tt.in) && !strings.ContainsAny(v, ":-") {
						t.Errorf("got variant %q, want none", v)
					}
				}
				return
			}
			if !found {
				t.Errorf("got %q, want a variant holding %q", vs, tt.want)
			}
		})
	}
}

// The same secrets through Scan (TestScanners runs these), in every
// channel's shape: a URL, a JSON body, a header value, an MCP argument.
var layerCases = []scanCase{
	{"url hex dashes", "https://c.example/c?d=" + hexJoin(testAWSID, "", "-"), []string{"encoded_url_secret"}},
	{"url hex colons", "https://c.example/c?d=" + hexJoin(testGHTok, "", ":"), []string{"encoded_url_secret"}},
	{"url hex %20", "https://c.example/c?d=" + hexJoin(testGHTok, "", "%20"), []string{"encoded_url_secret"}},
	{`url \x`, "https://c.example/c?d=" + hexJoin(testGHTok, `\x`, ""), []string{"encoded_url_secret"}},
	{"url triple percent", "https://c.example/c?d=" + pctTimes(testGHTok, 3), []string{"encoded_url_secret"}},
	{"url base32", "https://c.example/c?d=" + base32.StdEncoding.EncodeToString([]byte(testGHTok)), []string{"encoded_url_secret"}},
	{"url base32 fragment", "https://c.example/#" + base32.HexEncoding.EncodeToString([]byte(testGHTok)), []string{"encoded_url_secret"}},
	{"url reversed", "https://c.example/c?d=" + reverseString(testGHTok), []string{"encoded_url_secret"}},
	{"body hex dashes", `{"d":"` + hexJoin("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8kT3vN2p", "", "-") + `"}`, []string{"encoded_secret"}},
	{"arg hex spaces", hexJoin(testAWSID, "", " "), []string{"encoded_secret"}},
	{"arg hex comma space", "[" + hexJoin(testAWSID, "", ", ") + "]", []string{"encoded_secret"}},
	{`arg \x`, `printf '` + hexJoin(testGHTok, `\x`, "") + `'`, []string{"encoded_secret"}},
	{"arg 0x array", "{" + hexJoin(testGHTok, "0x", ", ") + "}", []string{"encoded_secret"}},
	{"arg zero width", "note: " + splitEvery(testGHTok, "\u200b", 10), []string{"encoded_secret"}},
	{"arg word joiner", "note: " + splitEvery(testGHTok, "\u2060", 7), []string{"encoded_secret"}},
	{"arg base32", base32.StdEncoding.EncodeToString([]byte(testGHTok)), []string{"encoded_secret"}},
	{"arg reversed", `{"v":"` + reverseString(testGHTok) + `"}`, []string{"encoded_secret"}},
	{"header hex", hex.EncodeToString([]byte(testGHTok)), []string{"encoded_secret"}},
	{"mac list", "macs: 00:1a:2b:3c:4d:5e, 00:1a:2b:3c:4d:5f", nil},
	{"fingerprint", "SHA256 fp 43:51:43:a1:b5:fc:8b:b7:0a:3a:a9:b1:0f:66:73:a8", nil},
	{"c byte array", "{0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00}", nil},
	{"hex text without secret", hexJoin("hello world, nothing here", "", "-"), nil},
	{"zero width prose", "a\u200bb c\u200bd", nil},
	{"url cdn sha256", "https://cdn.example.com/dist/e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.js", nil},
	{"url base32 of words", "https://c.example/" + base32.StdEncoding.EncodeToString([]byte("just some ordinary words")), nil},
}

// Bounds: more layers than layerDepth are not undone, and the forms of
// one input stay within layerMaxVariants and layerMaxBytes.
func TestVariantsBounded(t *testing.T) {
	// Four layers of base64: one more than the documented depth of 3.
	deep := testAWSID
	for range 4 {
		deep = base64.StdEncoding.EncodeToString([]byte(deep))
	}
	total := 0
	vs := variants(deep)
	for _, v := range vs {
		total += len(v)
		if strings.Contains(v, testAWSID) {
			t.Errorf("got the key after 4 layers, want at most 3 undone")
		}
	}
	if len(vs) > layerMaxVariants || total > layerMaxBytes {
		t.Errorf("got %d variants of %d bytes, want at most %d and %d", len(vs), total, layerMaxVariants, layerMaxBytes)
	}
	var segs []string // 40 segments of base32, each decoding to different text
	for k := range 40 {
		segs = append(segs, base32.StdEncoding.EncodeToString([]byte(fmt.Sprintf("%03d ", k)+strings.Repeat("ab", 1200))))
	}
	big := strings.Join(segs, "/")
	total = 0
	vs = variants(big)
	for _, v := range vs {
		total += len(v)
	}
	if len(vs) > layerMaxVariants || total > layerMaxBytes {
		t.Errorf("got %d variants of %d bytes, want at most %d and %d", len(vs), total, layerMaxVariants, layerMaxBytes)
	}
}
