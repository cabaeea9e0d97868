package llm

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// Benchmarks of a whole call against the loopback wire servers:
//
//	go test -run '^$' -bench . -benchmem ./llm/
//
// BenchmarkRawHTTP is the floor: the same bytes posted and read with
// net/http alone. The difference to BenchmarkComplete is this package's
// and the SDK's cost per call.

func BenchmarkComplete(b *testing.B) {
	for _, k := range kits {
		b.Run(k.name, func(b *testing.B) {
			p, _, _ := setup(b, k, nil, reply{file: "text.json"})
			req := helloRequest()
			ctx := context.Background()
			for b.Loop() {
				if _, err := p.Complete(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkStreamToolCall(b *testing.B) {
	for _, k := range kits {
		b.Run(k.name, func(b *testing.B) {
			p, _, _ := setup(b, k, nil, reply{file: "stream_tool.sse", sse: true})
			req := weatherRequest()
			ctx := context.Background()
			for b.Loop() {
				s, err := p.Stream(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Collect(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRawHTTP(b *testing.B) {
	for _, k := range kits {
		b.Run(k.name, func(b *testing.B) {
			ws := newWireServer(b, k.name, k.crlf, reply{file: "text.json"})
			body := []byte(`{"model":"m","max_tokens":256,"messages":[{"role":"user","content":"Hello"}]}`)
			hc := &http.Client{}
			url := ws.srv.URL + k.path
			for b.Loop() {
				resp, err := hc.Post(url, "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					b.Fatal(err)
				}
				_ = resp.Body.Close()
			}
		})
	}
}

func BenchmarkSSEReader(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "wire", "anthropic", "stream_tool.sse"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r := newSSEReader(bytes.NewReader(data))
		for {
			if _, err := r.next(); err != nil {
				break
			}
		}
	}
}
