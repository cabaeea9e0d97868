package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the corpus parser: it must return
// cases or an error, never panic, and every case it returns must be whole.
func FuzzParse(f *testing.F) {
	f.Add([]byte(goodCase))
	f.Add([]byte("- id: x\n  steps: [{type: a, payload: {k: [1, {a: b}]}}]\n"))
	f.Add([]byte("- {id: x, category: cat, intent: legit, description: d, expect: ALLOW, steps: [{type: t, payload: {1: 2}}]}\n"))
	// The first case of every corpus file: small seeds keep minimisation cheap.
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*", "*.yaml"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		first, _, _ := strings.Cut(string(b)[1:], "\n- id:")
		f.Add([]byte(string(b[:1]) + first))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cases, err := Parse("fuzz.yaml", "", b)
		if err != nil {
			return
		}
		for _, c := range cases {
			if c.ID == "" || len(c.Steps) == 0 || c.Description == "" {
				t.Fatalf("incomplete case accepted: %+v", c)
			}
			for _, s := range c.Steps {
				if s.Type == "" || len(s.Payload) == 0 {
					t.Fatalf("incomplete step accepted: %+v", s)
				}
			}
		}
	})
}
