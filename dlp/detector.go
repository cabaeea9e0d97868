package dlp

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Finding is one match. It holds the span, never the matched text: pass
// the scanned text to Preview for a masked view.
type Finding struct {
	Scanner string `json:"scanner"`
	Class   Class  `json:"class"`
	Action  Action `json:"action"`
	Start   int    `json:"start"` // byte offset of the first matched byte
	End     int    `json:"end"`   // byte offset after the last matched byte
}

// Preview returns a masked view of the finding in text: the format's
// public prefix where it has one (e.g. "ghp_"), an ellipsis and the
// length. It never shows the secret part.
func (f Finding) Preview(text string) string {
	n := f.End - f.Start
	if f.Start < 0 || f.End > len(text) || n <= 0 {
		return "…"
	}
	p := 0
	for i := range scanners {
		if scanners[i].ID == f.Scanner {
			p = scanners[i].prefix
			break
		}
	}
	if p*3 > n {
		p = 0
	}
	return text[f.Start:f.Start+p] + "…[" + strconv.Itoa(n) + "]"
}

// Result is the classification of one text.
type Result struct {
	Class    Class     `json:"class"`
	Block    bool      `json:"block"` // a finding's action is Block
	Findings []Finding `json:"findings,omitempty"`
}

// Has reports whether a finding of the scanner id is in r.
func (r Result) Has(id string) bool {
	for _, f := range r.Findings {
		if f.Scanner == id {
			return true
		}
	}
	return false
}

// Decoded reports whether the scanner id reports data that only decoding
// showed (encoded_url_secret, encoded_secret): data carried in disguise,
// never a credential presented as one. A failed scan (ScanErrorID) counts
// too, so a caller that keeps only decoded findings still fails closed.
func Decoded(id string) bool {
	return id == scanners[idEncodedURLSecret].ID || id == scanners[idEncodedSecret].ID || id == ScanErrorID
}

// ScanErrorID names the finding a scan reports when it fails internally:
// the whole text, class Secret, action Block.
const ScanErrorID = "scan_error"

// Detector runs the scanner table with its configured actions. It is
// immutable and safe for concurrent use.
type Detector struct {
	actions [numScanners]Action
	disp    *dispatch
}

// Option configures New.
type Option func(*Detector) error

// WithActions overrides the default action of the named scanners. An
// unknown scanner id or action value is an error.
func WithActions(m map[string]Action) Option {
	return func(d *Detector) error {
		idx := scannerIndex()
		ids := make([]string, 0, len(m))
		for id := range m {
			ids = append(ids, id)
		}
		sort.Strings(ids) // deterministic error for several bad ids
		for _, id := range ids {
			i, ok := idx[id]
			if !ok {
				return fmt.Errorf("dlp action override %q: unknown scanner", id)
			}
			a := m[id]
			if a != Monitor && a != Redact && a != Block {
				return fmt.Errorf("dlp action override %q: unknown action %d", id, a)
			}
			d.actions[i] = a
		}
		return nil
	}
}

// WithAction overrides the default action of one scanner.
func WithAction(id string, a Action) Option {
	return WithActions(map[string]Action{id: a})
}

// New returns a detector with the default actions, changed by opts.
func New(opts ...Option) (*Detector, error) {
	d := &Detector{disp: defaultDispatch}
	for i := range scanners {
		d.actions[i] = scanners[i].Action
	}
	for _, o := range opts {
		if err := o(d); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Action returns the configured action of a scanner.
func (d *Detector) Action(id string) (Action, bool) {
	for i := range scanners {
		if scanners[i].ID == id {
			return d.actions[i], true
		}
	}
	return Block, false
}

// Scan classifies text. It reads the text once; findings come sorted by
// start. A scan that fails internally reports one ScanErrorID finding
// over the whole text: class Secret, Block.
func (d *Detector) Scan(text string) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = failedResult(len(text))
		}
	}()
	hits := resolve(d.disp.run(text))
	res.Class = Normal
	public := false
	if len(hits) > 0 {
		res.Findings = make([]Finding, len(hits))
	}
	for k, h := range hits {
		sc := &scanners[h.id]
		a := d.actions[h.id]
		res.Findings[k] = Finding{Scanner: sc.ID, Class: sc.Class, Action: a, Start: h.start, End: h.end}
		res.Block = res.Block || a == Block
		if sc.Class == Public {
			public = true
			continue
		}
		res.Class = MaxClass(res.Class, sc.Class)
	}
	if public && res.Class == Normal { // a public marking and nothing else
		res.Class = Public
	}
	return res
}

func failedResult(n int) Result {
	return Result{Class: Secret, Block: true,
		Findings: []Finding{{Scanner: ScanErrorID, Class: Secret, Action: Block, Start: 0, End: n}}}
}

// maxRemask bounds the passes that mask further copies of masked values.
const maxRemask = 3

// Redact returns text with every Redact or Block finding replaced by
// "[REDACTED:<scanner>]", and the scan result. Overlapping spans merge.
// Other copies of a masked value are masked as well, even where their
// context would not have matched; if that does not settle, the whole
// text is replaced by "[REDACTED:dlp]" (fail closed).
func (d *Detector) Redact(text string) (string, Result) {
	res := d.Scan(text)
	var b strings.Builder
	ns := newNeedles()
	last := 0
	for k := 0; k < len(res.Findings); {
		f := res.Findings[k]
		k++
		if f.Action == Monitor {
			continue
		}
		start, end, id := max(f.Start, last), f.End, f.Scanner
		for k < len(res.Findings) && res.Findings[k].Start < end {
			if g := res.Findings[k]; g.Action != Monitor {
				end = max(end, g.End)
			}
			k++
		}
		if end <= start {
			continue
		}
		ns.add(text[start:end], id)
		if b.Cap() == 0 {
			b.Grow(len(text) + 64)
		}
		b.WriteString(text[last:start])
		b.WriteString(mask(id))
		last = end
	}
	if last == 0 && b.Len() == 0 {
		return text, res
	}
	b.WriteString(text[last:])
	return ns.remask(b.String()), res
}

func mask(id string) string { return "[REDACTED:" + id + "]" }
