package audit

import (
	"errors"
	"os"
	"testing"
)

func collect(t *testing.T, path string, f Filter) ([]uint64, error) {
	t.Helper()
	var seqs []uint64
	err := Scan(path, f, func(e Entry) error {
		seqs = append(seqs, e.Seq)
		return nil
	})
	return seqs, err
}

func TestScanFilters(t *testing.T) {
	path := writeLog(t, 10) // sessions s1, s2, s0, s1, …; all ActionEvaluated
	for _, c := range []struct {
		name string
		f    Filter
		want []uint64
	}{
		{"all", Filter{}, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"last 3", Filter{Last: 3}, []uint64{8, 9, 10}},
		{"last 20", Filter{Last: 20}, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"session", Filter{Session: "s1"}, []uint64{1, 4, 7, 10}},
		{"session last 2", Filter{Session: "s1", Last: 2}, []uint64{7, 10}},
		{"type", Filter{Type: ActionEvaluated, Last: 1}, []uint64{10}},
		{"other type", Filter{Type: SessionStarted}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := collect(t, path, c.f)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("got %v, want %v", got, c.want)
					break
				}
			}
		})
	}
}

func TestScanReportsBadLinesAfterEmitting(t *testing.T) {
	path := writeLog(t, 6)
	lf := readFiles(t, path)
	lf.flip(t, 5, "reads", "Reads")
	lf.write(t, path)
	got, err := collect(t, path, Filter{Last: 2})
	if len(got) != 2 || got[0] != 3 || got[1] != 4 {
		t.Errorf("got %v, want [3 4] (the entries before the bad line)", got)
	}
	ce, ok := AsChainError(err)
	if !ok || ce.Code != CodeHashMismatch || ce.Line != 5 || ce.Seq != 5 {
		t.Errorf("got %v, want hash_mismatch at line 5", err)
	}

	stop := errors.New("stop")
	if err := Scan(path, Filter{}, func(Entry) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("got %v, want the callback's error", err)
	}
	if err := Scan(path+".missing", Filter{}, func(Entry) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want not-exist", err)
	}
}

func TestScanLineLimit(t *testing.T) {
	path := writeLog(t, 2)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, MaxLine+10)
	for i := range big {
		big[i] = 'a'
	}
	if _, err := f.Write(append(big, '\n')); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, path, Filter{}); !hasCode(err, CodeLineTooLong) {
		t.Errorf("scan: got %v, want line_too_long", err)
	}
	_, err = Verify(path, VerifyOptions{})
	if ce, ok := AsChainError(err); !ok || ce.Code != CodeLineTooLong || ce.Line != 3 {
		t.Errorf("verify: got %v, want line_too_long at line 3", err)
	}
	if _, err := Open(path, Options{}); !hasCode(err, CodeBadJSON) && !hasCode(err, CodeLineTooLong) {
		t.Errorf("open: got %v, want the last line refused", err)
	}
}
