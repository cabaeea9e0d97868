package approval

import (
	"encoding/json"
	"testing"
	"time"
)

func FuzzDecodeCallback(f *testing.F) {
	for _, s := range []string{
		`{"id":"id-1","decision":"allow"}`,
		`{"id":"id-1","decision":"deny","grant":"exact","user":"alice"}`,
		`{"id":"id-1","decision":"allow","grant":"pattern","pattern":{"action":"execute_command","program":"cp","path_prefix":"/home/dev"}}`,
		`{"id":"id-1","decision":"allow","decision":"deny"}`,
		`{"id":"","decision":"allow"}`,
		`[]`, `null`, `{"id":"a","decision":"allow"} x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		id, r, err := decodeCallback(body)
		id2, r2, err2 := decodeCallback(body)
		if (err == nil) != (err2 == nil) || id != id2 || r.Decision != r2.Decision || r.Grant != r2.Grant {
			t.Fatal("decoding is not stable")
		}
		if err != nil {
			return
		}
		if id == "" || !isIdent(id) {
			t.Fatalf("accepted id %q", id)
		}
		if r.Decision != Allow && r.Decision != Deny || r.Grant > GrantPattern {
			t.Fatalf("accepted %+v", r)
		}
	})
}

func FuzzRedactPayload(f *testing.F) {
	for _, s := range []string{
		`{"command":"git push https://x-access-token:` + ghToken + `@github.com/o/r.git"}`,
		`{"command":"echo gh\u0070_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH"}`,
		`{"password":"` + password + `","n":` + card + `}`,
		`{"a":[1,2,{"b":"c"}],"d":null}`,
		`not json`, ``, `"str"`, `{"x":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	d := detector(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		out := redactPayload(d, raw)
		if !json.Valid(out) {
			t.Fatalf("not JSON: %q", out)
		}
		if leaks(d, string(out)) {
			t.Fatalf("a secret is left: %q", out)
		}
		if again := redactPayload(d, raw); string(again) != string(out) {
			t.Fatal("redaction is not stable")
		}
	})
}

func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{"y", "n", "", "a", "p", "yes\n", " NO ", "always", "pattern", "x"} {
		f.Add(s)
	}
	withPattern := &Ask{Grants: []GrantKind{GrantExact, GrantPattern}, Pattern: &Pattern{ActionType: "write_file", PathPrefix: "/home/dev"}}
	bare := &Ask{}
	f.Fuzz(func(t *testing.T, line string) {
		for _, a := range []*Ask{withPattern, bare} {
			r, ok := parseAnswer(line, a)
			if !ok {
				continue
			}
			if !a.Offers(r.Grant) || r.Decision == Deny && r.Grant != GrantNone {
				t.Fatalf("%q: accepted %+v for %+v", line, r, a.Grants)
			}
		}
	})
}

func FuzzVerifySignature(f *testing.F) {
	body := []byte(`{"id":"a","decision":"allow"}`)
	f.Add(Sign(testSecret, t0, body), body)
	f.Add("t=1,v1=00", body)
	f.Add("", []byte{})
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		err := VerifySignature(testSecret, header, body, t0, DefaultTolerance)
		if err == nil && header != Sign(testSecret, t0, body) {
			// A different spelling may verify only if it names a time in
			// the window and the same MAC.
			ts, _, ok := parseSignature(header)
			if !ok || ts == "" {
				t.Fatalf("accepted malformed %q", header)
			}
		}
		if VerifySignature(testSecret, Sign(testSecret, t0.Add(time.Minute), body), body, t0, DefaultTolerance) != nil {
			t.Fatal("a fresh signature does not verify")
		}
	})
}
