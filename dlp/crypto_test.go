package dlp

import (
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"testing"
)

// base58Check encodes payload with its double-SHA-256 checksum, to build
// WIF keys at run time.
func base58Check(payload []byte) string {
	h := sha256.Sum256(payload)
	h = sha256.Sum256(h[:])
	b := append(append([]byte{}, payload...), h[:4]...)
	n := new(big.Int).SetBytes(b)
	var out []byte
	m := new(big.Int)
	for n.Sign() > 0 {
		n.DivMod(n, big.NewInt(58), m)
		out = append([]byte{base58Alphabet[m.Int64()]}, out...)
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append([]byte{'1'}, out...)
	}
	return string(out)
}

var (
	testKeyBytes = sha256.Sum256([]byte("parallax test key"))
	testWIFU     = base58Check(append([]byte{0x80}, testKeyBytes[:]...))
	testWIFC     = base58Check(append(append([]byte{0x80}, testKeyBytes[:]...), 0x01))
	testEthKey   = "0x" + hex.EncodeToString(testKeyBytes[:])
)

// flipLast changes the last character of a base58 string.
func flipLast(s string) string {
	c := byte('2')
	if s[len(s)-1] == '2' {
		c = '3'
	}
	return s[:len(s)-1] + string(c)
}

var cryptoCases = []scanCase{
	{"wif uncompressed", "backup: " + testWIFU, []string{"crypto_private_key"}},
	{"wif compressed", "importprivkey " + testWIFC + " label", []string{"crypto_private_key"}},
	{"eth key labelled", `{"privateKey":"` + testEthKey + `"}`, []string{"crypto_private_key"}},
	{"eth key wallet", "wallet secret: " + testEthKey, []string{"crypto_private_key"}},
	{"wif bad checksum", "backup: " + flipLast(testWIFU), nil},
	{"tx hash", "tx 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 confirmed", nil},
	{"eth address is not a key", "wallet 0x52908400098527886E0F7030069857D2E4169EE7", []string{"crypto_address"}},
	{"base58 but not wif", "id 5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ2", nil},
}

func TestBase58Decode(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want bool
	}{
		{"fits", "2g", 1, true}, // 'a' = 97
		{"overflow", "zzzz", 1, false},
		{"not base58", "0OIl", 4, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := base58Decode(tt.in, make([]byte, tt.n)); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
