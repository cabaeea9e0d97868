package ifc

import "fmt"

// Level is a sensitivity level. Levels are ordered, so combining the
// levels of several sources is a max. Stores keep them as the integers
// 0..4.
type Level uint8

// The five levels, least sensitive first.
const (
	Public       Level = iota // published material: READMEs, licences, system docs
	Internal                  // ordinary working data: source code, notes; the default
	Confidential              // legal and business documents, account lists
	Restricted                // finance, health and identity records, shell histories
	Critical                  // credentials, keys, secrets: never leave the machine
)

// levelCount is the number of levels.
const levelCount = int(Critical) + 1

var levelNames = [levelCount]string{"public", "internal", "confidential", "restricted", "critical"}

// String names the level; an out-of-range value reads "critical" so that
// a corrupted level is never shown as harmless.
func (l Level) String() string {
	if int(l) < levelCount {
		return levelNames[l]
	}
	return "critical"
}

// Valid reports whether l is one of the five levels.
func (l Level) Valid() bool { return int(l) < levelCount }

// clamp maps an out-of-range value to Critical (fail closed).
func (l Level) clamp() Level {
	if int(l) < levelCount {
		return l
	}
	return Critical
}

// ParseLevel reads a level name (lower case, as String writes it).
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if n == s {
			return Level(i), nil
		}
	}
	return Critical, fmt.Errorf("unknown level %q (want public, internal, confidential, restricted or critical)", s)
}

// Levels lists the five levels in order.
func Levels() []Level { return []Level{Public, Internal, Confidential, Restricted, Critical} }

// MarshalText writes the level's name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a level's name.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}
