package inject

import (
	"regexp"
	"slices"
	"testing"
)

// TestInjectionRulesCopy scans every rule's examples, edits what
// InjectionRules returned every way a caller could, and scans again: the
// findings must not change, and the index must still agree with the table.
func TestInjectionRulesCopy(t *testing.T) {
	rules := InjectionRules()
	type probe struct {
		text  string
		scope Scope
		want  []string
	}
	var probes []probe
	for _, r := range rules {
		for _, ex := range append(slices.Clone(r.Positive), r.Negative...) {
			probes = append(probes, probe{ex, ScopeBoth, ScanInjection(ex, ScopeBoth)})
		}
	}
	for i := range rules {
		r := &rules[i]
		for j := range r.Keywords {
			r.Keywords[j] = "zzzz"
		}
		if r.Pattern != nil {
			r.Pattern.Longest()
		}
		r.Pattern = regexp.MustCompile(`^$`)
		r.Scope = 0
		r.ID = "vandalised"
	}
	for _, p := range probes {
		if got := ScanInjection(p.text, p.scope); !slices.Equal(got, p.want) {
			t.Errorf("%q after editing InjectionRules(): got %v, want %v", p.text, got, p.want)
		}
	}
	for i, r := range injectionRules() {
		var want []string
		for _, refs := range keywordTable() {
			for _, ref := range refs {
				if ref.rule == i {
					want = append(want, ref.kw)
				}
			}
		}
		got := slices.Clone(r.Keywords)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("rule %s: index holds keywords %v, table %v", r.ID, want, got)
		}
	}
}
