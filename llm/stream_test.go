package llm

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

func TestStreamIdleTimeoutMidway(t *testing.T) {
	short := func(m *ModelConfig) { m.Timeout = 100 * time.Millisecond }
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, _ := setup(t, k, short, reply{file: "stream_text.sse", sse: true, events: k.cut, stall: true})
			s, err := p.Stream(context.Background(), helloRequest())
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			evs, err := drain(t, s)
			expectEqual(t, "events before the stall", len(evs), 1)
			e := asError(t, err)
			expectEqual(t, "kind", e.Kind, KindTimeout)
			expectEqual(t, "requests (no retry after start)", len(ws.requests()), 1)
		})
	}
}

func TestStreamCloseUnblocksNext(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, _, _ := setup(t, k, nil, reply{file: "stream_text.sse", sse: true, events: k.cut, stall: true})
			s, err := p.Stream(context.Background(), helloRequest())
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			if _, err := s.Next(); err != nil {
				t.Fatalf("first event: %v", err)
			}
			errc := make(chan error, 1)
			go func() {
				_, err := s.Next()
				errc <- err
			}()
			time.Sleep(20 * time.Millisecond) // let Next block on the wire
			if err := s.Close(); err != nil {
				t.Logf("close: %v", err)
			}
			select {
			case err := <-errc:
				e := asError(t, err)
				expectEqual(t, "kind", e.Kind, KindCanceled)
			case <-time.After(3 * time.Second):
				t.Fatal("Next still blocked after Close")
			}
			_, err = s.Next()
			expectEqual(t, "kind after close", asError(t, err).Kind, KindCanceled)
			if err := s.Close(); err != nil {
				t.Errorf("second close: %v", err)
			}
		})
	}
}

func TestStreamCallerCancelMidway(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, _, _ := setup(t, k, nil, reply{file: "stream_text.sse", sse: true, events: k.cut, stall: true})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s, err := p.Stream(ctx, helloRequest())
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			defer func() { _ = s.Close() }()
			if _, err := s.Next(); err != nil {
				t.Fatalf("first event: %v", err)
			}
			time.AfterFunc(20*time.Millisecond, cancel)
			_, err = s.Next()
			e := asError(t, err)
			expectEqual(t, "kind", e.Kind, KindCanceled)
			if !errors.Is(err, context.Canceled) {
				t.Error("errors.Is(err, context.Canceled): got false, want true")
			}
		})
	}
}

func TestStreamEOFAfterDone(t *testing.T) {
	k := kits[0]
	p, _, _ := setup(t, k, nil, reply{file: "stream_text.sse", sse: true})
	s, err := p.Stream(context.Background(), helloRequest())
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	if _, err := drain(t, s); err != nil {
		t.Fatalf("drain: %v", err)
	}
	for range 2 {
		if _, err := s.Next(); !errors.Is(err, io.EOF) {
			t.Errorf("after done: got %v, want io.EOF", err)
		}
	}
}
