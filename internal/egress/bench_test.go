package egress

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
)

// echoServer answers every connection by echoing until EOF.
func echoServer(b *testing.B) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// roundTrip writes one byte and reads it back.
func roundTrip(b *testing.B, c net.Conn, r io.Reader) {
	var buf [1]byte
	if _, err := c.Write([]byte{'x'}); err != nil {
		b.Fatal(err)
	}
	if _, err := io.ReadFull(r, buf[:]); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDirectDial is the baseline: dial a loopback echo server, one
// byte there and back, close.
func BenchmarkDirectDial(b *testing.B) {
	addr := echoServer(b)
	for b.Loop() {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		roundTrip(b, c, c)
		_ = c.Close()
	}
}

// BenchmarkConnect is the same through the proxy: dial it, CONNECT to a
// literal registry entry (checked, pinned, audited), one byte there and
// back, close.
func BenchmarkConnect(b *testing.B) {
	addr := echoServer(b)
	p, err := New(Config{Registries: []string{addr}, Audit: func(Conn) {}})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = p.Serve(ln) }()
	b.Cleanup(func() { _ = p.Close() })
	req := fmt.Sprintf("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", addr, addr)
	for b.Loop() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.WriteString(c, req)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("CONNECT: %v %v", resp, err)
		}
		roundTrip(b, c, br)
		_ = c.Close()
	}
}
