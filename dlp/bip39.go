package dlp

import (
	"crypto/sha256"
	_ "embed"
	"slices"
	"strings"
	"sync"
)

// BIP39 seed phrases. A wallet's seed phrase (BIP39 mnemonic) is its
// master private key in words: 12, 15, 18, 21 or 24 words of the 2048-word
// English list, each worth 11 bits; the last ENT/32 bits are the first bits
// of the SHA-256 of the entropy. A phrase counts only when:
//   - its words are consecutive list words, separated by blanks, commas,
//     quotes, brackets, "+" (a query string) or list numbering ("1.
//     abandon 2. ability"), not by a colon, which ends a label;
//   - its checksum holds. A phrase that fails it cannot be restored by any
//     wallet: it is not a key, so it is not reported at all (no
//     low-confidence finding). Ordinary prose rarely strings twelve list
//     words together, and when it does the checksum rejects 15 of 16
//     twelve-word runs and 255 of 256 twenty-four-word runs;
//   - it has at least five in six distinct words and is not in list order:
//     the published test vectors of degenerate entropy ("abandon ...
//     about", "legal winner thank year ...", "zoo ... wrong") and
//     excerpts of the list itself, as documentation about BIP39 quotes
//     them, are not anybody's wallet.
//
// The words are looked up from the run of letters at a word start; only a
// run of twelve or more list words is checked, whole or at its start and
// its end for each phrase length, so the cost stays linear in the text.

//go:embed bip39_english.txt
var bip39File string

// bip39Words maps each list word, packed by packWord, to its index. The
// list is a fact of the standard (its SHA-256 is checked by a test); a
// malformed copy is a build error, reported on first use. It is built on
// first use, not at start: most processes never scan a long text.
var bip39Words = sync.OnceValue(func() map[uint64]uint16 {
	words := strings.Fields(bip39File)
	if len(words) != 2048 {
		panic("dlp: bip39_english.txt must hold 2048 words")
	}
	m := make(map[uint64]uint16, len(words))
	for i, w := range words {
		k, ok := packWord(w)
		if !ok || i > 0 && words[i-1] >= w {
			panic("dlp: bip39_english.txt is not sorted, unique, 3 to 8 letters at " + w)
		}
		m[k] = uint16(i)
	}
	return m
})

// packWord packs a word of 3 to 8 ASCII letters, case folded, into 5 bits
// a letter: a map key that costs no string hashing.
func packWord(w string) (uint64, bool) {
	if len(w) < 3 || len(w) > 8 {
		return 0, false
	}
	var k uint64
	for i := 0; i < len(w); i++ {
		c := toLower(w[i])
		if c < 'a' || c > 'z' {
			return 0, false
		}
		k = k<<5 | uint64(c-'a'+1)
	}
	return k, true
}

// minSeedText is the shortest text that can hold a phrase: twelve
// three-letter words and eleven separators.
const minSeedText = 12*3 + 11

// bip39Lengths are the phrase lengths, longest first.
var bip39Lengths = [...]int{24, 21, 18, 15, 12}

// seedWord is one list word of a run.
type seedWord struct {
	idx        uint16
	start, end int
}

// wordSpan is one word-shaped token: 3 to 8 letters at word boundaries.
type wordSpan struct{ start, end int }

// scanSeedPhrases finds seed phrases in sc.s and records them. A first
// pass finds stretches of twelve or more word-shaped tokens between
// separators, without lookups (short words such as "a", "of", "to" and
// code punctuation end most stretches early); only those are looked up.
func scanSeedPhrases(sc *scan) {
	s := sc.s
	var buf [32]wordSpan
	stretch := buf[:0]
	prevEnd := -1
	for i := 0; i < len(s); {
		if !isLetter(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isLetter(s[j]) {
			j++
		}
		start, end := i, j
		i = j
		shaped := end-start >= 3 && end-start <= 8 && (start == 0 || !isWord(s[start-1])) && (end == len(s) || !isWord(s[end]))
		if !shaped || prevEnd >= 0 && !seedSeparator(s[prevEnd:start]) {
			lookupStretch(sc, stretch)
			stretch = stretch[:0]
		}
		prevEnd = -1
		if shaped {
			stretch = append(stretch, wordSpan{start, end})
			prevEnd = end
		}
	}
	lookupStretch(sc, stretch)
}

// lookupStretch splits a stretch of word-shaped tokens into runs of list
// words and checks each run.
func lookupStretch(sc *scan, stretch []wordSpan) {
	if len(stretch) < 12 {
		return
	}
	var buf [24]seedWord
	run := buf[:0]
	words := bip39Words()
	for _, w := range stretch {
		k, _ := packWord(sc.s[w.start:w.end])
		idx, ok := words[k]
		if !ok {
			checkSeedRun(sc, run)
			run = run[:0]
			continue
		}
		run = append(run, seedWord{idx, w.start, w.end})
	}
	checkSeedRun(sc, run)
}

// seedSeparator reports whether text between two words may separate the
// words of one phrase: blanks, punctuation of lists and list numbers. A
// colon ends a label ("seed: ..."), so it is not one.
func seedSeparator(sep string) bool {
	if len(sep) == 0 || len(sep) > 12 {
		return false
	}
	for k := 0; k < len(sep); k++ {
		if !seedSepByte[sep[k]] {
			return false
		}
	}
	return true
}

// seedSepByte marks the bytes seedSeparator accepts.
var seedSepByte = func() (t [256]bool) {
	for _, c := range []byte(" \t\r\n,;.()[]\"'+-0123456789") {
		t[c] = true
	}
	return t
}()

// checkSeedRun checks a run of list words: a run of a phrase length is
// checked whole (a 15-word phrase with a wrong word is not searched for a
// 12-word phrase inside it); a longer or odd run, such as a phrase after
// a label made of list words ("seed phrase: ..."), is checked at its start
// and its end for each phrase length, longest first. The first valid
// phrase is recorded.
func checkSeedRun(sc *scan, run []seedWord) {
	if len(run) < 12 {
		return
	}
	whole := slices.Contains(bip39Lengths[:], len(run))
	for _, n := range bip39Lengths {
		if len(run) < n || whole && n != len(run) {
			continue
		}
		for _, w := range [2][]seedWord{run[:n], run[len(run)-n:]} {
			if validSeedPhrase(w) {
				sc.add(idSeedPhrase, w[0].start, w[n-1].end)
				return
			}
		}
	}
}

// validSeedPhrase reports whether the words are a BIP39 phrase with a
// valid checksum, enough distinct words and not in list order.
func validSeedPhrase(w []seedWord) bool {
	n := len(w)
	distinct, ascending := 0, true
	for k := range w {
		seen := false
		for j := range k {
			if w[j].idx == w[k].idx {
				seen = true
				break
			}
		}
		if !seen {
			distinct++
		}
		if k > 0 && w[k].idx <= w[k-1].idx {
			ascending = false
		}
	}
	if ascending || distinct < n-n/6 {
		return false
	}
	var bits [33]byte // 24 words * 11 bits = 264 bits
	for k := range w {
		for b := 0; b < 11; b++ {
			if w[k].idx&(1<<(10-b)) != 0 {
				pos := k*11 + b
				bits[pos/8] |= 0x80 >> (pos % 8)
			}
		}
	}
	total := n * 11
	ent := total * 32 / 33 // entropy bits: 128 .. 256
	cs := total - ent      // checksum bits: 4 .. 8
	sum := sha256.Sum256(bits[:ent/8])
	got := uint(bits[ent/8]) >> (8 - cs)
	return got == uint(sum[0])>>(8-cs)
}

func isLetter(c byte) bool { return letterByte[c] }

var letterByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	return t
}()
