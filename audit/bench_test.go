package audit

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The benchmarks write to t.TempDir(): run them with TMPDIR on the disk
// you care about (tmpfs makes fsync free).
//
//	go test -run='^$' -bench=. -benchtime=3s ./audit/

// BenchmarkAppend is one writer, each Append durable before the next.
func BenchmarkAppend(b *testing.B) {
	l := openT(b, tempLog(b))
	ctx := context.Background()
	ev := sampleEvent(1)
	start := time.Now()
	for b.Loop() {
		if _, err := l.Append(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
}

// BenchmarkAppendParallel8 is eight writers appending as fast as they can;
// group commit shares each fsync among the appends waiting for it. (It
// splits b.N among exactly eight goroutines, which b.Loop cannot express.)
func BenchmarkAppendParallel8(b *testing.B) {
	l := openT(b, tempLog(b))
	ctx := context.Background()
	ev := sampleEvent(1)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range 8 {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if _, err := l.Append(ctx, ev); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	st := l.Stats()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "appends/s")
	b.ReportMetric(float64(st.Entries)/float64(max(st.Batches, 1)), "entries/fsync")
}

// BenchmarkOpenAppendClose is what a short-lived hook process does per
// event: open (tail and head checked), one durable append, close.
func BenchmarkOpenAppendClose(b *testing.B) {
	path := writeLog(b, 100)
	ev := sampleEvent(1)
	for b.Loop() {
		l, err := Open(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Append(context.Background(), ev); err != nil {
			b.Fatal(err)
		}
		if err := l.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// bigLog writes an n-entry log and its head without fsyncs, for readers.
func bigLog(b *testing.B, n int) string {
	b.Helper()
	path := tempLog(b)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		b.Fatal(err)
	}
	data := seedLog(n)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	t, err := readTail(mustOpen(b, path), path, int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(HeadPath(path), formatHead(Anchor{Seq: t.seq, Hash: t.hash}), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

func mustOpen(b *testing.B, path string) *os.File {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = f.Close() })
	return f
}

func BenchmarkVerify100k(b *testing.B) {
	const n = 100_000
	path := bigLog(b, n)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		rep, err := Verify(path, VerifyOptions{})
		if err != nil || rep.Entries != n {
			b.Fatalf("got %d entries, %v", rep.Entries, err)
		}
	}
}

func BenchmarkScanLast20of100k(b *testing.B) {
	path := bigLog(b, 100_000)
	for b.Loop() {
		if err := Scan(path, Filter{Last: 20}, func(Entry) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
