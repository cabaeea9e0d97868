package httpapi

import (
	"strings"
	"testing"
)

// TestHealthzAuditChain: /healthz reports what serve verified of the audit
// chain at start, and says nothing of it when it was not given.
func TestHealthzAuditChain(t *testing.T) {
	tests := []struct {
		name, chain, want, notWant string
	}{
		{"verified", "verified at start: 3 entries, last seq 3", `"audit_chain":"verified at start: 3 entries, last seq 3"`, ""},
		{"not given", "", `"status":"ok"`, "audit_chain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, Config{AuditChain: tt.chain}, nil)
			code, body, _ := ts.do(t, "GET", "/healthz", "", false)
			if code != 200 || !strings.Contains(string(body), tt.want) ||
				(tt.notWant != "" && strings.Contains(string(body), tt.notWant)) {
				t.Errorf("got %d %s, want 200 with %s", code, body, tt.want)
			}
		})
	}
}
