package dlp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// Published vectors: BIP 173 and BIP 350 for SegWit addresses, EIP-55
// for Ethereum checksums; P2PKH and P2SH addresses are built at run time
// from a hash of a test phrase.
var (
	testHash160 = func() []byte { h := sha256.Sum256([]byte("parallax test address")); return h[:20] }()
	testP2PKH   = base58Check(append([]byte{0x00}, testHash160...))
	testP2SH    = base58Check(append([]byte{0x05}, testHash160...))
)

const (
	testBech32  = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"                     // BIP 173, P2WPKH
	testBech32W = "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3" // BIP 173, P2WSH
	testBech32m = "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0" // BIP 350, taproot
	testEIP55   = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"                     // EIP-55
)

// flipCase swaps the case of the first letter after "0x".
func flipCase(a string) string {
	for k := 2; k < len(a); k++ {
		if c := a[k]; isAlpha(c) {
			return a[:k] + string(c^0x20) + a[k+1:]
		}
	}
	return a
}

var addressCases = []scanCase{
	{"p2pkh in a query", "https://c.example/p?to=" + testP2PKH, []string{"crypto_address"}},
	{"p2sh", "pay " + testP2SH + " today", []string{"crypto_address"}},
	{"bech32 p2wpkh", "addr=" + testBech32, []string{"crypto_address"}},
	{"bech32 p2wsh", "addr=" + testBech32W, []string{"crypto_address"}},
	{"bech32 upper case", "ADDR " + strings.ToUpper(testBech32), []string{"crypto_address"}},
	{"bech32m taproot", "to " + testBech32m, []string{"crypto_address"}},
	{"eip55 bare", "send it to " + testEIP55, []string{"crypto_address"}},
	{"eth lowercase under a label", "recipient: " + strings.ToLower(testEIP55), []string{"crypto_address"}},
	{"p2pkh bad checksum", "pay " + flipLast(testP2PKH), nil},
	{"p2pkh extra leading one", "pay 1" + testP2PKH, nil},
	{"base58 of another version", "pay " + base58Check(append([]byte{0x30}, testHash160...)), nil},
	{"bech32 bad checksum", "addr=" + testBech32[:len(testBech32)-1] + "5", nil},
	{"bech32 mixed case", "addr=bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", nil},
	{"bech32m checksum on v0 (BIP 350 invalid vector)", "addr=bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh", nil},
	{"eip55 wrong case", "send it to " + flipCase(testEIP55), nil},
	{"eth lowercase unlabelled", "hash 0x" + hex.EncodeToString(testHash160), nil},
	{"git sha", "commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad", nil},
	{"tx hash", "tx 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060", nil},
}

func TestKeccak256Vectors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"},
		{"abc", "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"},
	}
	for _, tt := range tests {
		h := keccak256([]byte(tt.in))
		if got := hex.EncodeToString(h[:]); got != tt.want {
			t.Errorf("keccak256(%q): got %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestEIP55Vectors(t *testing.T) {
	for _, a := range []string{
		"5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "fB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
		"dbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", "D1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
	} {
		if !eip55Valid(a, lowerASCII(a)) {
			t.Errorf("%s: got invalid, want valid", a)
		}
		if b := flipCase("0x" + a)[2:]; eip55Valid(b, lowerASCII(b)) {
			t.Errorf("%s: got valid, want invalid", b)
		}
	}
}

func TestSegwitVectors(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{testBech32, true},
		{testBech32W, true},
		{testBech32m, true},
		{"bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y", true}, // BIP 350 v1
		{"bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", true},                                       // BIP 350 v2
		{"bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd", false},            // bech32 checksum on v1
		{"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5", false},                                // checksum
		{"bc1gmk9yu", false}, // empty program
	}
	for _, tt := range tests {
		var data []byte
		for k := 3; k < len(tt.addr); k++ {
			data = append(data, bech32Value[tt.addr[k]]-1)
		}
		if got := segwitValid(data); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.addr, got, tt.want)
		}
	}
}
