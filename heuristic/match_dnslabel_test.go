package heuristic

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
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
		{"203.0.113.5", []string{"203", "0"}},
		{"a.b.c.d.e.f.g.h.i.j.k.example", []string{"a", "b", "c", "d", "e", "f", "g", "h"}},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			var got []string
			eachDataLabel(tt.host, func(l string) bool { got = append(got, l); return false })
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
