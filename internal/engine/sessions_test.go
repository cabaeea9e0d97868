package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTailLog(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "engine.log")
	if _, err := tailLog(p, 5); err == nil || !strings.Contains(err.Error(), "no engine log") {
		t.Fatalf("missing log: %v", err)
	}
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	b.WriteString("evil \x1b]0;title\x07end\n")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := tailLog(p, 3)
	if err != nil || got != "line 98\nline 99\nevil end" {
		t.Fatalf("got %q, %v", got, err)
	}
}
