package heuristic

import (
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/dlp"
	"github.com/parallax/parallax/shell"
)

// Financial identifiers leaving the machine (PCI DSS for card numbers,
// ISO 13616 IBANs, cryptocurrency private keys; OWASP LLM02): the dlp
// scanners validate them (Luhn, mod-97, base58check), and tier 1 blocks
// them in outbound payloads and in networked shell commands. Content
// classification alone would only ask for review of restricted data.

var finDetector, finDetectorErr = dlp.New()

// financialKinds names the dlp scanners this floor enforces.
var financialKinds = map[string]string{
	"credit_card":        "a payment card number",
	"iban":               "an IBAN",
	"crypto_private_key": "a cryptocurrency private key",
	"bip39_seed_phrase":  "a wallet seed phrase",
	dlp.ScanErrorID:      "text the financial scan could not read",
}

// findFinancial returns the kind of financial identifier in s. A scanner
// that cannot be built or fails counts as a finding: fail closed.
func findFinancial(s string) (string, bool) {
	if finDetectorErr != nil {
		return "text the financial scan could not read", true
	}
	if len(s) < 13 || !mayHoldFinancial(s) {
		return "", false
	}
	for _, f := range finDetector.Scan(s).Findings {
		if k, ok := financialKinds[f.Scanner]; ok {
			return k, true
		}
	}
	return "", false
}

// matchFinancialSend fires when a shell command that talks to the
// network carries a financial identifier (curl -d "pan=...", a WIF key
// in a query).
func matchFinancialSend(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	for i := range fx.Network {
		if fx.Network[i].Listen {
			continue
		}
		if k, ok := findFinancial(commandText(in)); ok {
			return k + " in a command that reaches the network", true
		}
		return "", false
	}
	return "", false
}

// matchFinancialLeak fires when an outbound typed action's text (body,
// URL, message) carries a financial identifier.
func matchFinancialLeak(in *Input) (string, bool) {
	if !action.SinkOf(in.Action.Type).External() {
		return "", false
	}
	for _, t := range in.Action.Payload.Texts() {
		if k, ok := findFinancial(t.Value); ok {
			return k + " in " + t.Name, true
		}
	}
	return "", false
}

// mayHoldFinancial is the cheap pre-check: 13 or more digits (a card or
// an IBAN has them), a "0x", a run of 51 base58-like characters (WIF), or
// twelve words (a seed phrase).
func mayHoldFinancial(s string) bool {
	digits, run, words, letters := 0, 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isDigit(c) {
			digits++
		}
		if isAlnum(c) {
			run++
		} else {
			run = 0
		}
		// words counts consecutive words of 3 to 8 letters between
		// blanks or list punctuation: a seed phrase has twelve.
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		case strings.IndexByte(" \t\r\n,.;()[]\"'+-0123456789", c) >= 0:
			if letters >= 3 && letters <= 8 {
				words++
			} else if letters > 0 {
				words = 0
			}
			letters = 0
		default:
			words, letters = 0, 0
		}
		if digits >= 13 || run >= 51 || words >= 11 && letters >= 3 || c == 'x' && i > 0 && s[i-1] == '0' {
			return true
		}
	}
	return false
}

// explorerDomains look wallet addresses up (block explorers and their
// APIs): an address sent there is what the site is for.
var explorerDomains = map[string]bool{
	"etherscan.io": true, "blockchain.com": true, "blockchain.info": true, "blockstream.info": true,
	"mempool.space": true, "blockchair.com": true, "blockcypher.com": true, "btcscan.org": true,
	"bscscan.com": true, "polygonscan.com": true, "arbiscan.io": true, "basescan.org": true,
	"ethplorer.io": true, "blockscout.com": true, "oklink.com": true,
}

// matchCryptoAddressSend fires when an outbound action or a command that
// reaches the network carries a wallet address (checksum verified:
// base58check, bech32/bech32m, EIP-55) anywhere but to a block explorer.
// An address is public, so a reviewer decides: paying or reporting to an
// attacker's wallet, or a wallet list leaving, looks the same as a
// donation link in a message.
func matchCryptoAddressSend(in *Input) (string, bool) {
	if in.Effects != nil {
		cmd := commandText(in)
		if !mayHoldAddress(cmd) || !networked(in.Effects) || allHosts(in, explorerHost) || !holdsAddress(cmd) {
			return "", false
		}
		return "a wallet address in a command that reaches the network", true
	}
	if !action.SinkOf(in.Action.Type).External() || explorerHost(requestHost(in.Action)) {
		return "", false
	}
	for _, t := range in.Action.Payload.Texts() {
		if mayHoldAddress(t.Value) && holdsAddress(t.Value) {
			return "a wallet address in " + t.Name, true
		}
	}
	return "", false
}

// holdsAddress reports a crypto_address finding in s (a failed scan
// counts: fail closed).
func holdsAddress(s string) bool {
	if finDetectorErr != nil {
		return true
	}
	for _, f := range finDetector.Scan(s).Findings {
		if f.Scanner == "crypto_address" || f.Scanner == dlp.ScanErrorID {
			return true
		}
	}
	return false
}

// networked reports a destination the command sends to.
func networked(fx *shell.Effects) bool {
	for i := range fx.Network {
		if !fx.Network[i].Listen {
			return true
		}
	}
	return false
}

// allHosts reports whether every host the action talks to satisfies ok.
func allHosts(in *Input, ok func(string) bool) bool {
	return !eachHost(in, func(h string) bool { return !ok(h) })
}

func explorerHost(h string) bool { return h != "" && explorerDomains[strings.ToLower(registrable(h))] }

// mayHoldAddress is the cheap pre-check: "0x", or a run of 26 or more
// letters and digits (base58 and bech32 addresses are that long).
func mayHoldAddress(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 'x' && i > 0 && s[i-1] == '0' {
			return true
		}
		if isAlnum(c) {
			if run++; run >= 26 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}
