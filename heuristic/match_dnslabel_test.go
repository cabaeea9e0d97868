package heuristic

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
)

func TestLabelDecodes(t *testing.T) {
	text := []byte("user=dev;host=build-01;k=v")
	tests := []struct {
		name  string
		label string
		want  bool
	}{
		{"hex of text", hex.EncodeToString(text), true},
		{"base32 of text", strings.TrimRight(strings.ToLower(base32.StdEncoding.EncodeToString(text)), "="), true},
		{"base64url of text", base64.RawURLEncoding.EncodeToString(text), true},
		{"sha1 hex", "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3", false},
		{"words", "myapp-git-feature-login-acme", false},
		{"uuid", "1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := labelDecodes(tt.label); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEachDataLabel(t *testing.T) {
	tests := []struct {
		host string
		want []string
	}{
		{"a.b.evil.example", []string{"a", "b"}},
		{"evil.example", nil},
		{"x.y.s3.amazonaws.com", nil},
		{"203.0.113.5", nil},
		{"4.3.2.1.in-addr.arpa", nil},
		{"a.b.c.d.e.f.g.h.i.j.k.example", []string{"a", "b", "c", "d", "e", "f", "g", "h"}},
		{"0123456789.abcdefghij.evil.example", []string{"0123456789", "abcdefghij", "0123456789abcdefghij"}},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			var got []string
			eachDataLabel(tt.host, func(l string, _ bool) bool { got = append(got, l); return false })
			if strings.Join(got, ".") != strings.Join(tt.want, ".") {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFindFinancial(t *testing.T) {
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"card dashed", "use 5281-7304-9261-7353", true},
		{"iban", "iban=GB23NWBK60161341926851", true},
		{"card bad luhn", "order 4532019384762519", false},
		{"iban bad check", "iban DE45500105175407324931", false},
		{"eth address", "to 0x52908400098527886E0F7030069857D2E4169EE7", false},
		{"short", "card", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, got := findFinancial(tt.text); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDNSChainLookalikes measures the chain and joined-label thresholds on
// host names that exist in ordinary work, and on names that carry data.
func TestDNSChainLookalikes(t *testing.T) {
	benign := []string{
		"github.com", "api.github.com", "objects.githubusercontent.com",
		"my-very-long-project-name-preview-branch.staging.eu-west-1.example-platform.com",
		"api.prod.us-east-1.k8s.corp.example.com",
		"prod-eu-west-1-public-alb-123456789.eu-west-1.elb.amazonaws.com",
		"d1a2b3c4d5e6f7.cloudfront.net",
		"_acme-challenge.www.example.org", "_sip._tcp.example.org",
		"b.a.9.8.7.6.5.0.4.0.0.0.3.0.0.0.2.0.0.0.1.0.0.0.0.0.0.0.1.2.3.4.ip6.arpa",
		"1.0.0.127.in-addr.arpa", "203.0.113.5",
		"my-svc.my-namespace.svc.cluster.local",
		"www.bbc.co.uk", "news.bbc.co.uk",
		"1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b.cfargotunnel.com",
		"fonts.gstatic.com", "us-central1-docker.pkg.dev",
	}
	data := hex.EncodeToString([]byte("db password hunter2 for prod"))
	random := "q7x9k2m4p8w3r6t1y5u0i2o4p6a8s0d2f4g6h8j0"
	attacks := []string{
		strings.Join(chunk(data, 8), ".") + ".evil.example",
		strings.Join(chunk(strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte("user=dev;host=build-01;k=v"))), 12), ".") + ".evil.example",
		strings.Join(chunk(random, 14), ".") + ".evil.example",
		strings.Join(chunk(random+random, 6), ".") + ".t.evil.example",
		strings.Repeat("abcdefghij.", 11) + "evil.example",
	}
	fires := func(host string) (string, bool) {
		in := &Input{Action: &action.Action{Type: action.HTTPRequest,
			Payload: &action.HTTPRequestPayload{Method: "GET", URL: "https://" + host + "/"}}}
		for _, m := range []func(*Input) (string, bool){matchDNSLabelData, matchDNSLabelEntropy, matchDNSLabelChain} {
			if d, ok := m(in); ok {
				return d, true
			}
		}
		return "", false
	}
	for _, h := range benign {
		if d, ok := fires(h); ok {
			t.Errorf("%s: got %q, want nothing", h, d)
		}
	}
	for _, h := range attacks {
		if _, ok := fires(h); !ok {
			t.Errorf("%s: got nothing, want a finding", h)
		}
	}
}

func chunk(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}
