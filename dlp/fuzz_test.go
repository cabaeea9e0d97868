package dlp

import (
	"strings"
	"testing"
)

// FuzzScan: no input makes a scan fail (a recovered panic would show as a
// scan_error finding), findings stay well formed, and Redact's output
// holds no copy of a masked value of minNeedle bytes or more.
//
//	go test ./dlp -run '^$' -fuzz FuzzScan -fuzztime 60s
func FuzzScan(f *testing.F) {
	for _, c := range scannerCases {
		f.Add(c.text)
	}
	for _, rec := range loadLabelled(f) {
		f.Add(rec.Text)
	}
	for _, text := range adversarial {
		f.Add(text[:min(len(text), 4096)])
	}
	d := mustNew(f, WithAction("email", Redact), WithAction("phone_number", Block))
	f.Fuzz(func(t *testing.T, text string) {
		res := d.Scan(text)
		if res.Has(ScanErrorID) {
			t.Fatalf("scan failed on %q", text)
		}
		checkFindings(t, text, res)
		out, res2 := d.Redact(text)
		if len(res2.Findings) != len(res.Findings) {
			t.Fatalf("got %d findings from Redact, want %d as from Scan", len(res2.Findings), len(res.Findings))
		}
		for _, fi := range res.Findings {
			v := text[fi.Start:fi.End]
			if fi.Action != Monitor && len(v) >= minNeedle && strings.Contains(out, v) {
				t.Fatalf("redacted output %q still holds %s value %q", out, fi.Scanner, v)
			}
		}
		if len(res.Findings) == 0 && out != text {
			t.Fatalf("got %q from Redact without findings, want the text unchanged", out)
		}
	})
}
