package dlp

import "fmt"

// Class is how sensitive a piece of text is. The order is
// Public < Normal < Sensitive < Secret; compare classes with Rank or Max,
// never with the numeric operators. The zero value is Secret, so a Class
// that was never set (or came from a failed scan) is the most restrictive.
type Class uint8

const (
	// Secret is credentials, private keys and data marked secret: it must
	// not leave the machine or reach the agent unmasked.
	Secret Class = iota
	// Sensitive is personal, health and payment data and material marked
	// confidential.
	Sensitive
	// Normal is text with nothing found in it.
	Normal
	// Public is text explicitly marked for public release, with nothing
	// more sensitive in it.
	Public
)

// Rank orders classes: Public 0 < Normal 1 < Sensitive 2 < Secret 3. Any
// value outside the four ranks as Secret.
func (c Class) Rank() int {
	switch c {
	case Public:
		return 0
	case Normal:
		return 1
	case Sensitive:
		return 2
	default:
		return 3
	}
}

// String returns PUBLIC, NORMAL, SENSITIVE or SECRET.
func (c Class) String() string {
	switch c {
	case Public:
		return "PUBLIC"
	case Normal:
		return "NORMAL"
	case Sensitive:
		return "SENSITIVE"
	default:
		return "SECRET"
	}
}

// MaxClass returns the more sensitive of two classes.
func MaxClass(a, b Class) Class {
	if b.Rank() > a.Rank() {
		return b
	}
	return a
}

// ParseClass reads PUBLIC, NORMAL, SENSITIVE or SECRET (any case).
func ParseClass(s string) (Class, error) {
	switch lowerASCII(s) {
	case "public":
		return Public, nil
	case "normal":
		return Normal, nil
	case "sensitive":
		return Sensitive, nil
	case "secret":
		return Secret, nil
	}
	return Secret, fmt.Errorf("parse class %q: want public, normal, sensitive or secret", s)
}

// MarshalText implements encoding.TextMarshaler.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *Class) UnmarshalText(b []byte) error {
	v, err := ParseClass(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Action is what happens to text a scanner matched. The zero value is
// Block, so an Action that was never set fails closed.
type Action uint8

const (
	// Block withholds the whole text (or refuses the action carrying it).
	Block Action = iota
	// Redact masks the matched span and lets the rest through.
	Redact
	// Monitor only records the finding.
	Monitor
)

// Rank orders actions: Monitor 0 < Redact 1 < Block 2; unknown values
// rank as Block.
func (a Action) Rank() int {
	switch a {
	case Monitor:
		return 0
	case Redact:
		return 1
	default:
		return 2
	}
}

// String returns monitor, redact or block.
func (a Action) String() string {
	switch a {
	case Monitor:
		return "monitor"
	case Redact:
		return "redact"
	default:
		return "block"
	}
}

// ParseAction reads monitor, redact or block (any case).
func ParseAction(s string) (Action, error) {
	switch lowerASCII(s) {
	case "monitor":
		return Monitor, nil
	case "redact":
		return Redact, nil
	case "block":
		return Block, nil
	}
	return Block, fmt.Errorf("parse action %q: want monitor, redact or block", s)
}

// MarshalText implements encoding.TextMarshaler.
func (a Action) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (a *Action) UnmarshalText(b []byte) error {
	v, err := ParseAction(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}
