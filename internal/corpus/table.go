package corpus

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable prints one row per category (attacks by outcome, legit cases
// by outcome, pass/fail), a total row, and the headline rates.
func (r *Report) WriteTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "category\tattacks\tblocked\tescalated\tallowed\t\tlegit\tallowed\tescalated\tblocked\t\tpass\tfail\t")
	for _, c := range r.Categories {
		writeRow(tw, c.Name, &c.Tally)
	}
	writeRow(tw, "TOTAL", &r.Total)
	_ = tw.Flush()
	t := &r.Total
	fmt.Fprintf(w, "\nattacks stopped  %s  (blocked or escalated)\n",
		ratio(t.AttacksBlocked+t.AttacksEscalated, t.Attacks))
	fmt.Fprintf(w, "attacks blocked  %s\n", ratio(t.AttacksBlocked, t.Attacks))
	fmt.Fprintf(w, "legit allowed    %s\n", ratio(t.LegitAllowed, t.Legit))
	fmt.Fprintf(w, "legit blocked    %d\n", t.LegitBlocked)
	fmt.Fprintf(w, "must failures    %d\n", len(r.MustFailures()))
}

func writeRow(w io.Writer, name string, t *Tally) {
	fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t\t%d\t%d\t%d\t%d\t\t%d\t%d\t\n", name,
		t.Attacks, t.AttacksBlocked, t.AttacksEscalated, t.AttacksAllowed,
		t.Legit, t.LegitAllowed, t.LegitEscalated, t.LegitBlocked, t.Passed, t.Failed)
}

func ratio(n, d int) string {
	if d == 0 {
		return fmt.Sprintf("%d/%d (n/a)", n, d)
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", n, d, 100*float64(n)/float64(d))
}

// WriteFailures lists failures, one per line: where, id, want/got and the
// verdict that decided.
func WriteFailures(w io.Writer, fs []Failure) {
	for _, f := range fs {
		must := ""
		if f.Must {
			must = " [must]"
		}
		fmt.Fprintf(w, "%s:%d: %s%s: want %s, got %s (step %d: stage=%s rule=%s: %s)\n",
			f.File, f.Line, f.ID, must, f.Want, f.Got, f.Step, f.Verdict.Stage, f.Verdict.Rule, f.Verdict.Reason)
	}
}
