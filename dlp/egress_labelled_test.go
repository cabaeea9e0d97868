package dlp

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/parallax/parallax/internal/egresscases"
)

// TestEgressLabelled scores the scanners on the outbound labelled set
// (internal/egresscases): an attack is found when the text it sends is
// classed SECRET or SENSITIVE or holds a wallet address; a look-alike
// must be neither. Host names are the gate's to judge (dns_label_*), so
// DNS cases are scored by TestGateEgressLabelled only. -v prints the
// table by channel.
func TestEgressLabelled(t *testing.T) {
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	type counts struct{ tp, fn, fp, tn int }
	by := map[string]*counts{}
	var all counts
	for _, c := range egresscases.Cases() {
		if c.Text == "" || c.Channel == "dig" || c.Channel == "nslookup" || c.Channel == "host" {
			continue
		}
		res := d.Scan(c.Text)
		found := res.Class == Secret || res.Class == Sensitive || res.Has("crypto_address")
		k := by[c.Channel]
		if k == nil {
			k = &counts{}
			by[c.Channel] = k
		}
		for _, n := range []*counts{k, &all} {
			switch {
			case c.Attack && found:
				n.tp++
			case c.Attack:
				n.fn++
			case found:
				n.fp++
			default:
				n.tn++
			}
		}
		if c.Attack != found {
			t.Logf("%s: attack %v, found %v (%v)", c.Name, c.Attack, found, foundIDs(res))
		}
	}
	ratio := func(a, b int) float64 {
		if a+b == 0 {
			return 1
		}
		return float64(a) / float64(a+b)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s %4s %4s %4s %4s %9s %6s\n", "channel", "tp", "fn", "fp", "tn", "precision", "recall")
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range append(names, "all") {
		k := by[n]
		if n == "all" {
			k = &all
		}
		fmt.Fprintf(&b, "%-10s %4d %4d %4d %4d %9.3f %6.3f\n", n, k.tp, k.fn, k.fp, k.tn, ratio(k.tp, k.fp), ratio(k.tp, k.fn))
	}
	t.Log("\n" + b.String())
	if p, r := ratio(all.tp, all.fp), ratio(all.tp, all.fn); p < 1 || r < 0.95 {
		t.Errorf("got precision %.3f and recall %.3f, want 1.000 and >= 0.95", p, r)
	}
}
