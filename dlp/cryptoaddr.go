package dlp

import (
	"crypto/sha256"
	"strings"
)

// Cryptocurrency addresses (crypto_address). Each form carries its own
// check, and a candidate that fails it never matches:
//
//   - Bitcoin P2PKH ('1') and P2SH ('3'): base58check of version 0x00 or
//     0x05 and a 20-byte hash, 26 to 35 characters, the double SHA-256
//     checksum and as many leading '1's as leading zero bytes.
//   - Bitcoin SegWit: bech32 (BIP 173, witness version 0, a 20- or
//     32-byte program) or bech32m (BIP 350, versions 1 to 16, 2 to 40
//     bytes) under the "bc" prefix, in one case.
//   - Ethereum: 0x and 40 hex digits. Mixed case must be the EIP-55
//     checksum (Keccak-256 of the lowercase address); one case carries no
//     check, so it counts only under an address label (address, wallet,
//     recipient, ...) in the 32 bytes before it: the weaker signal.

// matchBase58Address reads a P2PKH or P2SH address at i.
func matchBase58Address(sc *scan, i int) int {
	s := sc.s
	end, ok := token(s, i, 35, isBase58)
	if !ok || end-i < 26 || !wordEnd(s, end) {
		return 0
	}
	var buf [25]byte
	if !base58Decode(s[i:end], buf[:]) || buf[0] != 0x00 && buf[0] != 0x05 {
		return 0
	}
	if leading(s[i:end], '1') != leadingZeros(buf[:]) {
		return 0
	}
	sum := sha256.Sum256(buf[:21])
	sum = sha256.Sum256(sum[:])
	if [4]byte(buf[21:]) != [4]byte(sum[:4]) {
		return 0
	}
	sc.add(idCryptoAddress, i, end)
	return end
}

func leading(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

func leadingZeros(b []byte) int {
	n := 0
	for n < len(b) && b[n] == 0 {
		n++
	}
	return n
}

const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// bech32Value maps a lowercase byte to its 5-bit value plus one.
var bech32Value = func() (t [256]byte) {
	for k := 0; k < len(bech32Charset); k++ {
		t[bech32Charset[k]] = byte(k + 1)
	}
	return t
}()

// Checksum constants: bech32 (BIP 173) and bech32m (BIP 350).
const (
	bech32Const  = 1
	bech32mConst = 0x2bc830a3
)

// matchBech32Address reads a "bc1" SegWit address at i (either case).
func matchBech32Address(sc *scan, i int) int {
	s := sc.s
	end, ok := token(s, i+3, 87, isAlnum)
	if !ok || end-i < 14 || end-i > 90 || !wordEnd(s, end) {
		return 0
	}
	a := s[i:end]
	low := lowerASCII(a)
	if a != low && a != strings.ToUpper(a) {
		return 0 // mixed case is invalid bech32
	}
	data := make([]byte, 0, len(low)-3)
	for k := 3; k < len(low); k++ {
		v := bech32Value[low[k]]
		if v == 0 {
			return 0
		}
		data = append(data, v-1)
	}
	if !segwitValid(data) {
		return 0
	}
	sc.add(idCryptoAddress, i, end)
	return end
}

// segwitValid checks the checksum of data (after "bc1") and the witness
// version and program length the checksum kind allows.
func segwitValid(data []byte) bool {
	if len(data) < 7 {
		return false
	}
	pm := bech32Polymod(data)
	ver := data[0]
	prog, ok := regroup5to8(data[1 : len(data)-6])
	if !ok || ver > 16 {
		return false
	}
	switch {
	case ver == 0:
		return pm == bech32Const && (len(prog) == 20 || len(prog) == 32)
	default:
		return pm == bech32mConst && len(prog) >= 2 && len(prog) <= 40
	}
}

// bech32Polymod is BIP 173's checksum over hrp "bc" and data.
func bech32Polymod(data []byte) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	step := func(v byte) {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for k := 0; k < 5; k++ {
			if top>>k&1 != 0 {
				chk ^= gen[k]
			}
		}
	}
	// hrp expanded: high bits of "bc", 0, low bits of "bc".
	for _, v := range []byte{'b' >> 5, 'c' >> 5, 0, 'b' & 31, 'c' & 31} {
		step(v)
	}
	for _, v := range data {
		step(v)
	}
	return chk
}

// regroup5to8 converts 5-bit groups to bytes; the padding must be zero
// and shorter than a group.
func regroup5to8(d []byte) ([]byte, bool) {
	var out []byte
	acc, n := uint32(0), 0
	for _, v := range d {
		acc = acc<<5 | uint32(v)
		n += 5
		if n >= 8 {
			n -= 8
			out = append(out, byte(acc>>n))
		}
	}
	return out, n < 5 && acc&(1<<n-1) == 0
}

// ethAddressLabels name an address in the text before a one-case one.
var ethAddressLabels = [...]string{"address", "addr", "wallet", "recipient", "beneficiary", "payee", "account", "eth"}

// matchEthAddress reads 0x and exactly 40 hex digits at i.
func matchEthAddress(sc *scan, i int) int {
	s := sc.s
	end, ok := token(s, i+2, 40, isHex)
	if !ok || end-i-2 != 40 || !wordEnd(s, end) {
		return 0
	}
	hx := s[i+2 : end]
	low := lowerASCII(hx)
	if hx == low || hx == strings.ToUpper(hx) {
		before := lowerASCII(s[max(0, i-32):i])
		for _, l := range ethAddressLabels {
			if strings.Contains(before, l) {
				sc.add(idCryptoAddress, i, end)
				return end
			}
		}
		return 0
	}
	if !eip55Valid(hx, low) {
		return 0
	}
	sc.add(idCryptoAddress, i, end)
	return end
}

// eip55Valid checks the EIP-55 case checksum: a letter is upper case
// exactly when its nibble of Keccak-256(lowercase address) is 8 or more.
func eip55Valid(hx, low string) bool {
	h := keccak256([]byte(low))
	for k := 0; k < 40; k++ {
		c := hx[k]
		if isDigit(c) {
			continue
		}
		nib := h[k/2] >> 4
		if k%2 == 1 {
			nib = h[k/2] & 0x0f
		}
		if isUpper(c) != (nib >= 8) {
			return false
		}
	}
	return true
}
