package dlp

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

func mustNew(t testing.TB, opts ...Option) *Detector {
	t.Helper()
	d, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestClassOrder(t *testing.T) {
	var zero Class
	if zero != Secret {
		t.Errorf("got zero class %v, want SECRET", zero)
	}
	var zeroAction Action
	if zeroAction != Block {
		t.Errorf("got zero action %v, want block", zeroAction)
	}
	tests := []struct{ a, b, want Class }{
		{Public, Normal, Normal},
		{Normal, Sensitive, Sensitive},
		{Secret, Sensitive, Secret},
		{Public, Public, Public},
		{Class(42), Public, Class(42)}, // unknown ranks as Secret
	}
	for _, tt := range tests {
		if got := MaxClass(tt.a, tt.b); got != tt.want {
			t.Errorf("MaxClass(%v, %v): got %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if Class(42).String() != "SECRET" || Action(9).String() != "block" || Action(9).Rank() != 2 {
		t.Errorf("got %v %v, want unknown values to read as SECRET and block", Class(42), Action(9))
	}
}

func TestParse(t *testing.T) {
	for _, c := range []Class{Public, Normal, Sensitive, Secret} {
		got, err := ParseClass(strings.ToLower(c.String()))
		if err != nil || got != c {
			t.Errorf("ParseClass(%q): got %v, %v, want %v", c.String(), got, err, c)
		}
	}
	for _, a := range []Action{Monitor, Redact, Block} {
		got, err := ParseAction(strings.ToUpper(a.String()))
		if err != nil || got != a {
			t.Errorf("ParseAction(%q): got %v, %v, want %v", a.String(), got, err, a)
		}
	}
	if c, err := ParseClass("top"); err == nil || c != Secret {
		t.Errorf("ParseClass(top): got %v, %v, want Secret and an error", c, err)
	}
	if a, err := ParseAction("allow"); err == nil || a != Block {
		t.Errorf("ParseAction(allow): got %v, %v, want block and an error", a, err)
	}
	var res Result
	if err := json.Unmarshal([]byte(`{"class":"SENSITIVE","findings":[{"scanner":"email","action":"monitor"}]}`), &res); err != nil {
		t.Fatal(err)
	}
	if res.Class != Sensitive || res.Findings[0].Action != Monitor {
		t.Errorf("got %+v, want SENSITIVE with a monitor finding", res)
	}
}

func TestNewOverrides(t *testing.T) {
	d := mustNew(t, WithActions(map[string]Action{"email": Block, "private_key": Monitor}))
	if a, _ := d.Action("email"); a != Block {
		t.Errorf("got email action %v, want block", a)
	}
	res := d.Scan("mail maria.garcia@acme-corp.com now")
	if !res.Block || res.Findings[0].Action != Block {
		t.Errorf("got %+v, want the email finding to block", res)
	}
	def := mustNew(t)
	if a, _ := def.Action("email"); a != Monitor {
		t.Errorf("got default email action %v after an override elsewhere, want monitor", a)
	}
	for _, tt := range []struct {
		name string
		opt  Option
		want string
	}{
		{"unknown id", WithAction("aws_key", Block), `"aws_key": unknown scanner`},
		{"unknown action", WithAction("email", Action(7)), `"email": unknown action`},
		{"first bad id", WithActions(map[string]Action{"zz": Block, "aa": Block}), `"aa"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %s", err, tt.want)
			}
		})
	}
}

func TestResultClass(t *testing.T) {
	d := mustNew(t)
	tests := []struct {
		name, text string
		want       Class
		block      bool
	}{
		{"nothing", "go test ./... passed", Normal, false},
		{"empty", "", Normal, false},
		{"public only", "TLP:CLEAR\nupdate your routers", Public, false},
		{"public with email", "TLP:CLEAR\nwrite to ops@acme-corp.com", Sensitive, false},
		{"confidential", "CONFIDENTIAL\nQ3 numbers", Sensitive, false},
		{"secret", "GITHUB_TOKEN=ghp_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH", Secret, false},
		{"key blocks", scannerCases[0].text, Secret, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := d.Scan(tt.text)
			if res.Class != tt.want || res.Block != tt.block {
				t.Errorf("got %v block=%v, want %v block=%v", res.Class, res.Block, tt.want, tt.block)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	d := mustNew(t)
	tests := []struct{ name, in, want string }{
		{"url password keeps shape",
			"DATABASE_URL=postgres://app:Wq7vR2pL9xM4@db.internal:5432/app",
			"DATABASE_URL=postgres://app:[REDACTED:connection_string_password]@db.internal:5432/app"},
		{"monitor left alone", "mail maria.garcia@acme-corp.com", "mail maria.garcia@acme-corp.com"},
		{"several",
			"card 4787 7893 2879 2170, ssn 536-22-8174, token ghp_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH.",
			"card [REDACTED:credit_card], ssn [REDACTED:us_ssn], token [REDACTED:github_token]."},
		{"block masked too", "key:\n" + scannerCases[0].text + "\ndone", "key:\n[REDACTED:private_key]\ndone"},
		{"other copies masked",
			"password=Xq7!vR2#pL9@wM4z\necho Xq7!vR2#pL9@wM4z | login",
			"password=[REDACTED:generic_secret]\necho [REDACTED:generic_secret] | login"},
		{"jwt and bearer merge",
			"Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiAidS1ibUY0UlBBZiIsICJpYXQiOiAxNzE4MDAwMDAwfQ.GD2VD_eR1UYzaLiA_zNyD7CHLn_xC-1hsYgBds1ghxY",
			"Authorization: Bearer [REDACTED:jwt]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := d.Redact(tt.in)
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRedactOverride(t *testing.T) {
	d := mustNew(t, WithAction("email", Redact), WithAction("credit_card", Monitor))
	got, res := d.Redact("to maria.garcia@acme-corp.com card 4787 7893 2879 2170")
	want := "to [REDACTED:email] card 4787 7893 2879 2170"
	if got != want || res.Block {
		t.Errorf("got %q block=%v, want %q block=false", got, res.Block, want)
	}
}

func TestScanFailsClosed(t *testing.T) {
	d := mustNew(t)
	d.disp = buildDispatch([]trigger{{lit: "boom", fn: func(*scan, int) int { panic("matcher bug") }}})
	text := "all fine until boom, then more"
	res := d.Scan(text)
	if res.Class != Secret || !res.Block || len(res.Findings) != 1 || res.Findings[0].Scanner != ScanErrorID ||
		res.Findings[0].End != len(text) {
		t.Errorf("got %+v, want one scan_error finding over the text, SECRET, block", res)
	}
	if got, _ := d.Redact(text); got != "[REDACTED:scan_error]" {
		t.Errorf("got %q, want the whole text masked", got)
	}
}

func TestPreview(t *testing.T) {
	d := mustNew(t)
	tests := []struct{ in, want string }{
		{"x ghp_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH", "ghp_…[40]"},
		{"to maria.garcia@acme-corp.com", "…[26]"},
		{"AKIAUJZDEGXDNCF32EPF", "AKIA…[20]"},
	}
	for _, tt := range tests {
		res := d.Scan(tt.in)
		if len(res.Findings) != 1 {
			t.Fatalf("%q: got %d findings, want 1", tt.in, len(res.Findings))
		}
		if got := res.Findings[0].Preview(tt.in); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	if got := (Finding{Scanner: "email", Start: 5, End: 50}).Preview("short"); got != "…" {
		t.Errorf("got %q for a span outside the text, want …", got)
	}
}

// TestFindingsWellFormed checks every finding over the labelled set:
// inside the text, non-empty, sorted by start, with the table's class.
func TestFindingsWellFormed(t *testing.T) {
	d := mustNew(t)
	for _, rec := range loadLabelled(t) {
		res := d.Scan(rec.Text)
		checkFindings(t, rec.Text, res)
	}
}

func checkFindings(t testing.TB, text string, res Result) {
	t.Helper()
	idx := scannerIndex()
	prev := 0
	for _, f := range res.Findings {
		if f.Start < prev || f.Start >= f.End || f.End > len(text) {
			t.Fatalf("finding %+v out of order or bounds (text %d bytes)", f, len(text))
		}
		prev = f.Start
		if i, ok := idx[f.Scanner]; !ok || scanners[i].Class != f.Class {
			t.Fatalf("finding %+v: unknown scanner or wrong class", f)
		}
	}
}

func TestConcurrentScan(t *testing.T) {
	d := mustNew(t)
	text := mixedText(64 << 10)
	want := len(d.Scan(text).Findings)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				if got := len(d.Scan(text).Findings); got != want {
					t.Errorf("got %d findings, want %d", got, want)
				}
			}
		})
	}
	wg.Wait()
}

func TestScannerTable(t *testing.T) {
	if len(scanners) < 22 {
		t.Errorf("got %d scanners, want at least 22", len(scanners))
	}
	seen := map[string]bool{}
	for i, s := range scanners {
		if s.ID == "" || s.Description == "" || s.Category == "" || seen[s.ID] || s.ID == ScanErrorID {
			t.Errorf("scanner %d (%q): empty field, duplicate or reserved id", i, s.ID)
		}
		seen[s.ID] = true
		if s.Action.Rank() == 2 && s.Action != Block || s.Class.Rank() == 3 && s.Class != Secret {
			t.Errorf("scanner %s: action or class outside the enums", s.ID)
		}
	}
	// Scanners returns a copy.
	got := Scanners()
	got[0].Action = Monitor
	if scanners[0].Action == Monitor {
		t.Error("Scanners returned the table itself, want a copy")
	}
}
