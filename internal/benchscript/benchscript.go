// Package benchscript builds the realistic shell scripts the cost
// benchmarks of the analyser and the gate run on: functions, loops,
// pipelines, here-documents, case, if, variables and inline interpreter
// code, assembled deterministically from the parts in parts.sh, so a
// script of n lines is the same script in every run and every package.
package benchscript

import (
	_ "embed"
	"strconv"
	"strings"
)

//go:embed parts.sh
var partsFile string

// parts are the constructs of parts.sh, each a slice of lines, in order.
var parts = split(partsFile)

func split(s string) [][]string {
	var out [][]string
	var cur []string
	inHeader := true
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l == "#--" {
			if !inHeader && len(cur) > 0 {
				out = append(out, cur)
			}
			cur, inHeader = nil, false
			continue
		}
		if !inHeader {
			cur = append(cur, l)
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// Script returns a script of exactly n lines: the parts in order, round
// after round ({{i}} replaced by the round), each part whole; the lines a
// whole part would overrun are filled with one-line commands.
func Script(n int) string {
	var b strings.Builder
	lines := 0
	for round := 0; lines < n; round++ {
		r := strconv.Itoa(round)
		for _, p := range parts {
			if lines+len(p) > n {
				continue
			}
			for _, l := range p {
				b.WriteString(strings.ReplaceAll(l, "{{i}}", r))
				b.WriteByte('\n')
			}
			lines += len(p)
		}
	}
	return b.String()
}
