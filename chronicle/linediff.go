package chronicle

import (
	"fmt"
	"strings"
)

// edit is one step of a line edit script: keep a[ai] (== b[bi]), delete
// a[ai], or insert b[bi].
type edit struct {
	op     byte // ' ', '-', '+'
	ai, bi int
}

// maxEditDistance bounds the diff's work; beyond it the files are shown
// as replaced wholesale.
const maxEditDistance = 1000

// splitLines splits after each "\n"; a last line without one is kept.
func splitLines(b []byte) []string {
	var out []string
	s := string(b)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// lineEdits is Myers' O((N+M)·D) shortest edit script (Myers 1986, "An
// O(ND) difference algorithm"): greedy furthest-reaching paths per
// diagonal, then a walk back through the saved frontiers.
func lineEdits(a, b []string) []edit {
	n, m := len(a), len(b)
	total := n + m
	if total == 0 {
		return nil
	}
	off := total + 1
	v := make([]int, 2*total+3)
	var trace [][]int // trace[d][k+d] = frontier before step d, for k in -d..d
	for d := 0; d <= total; d++ {
		if d > maxEditDistance {
			return replaceAll(n, m)
		}
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: insert b[y]
			} else {
				x = v[off+k-1] + 1 // right: delete a[x]
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m, d)
			}
		}
	}
	return replaceAll(n, m)
}

func backtrack(trace [][]int, n, m, dmax int) []edit {
	var out []edit
	x, y := n, m
	for d := dmax; d > 0; d-- {
		fr := trace[d] // index k+d
		at := func(k int) int { return fr[k+d] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		mx, my := px+1, py // after deleting a[px]
		if pk == k+1 {
			mx, my = px, py+1 // after inserting b[py]
		}
		for x > mx && y > my {
			x, y = x-1, y-1
			out = append(out, edit{' ', x, y})
		}
		if pk == k+1 {
			out = append(out, edit{'+', px, py})
		} else {
			out = append(out, edit{'-', px, py})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		out = append(out, edit{' ', x, y})
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func replaceAll(n, m int) []edit {
	out := make([]edit, 0, n+m)
	for i := range n {
		out = append(out, edit{'-', i, 0})
	}
	for j := range m {
		out = append(out, edit{'+', n, j})
	}
	return out
}

// unifiedDiff renders a unified diff with three lines of context; "" when
// a and b are equal.
func unifiedDiff(fromName, toName string, a, b []byte) string {
	al, bl := splitLines(a), splitLines(b)
	edits := lineEdits(al, bl)
	const ctx = 3
	var sb strings.Builder
	for i := 0; i < len(edits); {
		if edits[i].op == ' ' {
			i++
			continue
		}
		start := max(i-ctx, 0)
		end := i // extend over changes separated by at most 2*ctx kept lines
		for j := i; j < len(edits); j++ {
			if edits[j].op != ' ' {
				end = j
			} else if j-end > 2*ctx {
				break
			}
		}
		stop := min(end+ctx+1, len(edits))
		if sb.Len() == 0 {
			fmt.Fprintf(&sb, "--- %s\n+++ %s\n", fromName, toName)
		}
		writeHunk(&sb, edits[start:stop], al, bl)
		i = stop
	}
	return sb.String()
}

func writeHunk(sb *strings.Builder, h []edit, a, b []string) {
	var na, nb int
	for _, e := range h {
		switch e.op {
		case ' ':
			na, nb = na+1, nb+1
		case '-':
			na++
		case '+':
			nb++
		}
	}
	sa, sbb := h[0].ai+1, h[0].bi+1
	if na == 0 {
		sa--
	}
	if nb == 0 {
		sbb--
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(sa, na), hunkRange(sbb, nb))
	for _, e := range h {
		line := ""
		switch e.op {
		case ' ', '-':
			line = a[e.ai]
		case '+':
			line = b[e.bi]
		}
		sb.WriteByte(e.op)
		sb.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
