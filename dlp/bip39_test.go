package dlp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// The SHA-256 of english.txt as the BIP39 standard publishes it (one word
// per line, LF line ends).
const bip39ListSHA256 = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"

func TestBIP39List(t *testing.T) {
	sum := sha256.Sum256([]byte(bip39File))
	if got := hex.EncodeToString(sum[:]); got != bip39ListSHA256 {
		t.Errorf("bip39_english.txt: got sha256 %s, want %s", got, bip39ListSHA256)
	}
}

// mnemonic encodes entropy as the standard does, independently of the
// scanner: entropy bits, then the first len/32 bits of its SHA-256, in
// 11-bit word indexes.
func mnemonic(t *testing.T, entropyHex string) string {
	t.Helper()
	ent, err := hex.DecodeString(entropyHex)
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields(bip39File)
	sum := sha256.Sum256(ent)
	var bits strings.Builder
	for _, b := range ent {
		fmt.Fprintf(&bits, "%08b", b)
	}
	fmt.Fprintf(&bits, "%08b", sum[0])
	all := bits.String()[:len(ent)*8+len(ent)*8/32]
	var out []string
	for i := 0; i < len(all); i += 11 {
		var idx int
		fmt.Sscanf(all[i:i+11], "%b", &idx)
		out = append(out, words[idx])
	}
	return strings.Join(out, " ")
}

func TestSeedPhrase(t *testing.T) {
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	// Entropy of the standard's published vectors and random-looking
	// values; the phrases are encoded by mnemonic above.
	e12 := "9e885d952ad362caeb4efe34a8e91bd2"
	e15 := "6610b25967cdcca9d59875f5cb50b0ea75433311"
	e18 := "c10ec20dc3cd9f652c7fac2f1230f7a3c828389a14392f05"
	e21 := "0a5bd6bc7f68f0a22ad7c3a3fc4e1b1e93bd5a6f7f1c3a8b9d2e4f10"
	e24 := "f585c11aec520db57dd353c69554b21a89b20fb0650966fa0a9d6f74fd989d8f"
	p12 := mnemonic(t, e12)
	if p12 != "ozone drill grab fiber curtain grace pudding thank cruise elder eight picnic" {
		t.Fatalf("mnemonic of the standard's vector: got %q", p12)
	}
	numbered := func(p string) string {
		var b strings.Builder
		for i, w := range strings.Fields(p) {
			fmt.Fprintf(&b, "%d. %s\n", i+1, w)
		}
		return b.String()
	}
	jsonList := func(p string) string { return `["` + strings.Join(strings.Fields(p), `", "`) + `"]` }
	broken := func(p string) string { // last word replaced: checksum fails (16 of 16 tried below)
		ws := strings.Fields(p)
		ws[len(ws)-1] = "zoo"
		if p == strings.Join(ws, " ") {
			ws[len(ws)-1] = "abandon"
		}
		return strings.Join(ws, " ")
	}
	tests := []struct {
		name, text string
		want       bool
	}{
		{"12 words", "my wallet: " + p12, true},
		{"15 words", mnemonic(t, e15), true},
		{"18 words", "seed=" + mnemonic(t, e18), true},
		{"21 words", mnemonic(t, e21) + "\n", true},
		{"24 words", "recovery phrase " + mnemonic(t, e24) + " keep safe", true},
		{"upper case", strings.ToUpper(p12), true},
		{"numbered lines", numbered(mnemonic(t, e24)), true},
		{"query string", "https://collect.example/q?w=" + strings.ReplaceAll(p12, " ", "+"), true},
		{"JSON array", `{"mnemonic": ` + jsonList(p12) + `}`, true},
		{"after list words", "seed phrase " + p12, true},
		{"after a label", "seed: " + p12, true},
		// Known limit: a run of a phrase length is checked whole, so a
		// 12-word phrase after three list words is not found (the price
		// of not searching broken 15-word phrases for 12-word ones).
		{"known limit: 15-word run", "seed phrase abandon " + p12, false},
		{"checksum fails", broken(p12), false},
		{"24 checksum fails", broken(mnemonic(t, e24)), false},
		{"11 words", strings.Join(strings.Fields(p12)[:11], " "), false},
		{"zero entropy vector", "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about", false},
		{"0x7f vector", "legal winner thank year wave sausage worth useful legal winner thank yellow", false},
		{"list excerpt", "abandon ability able about above absent absorb abstract absurd abuse access accident", false},
		{"prose", "The project team will review the budget and plan the next phase of the design work.", false},
		{"words in other text", "ozone drill grab fiber curtain grace pudding thank cruise elder eight tables", false},
		{"split by prose", "ozone drill grab fiber curtain grace, said the note, pudding thank cruise elder eight picnic", false},
		{"joined by underscores", strings.ReplaceAll(p12, " ", "_"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := d.Scan(tt.text)
			if got := res.Has("bip39_seed_phrase"); got != tt.want {
				t.Errorf("bip39_seed_phrase: got %v, want %v in %q", got, tt.want, tt.text)
			}
			if tt.want && (!res.Block || res.Class != Secret) {
				t.Errorf("got block %v class %v, want a Secret Block", res.Block, res.Class)
			}
		})
	}
}

// TestSeedPhraseChecksumRate measures how often twelve distinct list
// words in random order pass: the checksum has four bits, so about one in
// sixteen. The rate is what the checksum buys over word lookup alone.
func TestSeedPhraseChecksumRate(t *testing.T) {
	words := strings.Fields(bip39File)
	hits, n := 0, 4096
	for k := 0; k < n; k++ {
		// A deterministic walk over the list: index k*37+j*211 mod 2048.
		var ws []string
		for j := 0; j < 12; j++ {
			ws = append(ws, words[(k*37+j*211+k*j*7)%2048])
		}
		if len(scanHits(strings.Join(ws, " "))) > 0 {
			hits++
		}
	}
	t.Logf("12 list words, %d sequences: %d pass the checksum (%.3f; 1/16 = 0.0625)", n, hits, float64(hits)/float64(n))
	if hits == 0 || hits > n/8 {
		t.Errorf("got %d of %d passing, want about %d", hits, n, n/16)
	}
}

func scanHits(s string) []hit {
	sc := scan{s: s}
	scanSeedPhrases(&sc)
	return sc.hits
}

// seedCases join the scanner table's unit cases (TestScannerCases).
var seedCases = []scanCase{
	{"seed phrase 12", "backup: ozone drill grab fiber curtain grace pudding thank cruise elder eight picnic", []string{"bip39_seed_phrase"}},
	{"seed phrase bad checksum", "backup: ozone drill grab fiber curtain grace pudding thank cruise elder eight zoo", nil},
	{"seed phrase test vector", "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about", nil},
}
