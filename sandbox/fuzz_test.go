//go:build linux

package sandbox

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeSpec: no panic; a spec that decodes is valid and survives a
// round trip unchanged.
func FuzzDecodeSpec(f *testing.F) {
	f.Add(`{"workspace":"/w","temp_dir":"/t","write":["/x"],"caches":["/c"],"read_deny":["/d"],"network":true}`)
	f.Add(`{"workspace":"w","temp_dir":"/t"}`)
	f.Add(`{"workspace":"/w","temp_dir":"/t","extra":1}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, raw string) {
		s, err := decodeSpec(raw)
		if err != nil {
			return
		}
		if err := s.validate(); err != nil {
			t.Fatalf("decoded an invalid spec: %v", err)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeSpec(string(b))
		if err != nil {
			t.Fatalf("re-decode %s: %v", b, err)
		}
		if b2, _ := json.Marshal(again); string(b2) != string(b) {
			t.Fatalf("round trip: %s -> %s", b, b2)
		}
	})
}
