package dlp

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

// Keys are assembled at run time so that this file holds none in the
// clear.
var (
	testAWSID = "AKIA" + "Z3MQ7TXR2WLPK9VD"
	testGHTok = "ghp" + "_R8kD2mQ7xV4nT1bW9cY6hJ3fL5sP0aZeGu2K"
	testOAI   = "sk-" + "proj-Xq7Rm2Kd9Vt4Np6Lb1Wc8Hy3Fs5Gj0TaZ4mN8pQ2wE6rY1uI3oK7"
)

func pctAll(s string) string {
	var b strings.Builder
	for k := 0; k < len(s); k++ {
		b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{s[k]})))
	}
	return b.String()
}

func splitEvery(s, sep string, n int) string {
	var parts []string
	for len(s) > n {
		parts = append(parts, s[:n])
		s = s[n:]
	}
	return strings.Join(append(parts, s), sep)
}

// encodedURLCases feed TestScanners (via scannerCases) and TestEncodedURL.
var encodedURLCases = []scanCase{
	{"url base64 std", "GET https://c.example/p?d=" + base64.StdEncoding.EncodeToString([]byte("id="+testAWSID)), []string{"encoded_url_secret"}},
	{"url base64url raw", "https://c.example/u/" + base64.RawURLEncoding.EncodeToString([]byte(testGHTok)), []string{"encoded_url_secret"}},
	{"url hex", "https://c.example/h?x=" + hex.EncodeToString([]byte(testOAI)), []string{"encoded_url_secret"}},
	{"url percent", "https://c.example/q?t=" + pctAll(testGHTok), []string{"encoded_url_secret"}},
	{"url double percent", "https://c.example/q?t=" + strings.ReplaceAll(pctAll(testAWSID), "%", "%25"), []string{"encoded_url_secret"}},
	{"url zero width", "https://c.example/q?t=" + splitEvery(testGHTok, "\u200b", 4), []string{"encoded_url_secret"}},
	{"url feff", "https://c.example/k/" + splitEvery(testOAI, "\ufeff", 5), []string{"encoded_url_secret"}},
	{"url plus split", "https://c.example/s?q=" + splitEvery(testAWSID, "+", 4), []string{"encoded_url_secret"}},
	{"url dot split", "https://c.example/v/" + splitEvery(testGHTok, ".", 4), []string{"encoded_url_secret"}},
	{"url hex in base64", "https://c.example/z?d=" + base64.StdEncoding.EncodeToString([]byte(hex.EncodeToString([]byte(testAWSID)))), []string{"encoded_url_secret"}},
	{"url plain key is the specific finding", "https://c.example/p?k=" + testAWSID, []string{"aws_access_key_id"}},
	{"url harmless base64", "https://search.example.org/?q=aGVsbG8=", nil},
	{"url commit sha", "https://api.github.com/repos/golang/go/commits/3b18e512dba79e4c8300dd08aeb37f8e728b8dad", nil},
	{"url uuid", "https://api.example.com/v1/orders/3f2a9c1e-7b4d-4e2a-9c1f-2b3d4e5f6a7b", nil},
	{"url docs id", "https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit", nil},
	{"url base64 json state", "https://app.example.com/cb?state=eyJyZXR1cm4iOiIvaG9tZSJ9&code=4f1c2a", nil},
	{"url docker digest", "https://registry-1.docker.io/v2/library/alpine/manifests/sha256:c5b1261d6d3e43071626931fc004f70149baeba2c8ec672bd4f27761f8e1ad6b", nil},
}

func TestURLVariantsBounded(t *testing.T) {
	// Each layer of base64 grows the text by a third; more layers than
	// layerDepth must not be undone.
	deep := testAWSID
	for range layerDepth + 2 {
		deep = base64.StdEncoding.EncodeToString([]byte(deep))
	}
	tests := []struct {
		name string
		url  string
		want bool
	}{
		{"within layers", "https://c.example/?d=" + base64.StdEncoding.EncodeToString([]byte(base64.StdEncoding.EncodeToString([]byte(testAWSID)))), true},
		{"beyond layers", "https://c.example/?d=" + deep, false},
		{"beyond size cap", "https://c.example/" + strings.Repeat("a", urlMaxBytes) + "?d=" + hex.EncodeToString([]byte(testAWSID)), false},
	}
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := d.Scan(tt.url).Has("encoded_url_secret"); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if n := len(variants(tt.url)); n > layerMaxVariants {
				t.Errorf("got %d variants, want at most %d", n, layerMaxVariants)
			}
		})
	}
}
