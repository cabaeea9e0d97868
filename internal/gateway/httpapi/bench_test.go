package httpapi

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
)

// BenchmarkEvaluateHTTP: one audited decision per request over loopback,
// clients in parallel (GOMAXPROCS × -cpu goroutines), keep-alive. Each
// request reads a distinct workspace file, so nothing is cached by input.
//
//	go test -run='^$' -bench=EvaluateHTTP -benchtime=3s ./internal/gateway/httpapi/
func BenchmarkEvaluateHTTP(b *testing.B) {
	ts := startServer(b, Config{}, nil)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	defer client.CloseIdleConnections()
	var n atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			body := fmt.Sprintf(`{"id":"%d","session":"bench","type":"read_file","payload":{"path":"%s/src/f%d.go"}}`, i, ts.root, i)
			req, _ := http.NewRequest(http.MethodPost, ts.url+"/v1/evaluate", bytes.NewReader([]byte(body)))
			req.Header.Set("Authorization", "Bearer "+testToken)
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
}

// BenchmarkDecodeEvaluate: the strict decode of a batch of 16.
func BenchmarkDecodeEvaluate(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"requests":[`)
	for i := range 16 {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"id":"%d","session":"s1","type":"execute_command","payload":{"command":"go test ./pkg%d/..."}}`, i, i)
	}
	buf.WriteString(`]}`)
	body := buf.Bytes()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, _, err := decodeEvaluate(body, DefaultMaxBatch); err != nil {
			b.Fatal(err)
		}
	}
}
