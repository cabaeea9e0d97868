package dlp

import (
	"crypto/sha256"
	"strings"
)

// Cryptocurrency private keys. A Bitcoin key in wallet import format
// (WIF) carries its own check: base58check of version 0x80, 32 key bytes
// and an optional 0x01 (compressed), so it needs no context. An Ethereum
// private key is 0x and 64 hex digits, the same shape as a transaction or
// block hash, so it counts only under a label that names a key
// (private, secret, key, seed, wallet) in the 48 bytes before it. A 40-hex
// address is public and never matches.

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58Value maps a byte to its base58 digit plus one (0: not base58).
var base58Value = func() (t [256]byte) {
	for k := 0; k < len(base58Alphabet); k++ {
		t[base58Alphabet[k]] = byte(k + 1)
	}
	return t
}()

func isBase58(c byte) bool { return base58Value[c] != 0 }

// matchWIF reads a WIF key at i: 51 characters from '5' (uncompressed)
// or 52 from 'K' or 'L' (compressed), with a valid base58check.
func matchWIF(sc *scan, i int) int {
	s := sc.s
	want := 51
	if s[i] != '5' {
		want = 52
	}
	end, ok := token(s, i, want, isBase58)
	if !ok || end-i != want || !wordEnd(s, end) {
		return 0
	}
	var buf [38]byte
	n := want - 14 // 37 or 38 decoded bytes
	if !base58Decode(s[i:end], buf[:n]) || buf[0] != 0x80 || (n == 38 && buf[33] != 0x01) {
		return 0
	}
	sum := sha256.Sum256(buf[:n-4])
	sum = sha256.Sum256(sum[:])
	if [4]byte(buf[n-4:n]) != [4]byte(sum[:4]) {
		return 0
	}
	sc.add(idCryptoKey, i, end)
	return end
}

// base58Decode decodes s into out (big-endian, exactly len(out) bytes);
// it fails when the value does not fit.
func base58Decode(s string, out []byte) bool {
	for k := 0; k < len(s); k++ {
		carry := int(base58Value[s[k]]) - 1
		if carry < 0 {
			return false
		}
		for j := len(out) - 1; j >= 0; j-- {
			carry += 58 * int(out[j])
			out[j] = byte(carry)
			carry >>= 8
		}
		if carry != 0 {
			return false
		}
	}
	return true
}

// ethKeyLabels name a private key in the text before it.
var ethKeyLabels = [...]string{"priv", "secret", "key", "seed", "wallet"}

// matchEthKey reads 0x and exactly 64 hex digits at i, under a key label.
func matchEthKey(sc *scan, i int) int {
	s := sc.s
	end, ok := token(s, i+2, 64, isHex)
	if !ok || end-i-2 != 64 || !wordEnd(s, end) {
		return 0
	}
	before := lowerASCII(s[max(0, i-48):i])
	for _, l := range ethKeyLabels {
		if strings.Contains(before, l) {
			sc.add(idCryptoKey, i, end)
			return end
		}
	}
	return 0
}
