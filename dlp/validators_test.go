package dlp

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"
)

func digitsOf(s string) []byte {
	var d []byte
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			d = append(d, s[i]-'0')
		}
	}
	return d
}

func TestLuhnAndCards(t *testing.T) {
	tests := []struct {
		in         string
		luhn, card bool
	}{
		{"4787789328792170", true, true},
		{"4787789328792171", false, false},
		{"373840191614617", true, true},
		{"4242424242424242", true, false},  // published test card
		{"4000123412341234", true, false},  // repeated group: made-up number
		{"1718000000123", false, false},    // no network prefix
		{"3530345145061232", true, true},   // JCB
		{"651337420", true, false},         // SIN-shaped, too short
		{"490154203237518", true, false},   // IMEI: Visa prefix, wrong length
		{"0000000000000000", true, false},  // no network
		{"6226616630494035", true, true},   // UnionPay / Discover range
		{"36100772837833", true, true},     // Diners 14
		{"5100339075793836", true, true},   // Mastercard
		{"2720470174681452", true, true},   // Mastercard 2-series
		{"2730470174681451", false, false}, // outside 2221-2720
	}
	for _, tt := range tests {
		d := digitsOf(tt.in)
		if got := luhn(d); got != tt.luhn {
			t.Errorf("luhn(%s): got %v, want %v", tt.in, got, tt.luhn)
		}
		if got := isCard(d); got != tt.card {
			t.Errorf("isCard(%s): got %v, want %v", tt.in, got, tt.card)
		}
	}
}

func TestIBANMod97(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"DE91269910237409546111", 1},
		{"GB92NWBK39309559729792", 1},
		{"FR526224393328A367916011007", 1},
		{"GB82WEST12345698765432", 1}, // valid, but a published example
		{"DE92269910237409546111", 2},
	}
	for _, tt := range tests {
		if got := ibanMod97(tt.in); (got == 1) != (tt.want == 1) {
			t.Errorf("ibanMod97(%s): got %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestIDRules(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // scanner id or ""
	}{
		{"ssn ok", "536-22-8174", "us_ssn"},
		{"ssn area 000", "000-22-8174", ""},
		{"ssn area 666", "666-22-8174", ""},
		{"ssn area 9xx", "936-22-8174", ""},
		{"ssn group 00", "536-00-8174", ""},
		{"ssn serial 0000", "536-22-0000", ""},
		{"ssn woolworth", "078-05-1120", ""},
		{"nanp ok", "646-309-4471", "phone_number"},
		{"nanp area 1xx", "146-309-4471", ""},
		{"nanp exchange N11", "646-411-4471", ""},
		{"nanp fiction", "646-555-0123", ""},
		{"nanp 555 not fiction", "646-555-0234", "phone_number"},
		{"dni ok", "21237899K", "es_dni"},
		{"dni dash", "21237899-K", "es_dni"},
		{"dni wrong letter", "21237899T", ""},
		{"nie ok", "Y9215275V", "es_dni"},
		{"nie wrong", "X9215275V", ""},
		{"nino ok", "JG103759A", "uk_nino"},
		{"nino suffix E", "JG103759E", ""},
		{"nino second O", "JO103759A", ""},
		{"nino prefix TN", "TN103759A", ""},
		{"intl too short", "+44 20 79", ""},
		{"intl country 0", "+0 20 7946 0321", ""},
		{"intl +1 must be NANP", "+1 146 309 4471", ""},
		{"intl compact", "+442079460321", "phone_number"},
	}
	d := mustNew(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(foundIDs(d.Scan(tt.text)), ",")
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDates(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"1984-07-23", true},
		{"1984/07/23", true},
		{"23/07/1984", true},
		{"07/23/1984", true},
		{"23.07.1984", true},
		{"23 July 1984", true},
		{"23-Jul-1984", true},
		{"July 23, 1984", true},
		{"Jul 23 1984", true},
		{"Sept 3, 1984", true},
		{"2000-02-29", true},
		{"1900-02-29", false},
		{"1984-13-01", false},
		{"1984-02-30", false},
		{"1899-01-01", false},
		{"23/07/84", false},
		{"1984-07-233", false},
		{"Julyish 23, 1984", false},
	}
	for _, tt := range tests {
		_, ok := parseDate(tt.in, 0)
		if ok != tt.ok {
			t.Errorf("parseDate(%q): got %v, want %v", tt.in, ok, tt.ok)
		}
	}
}

func TestEntropyAndPlaceholders(t *testing.T) {
	if h := entropy("aaaa"); h != 0 {
		t.Errorf("got entropy %v for aaaa, want 0", h)
	}
	if h := entropy("abcd"); h != 2 {
		t.Errorf("got entropy %v for abcd, want 2", h)
	}
	for _, v := range []string{"YOUR_TOKEN_HERE", "<password>", "${X}", "changeme", "xxxx-xxxx", "Example123"} {
		if !isPlaceholder(v) && !filler(v) {
			t.Errorf("%q: got no placeholder, want one", v)
		}
	}
	for _, v := range []string{"Xq7!vR2#pL9@wM4z", "3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e"} {
		if !generatedValue(v, false) {
			t.Errorf("%q: got not generated, want generated", v)
		}
	}
}

// adversarial inputs: shapes that make a naive matcher re-read the text.
var adversarial = map[string]string{
	"assignments":   strings.Repeat("password=", 1<<17),
	"long values":   strings.Repeat("password="+strings.Repeat("Ab1", 100)+" ", 1<<12),
	"ats":           strings.Repeat("a@", 1<<19),
	"domains":       strings.Repeat("x@"+strings.Repeat("ab.", 80)+" ", 1<<12),
	"pem headers":   strings.Repeat("-----BEGIN RSA PRIVATE KEY-----", 1<<15),
	"pem bodies":    strings.Repeat("-----BEGIN PRIVATE KEY-----\n"+strings.Repeat("A", 63)+"\n", 1<<13),
	"jwt heads":     strings.Repeat("eyJhbGciOiJIUzI1NiJ9.", 1<<15),
	"digits":        strings.Repeat("1 ", 1<<19),
	"digit groups":  strings.Repeat("4111-", 1<<18),
	"pluses":        strings.Repeat("+1 ", 1<<18),
	"parens":        strings.Repeat("(", 1<<20),
	"uppercase":     strings.Repeat("AB12 ", 1<<18),
	"bearers":       strings.Repeat("Bearer ", 1<<17),
	"urls":          strings.Repeat("a://b:c", 1<<17),
	"colons":        strings.Repeat(":", 1<<20),
	"label words":   strings.Repeat("date of birth ", 1<<16),
	"word tokens":   strings.Repeat("ghp_"+strings.Repeat("a", 200)+" ", 1<<12),
	"basic":         strings.Repeat("Basic "+strings.Repeat("QUJD", 250)+" ", 1<<10),
	"emails":        strings.Repeat("maria.garcia@acme-corp.com ", 1<<15),
	"azure tildes":  strings.Repeat("abc1Q~", 1<<17),
	"slack hooks":   strings.Repeat("hooks.slack.com/services/", 1<<15),
	"sk dashes":     strings.Repeat("sk-", 1<<18),
	"markers":       strings.Repeat("CONFIDENTIAL ", 1<<16),
	"nested quotes": strings.Repeat(`"password": "`, 1<<16),
}

// TestAdversarialLinear: every pathological 0.5-1 MB input scans and
// redacts, finding what it holds; the time of each is logged, not asserted
// (a loaded machine makes any bound flaky; a super-linear blow-up shows as
// a hang that the test timeout catches).
func TestAdversarialLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	d := mustNew(t)
	for name, text := range adversarial {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			res := d.Scan(text)
			out, _ := d.Redact(text)
			el := time.Since(start)
			checkFindings(t, text, res)
			if res.Has(ScanErrorID) {
				t.Fatal("scan failed")
			}
			t.Logf("%s: %d bytes, %d findings, %d bytes out, %v", name, len(text), len(res.Findings), len(out), el)
		})
	}
}

// nl2bashPath is the shared corpus of real one-line shell commands.
const nl2bashPath = "../../shared/corpora/nl2bash/all.cm"

// TestNL2BashNegatives scans 12,607 real shell commands, which hold no
// secrets or personal data: the only findings allowed are e-mail-shaped
// addresses the commands themselves spell out, and few of them.
func TestNL2BashNegatives(t *testing.T) {
	f, err := os.Open(nl2bashPath)
	if err != nil {
		t.Skipf("nl2bash corpus not found: %v", err)
	}
	defer f.Close()
	d := mustNew(t)
	lines, flagged := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines++
		res := d.Scan(sc.Text())
		for _, fi := range res.Findings {
			if fi.Scanner != "email" {
				t.Errorf("line %d: got %s, want no finding but email", lines, fi.Scanner)
			}
		}
		if len(res.Findings) > 0 {
			flagged++
		}
	}
	t.Logf("%d of %d commands with a finding", flagged, lines)
	if flagged > 10 {
		t.Errorf("got %d commands with findings, want at most 10", flagged)
	}
}
