// Package glob is the one glob engine of Parallax: the guard, the
// heuristics, the flow tables, the policy and the shell analyser all ask
// it, so that a pattern means the same thing wherever it is judged.
//
// Patterns come in these syntaxes, each an explicit mode (Syntax):
//
//   - Rule (the heuristic path tables): "**" is any run of characters,
//     "/" included; "*" is a run without "/"; "?" is one character that
//     is not "/"; every other character is literal. Match
//     matches a concrete path against a rule without allocating.
//   - Shell (what a command names; bash without dotglob): "*" and "?" stay
//     inside a segment, "**" is "*" (a tree is the guard's business, see
//     below), "[...]" is one character, "[!" and "[^" negate, "\x" is a
//     literal x, an unclosed "[" is literal, and a wildcard first in a
//     segment does not match a leading "." (".*" does). bash does not let
//     a set match it either ("[.]x" is not .x): MatchSeg and SegIntersect
//     say so, while the automaton lets a set name a leading dot, an
//     over-approximation the heuristics keep.
//   - ShellDot: Shell with dotglob (find's sets): wildcards match a
//     leading dot.
//   - Go (path.Match, the syntax of ifc's rules and of a segment after
//     ToGo): "[^" negates and "[!" does not, "\" escapes. ToGo rewrites a
//     bash segment into it ("[!" to "[^", POSIX classes to "?", an
//     unclosed "[" to "\["), and MatchSeg matches a name with the bash
//     leading-dot rule unless dot is set.
//
// Characters are UTF-8 throughout: "?" and a set stand for one
// character, not one byte (bash in a UTF-8 locale). A pattern that is
// not UTF-8 meets every pattern in the automaton (bash falls back to
// bytes there, where "*" may take half a character).
//
// Callers and what each needs:
//
//   - heuristic: Match (a concrete path against a table rule), Intersect
//     (could a path match both a shell glob and a rule: the product of two
//     automata, "?" and a set one UTF-8 character, with cheap literal,
//     slash-count and last-byte filters first), RuleIntersect (two rules),
//     LiteralPrefix/LiteralSuffix/LiteralsDisjoint and SegPairMeets.
//   - guard: ToGo and MatchSeg per segment, the guard's "**" crossing
//     segments for a find-style tree ("ROOT/**/NAME", bash globstar) by its
//     own reach over segments; Unfold for the case-pair segments
//     "*.[tT][xX][tT]" that find -iname becomes; LastBytes (Go syntax).
//   - ifc: SegIntersect (could one name match both a shell glob segment
//     and a path.Match rule segment: the automaton over Shell or ShellDot
//     against Go, a set counting as any one character, plus bash's rule
//     that only a literal "." matches a leading one) and LastBytes (bash
//     syntax).
//   - policy: user-written path globs are doublestar syntax and stay
//     doublestar's (github.com/bmatcuk/doublestar/v4, documented in the
//     policy format: "{a,b}" alternatives, "**" as a whole segment);
//     HasDoublestarMeta finds their metacharacters, and a shell glob is
//     compared with their literal directories through ToGo and MatchSeg.
//   - shell: Fold and Unfold for find -iname.
//
// Case folding exists only as Fold/Unfold (an ASCII letter becomes the
// set of its two cases); every other comparison is exact.
package glob

// Syntax is the syntax a pattern is compiled in.
type Syntax uint8

const (
	// Rule: "**" crosses "/", "*" and "?" do not, every other byte is literal.
	Rule Syntax = iota
	// Shell: bash globbing without dotglob (see the package doc).
	Shell
	// ShellDot: bash globbing with dotglob (find's sets, which match dot
	// names).
	ShellDot
	// Go: a path.Match segment; sets are any one character.
	Go
)

// Pattern is a compiled pattern, for Intersect and PatternsIntersect.
type Pattern []gtok

// HasMeta reports whether a shell or path.Match pattern holds a wildcard
// ("*", "?" or "[").
func HasMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '*' || c == '?' || c == '[' {
			return true
		}
	}
	return false
}

// HasDoublestarMeta reports an unescaped doublestar metacharacter
// ("*", "?", "[", "]", "{", "}").
func HasDoublestarMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++
		case IsDoublestarMeta(s[i]):
			return true
		}
	}
	return false
}

// IsDoublestarMeta reports whether c is a doublestar metacharacter.
func IsDoublestarMeta(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == ']' || c == '{' || c == '}'
}
