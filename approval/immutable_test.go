package approval

import (
	"slices"
	"testing"
)

// TestPatternTypesCopy edits what PatternTypes returns, every way a
// caller could, and checks that Check decides as before.
func TestPatternTypesCopy(t *testing.T) {
	cases := []struct {
		name string
		p    Pattern
		ok   bool
	}{
		{"read under a project", Pattern{ActionType: "read_file", PathPrefix: "/home/dev/project"}, true},
		{"a program", Pattern{ActionType: "execute_command", Program: "make"}, true},
		{"a host", Pattern{ActionType: "http_request", Host: "api.example.com"}, true},
		{"mail is exact only", Pattern{ActionType: "send_email", Host: "example.com"}, false},
		{"an mcp call is exact only", Pattern{ActionType: "mcp_call", Program: "fs"}, false},
	}
	check := func(when string) {
		for _, tt := range cases {
			if err := tt.p.Check(); (err == nil) != tt.ok {
				t.Errorf("%s: %s: got err %v, want ok %v", when, tt.name, err, tt.ok)
			}
		}
	}
	check("before")
	want := PatternTypes()
	got := PatternTypes()
	if !slices.Equal(got, want) || !slices.Contains(got, "read_file") || slices.Contains(got, "send_email") {
		t.Fatalf("PatternTypes() = %v", got)
	}
	for i := range got {
		got[i] = "send_email"
	}
	got[0] = "mcp_call"
	check("after editing PatternTypes()")
	if again := PatternTypes(); !slices.Equal(again, want) {
		t.Errorf("PatternTypes() after the edit: got %v, want %v", again, want)
	}
}
