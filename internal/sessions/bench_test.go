package sessions

import (
	"context"
	"testing"
)

// BenchmarkAppend: one stored message (a durable SQLite write and the
// title check) on a real workspace database.
//
//	go test -run='^$' -bench=Append -benchmem ./internal/sessions/
func BenchmarkAppend(b *testing.B) {
	e := newEnv(b, nil)
	s, err := e.m.New(context.Background(), false)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		if err := e.m.Append(ctx, s.ID, "user", "a message of a typical length for a chat, about one line"); err != nil {
			b.Fatal(err)
		}
	}
}
