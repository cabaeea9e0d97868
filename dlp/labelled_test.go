package dlp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// The labelled set (testdata/labelled.jsonl, written by
// testdata/gen.go): one record per line, {"text", "want": [scanner ids],
// "near": scanner id a negative resembles}. A record is a positive for
// every id in want and a negative for every other scanner.

type labelled struct {
	Text string   `json:"text"`
	Want []string `json:"want"`
	Near string   `json:"near"`
	line int
}

func loadLabelled(t testing.TB) []labelled {
	t.Helper()
	f, err := os.Open("testdata/labelled.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	known := scannerIndex()
	var recs []labelled
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var rec labelled
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("labelled.jsonl:%d: %v", n, err)
		}
		if rec.Want == nil {
			t.Fatalf("labelled.jsonl:%d: no want (use [] for a negative)", n)
		}
		for _, id := range append(slices.Clone(rec.Want), rec.Near) {
			if _, ok := known[id]; id != "" && !ok {
				t.Fatalf("labelled.jsonl:%d: unknown scanner %q", n, id)
			}
		}
		rec.line = n
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// score is one scanner's counts over the set.
type score struct{ tp, fp, fn, near int }

func (s score) precision() float64 {
	if s.tp+s.fp == 0 {
		return 1
	}
	return float64(s.tp) / float64(s.tp+s.fp)
}

func (s score) recall() float64 {
	if s.tp+s.fn == 0 {
		return 1
	}
	return float64(s.tp) / float64(s.tp+s.fn)
}

// Floors the labelled set is held to.
const (
	minPositives       = 300
	minNegatives       = 300
	minPrecision       = 0.95
	minRecall          = 0.80
	minScannerPos      = 5 // records expecting the scanner
	minScannerNegative = 5 // negatives written to resemble the scanner
)

// TestLabelled measures per-scanner precision and recall on the labelled
// set and fails below the floors. Run with -v for the table:
//
//	go test ./dlp -run TestLabelled -v
func TestLabelled(t *testing.T) {
	recs := loadLabelled(t)
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	scores := map[string]*score{}
	for _, s := range scanners {
		scores[s.ID] = &score{}
	}
	var npos, nneg int
	for _, rec := range recs {
		if len(rec.Want) == 0 {
			nneg++
			if rec.Near != "" {
				scores[rec.Near].near++
			}
		} else {
			npos++
		}
		got := foundIDs(d.Scan(rec.Text))
		for _, id := range got {
			if slices.Contains(rec.Want, id) {
				scores[id].tp++
			} else {
				scores[id].fp++
				t.Logf("line %d: false %s in %.80q", rec.line, id, rec.Text)
			}
		}
		for _, id := range rec.Want {
			if !slices.Contains(got, id) {
				scores[id].fn++
				t.Logf("line %d: missed %s in %.80q", rec.line, id, rec.Text)
			}
		}
	}
	if npos < minPositives || nneg < minNegatives {
		t.Errorf("got %d positives and %d negatives, want at least %d and %d", npos, nneg, minPositives, minNegatives)
	}
	t.Log("\n" + scoreTable(scores, npos, nneg))
	for _, s := range scanners {
		sc := scores[s.ID]
		if p := sc.precision(); p < minPrecision {
			t.Errorf("%s: got precision %.3f, want >= %.2f", s.ID, p, minPrecision)
		}
		if r := sc.recall(); r < minRecall {
			t.Errorf("%s: got recall %.3f, want >= %.2f", s.ID, r, minRecall)
		}
		if sc.tp+sc.fn < minScannerPos || sc.near < minScannerNegative {
			t.Errorf("%s: got %d positives and %d look-alike negatives, want at least %d and %d",
				s.ID, sc.tp+sc.fn, sc.near, minScannerPos, minScannerNegative)
		}
	}
}

func scoreTable(scores map[string]*score, npos, nneg int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d positive records, %d negative records\n", npos, nneg)
	fmt.Fprintf(&b, "%-28s %4s %4s %4s %5s %9s %7s\n", "scanner", "TP", "FP", "FN", "near", "precision", "recall")
	var all score
	for _, s := range scanners {
		sc := scores[s.ID]
		all.tp += sc.tp
		all.fp += sc.fp
		all.fn += sc.fn
		all.near += sc.near
		fmt.Fprintf(&b, "%-28s %4d %4d %4d %5d %9.3f %7.3f\n", s.ID, sc.tp, sc.fp, sc.fn, sc.near, sc.precision(), sc.recall())
	}
	fmt.Fprintf(&b, "%-28s %4d %4d %4d %5d %9.3f %7.3f\n", "all", all.tp, all.fp, all.fn, all.near, all.precision(), all.recall())
	return b.String()
}
