package heuristic

import "testing"

func TestFindPII(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"card 4111 1111 1111 1111 thanks", true},
		{"5555-5555-5555-4444", true},
		{"ssn 078-05-1120.", true},
		{"order 4111 1111 1111 1112", false}, // fails Luhn
		{"id 1234567890123456", false},       // no network prefix and no Luhn
		{"ssn 000-12-3456", false},
		{"ssn 666-12-3456", false},
		{"call 555-123-4567", false},
		{"build 20240101-123456789", false},
		{"version 4.11.1111", false},
	}
	for _, tt := range tests {
		if _, got := findPII(tt.in); got != tt.want {
			t.Errorf("findPII(%q): got %v, want %v", tt.in, got, tt.want)
		}
	}
}
