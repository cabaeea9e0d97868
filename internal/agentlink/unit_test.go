package agentlink

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

func TestDialRefusesBadEnvironment(t *testing.T) {
	notSocket := func(t *testing.T) string {
		f, err := os.CreateTemp(t.TempDir(), "plain")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fd, err := unix.Dup(int(f.Fd()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(fd) }) // Dial closes it; a second close is harmless
		return strconv.Itoa(fd)
	}
	good := strings.Repeat("0f", tokenBytes)
	tests := []struct {
		name    string
		fd      func(*testing.T) string // nil: unset
		token   *string
		wantErr string // the variable the error must name
	}{
		{"no fd", nil, &good, EnvFD},
		{"no token", func(*testing.T) string { return "3" }, nil, EnvToken},
		{"fd not a number", func(*testing.T) string { return "three" }, &good, EnvFD},
		{"fd is stderr", func(*testing.T) string { return "2" }, &good, EnvFD},
		{"short token", func(*testing.T) string { return "3" }, ptr("abcd"), EnvToken},
		{"token not hex", func(*testing.T) string { return "3" }, ptr(strings.Repeat("zz", tokenBytes)), EnvToken},
		{"fd not a socket", notSocket, &good, "inherited descriptor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvFD, "")
			t.Setenv(EnvToken, "")
			os.Unsetenv(EnvFD)
			os.Unsetenv(EnvToken)
			if tt.fd != nil {
				os.Setenv(EnvFD, tt.fd(t))
			}
			if tt.token != nil {
				os.Setenv(EnvToken, *tt.token)
			}
			c, err := Dial(t.Context())
			if err == nil {
				c.Close()
				t.Fatal("Dial succeeded")
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want an error naming %s", err, tt.wantErr)
			}
			if tt.token != nil && strings.Contains(err.Error(), *tt.token) {
				t.Fatalf("the token is in the error %q", err)
			}
			for _, k := range []string{EnvFD, EnvToken} {
				if _, ok := os.LookupEnv(k); ok {
					t.Fatalf("%s left in the environment", k)
				}
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestAttach(t *testing.T) {
	p, err := NewPair()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Serve(t.Context(), 1, Config{Agent: engineFunc{}}); err == nil {
		t.Fatal("Serve before Attach succeeded")
	}
	inFiles := make([]*os.File, 2, 8) // spare capacity Attach must not write into
	inFiles[0], inFiles[1] = os.Stdin, os.Stdout
	inEnv := []string{"HOME=/h", EnvFD + "=9", EnvToken + "=stale", "X=1"}
	files, env, err := p.Attach(inFiles, slices.Clone(inEnv))
	if err != nil {
		t.Fatal(err)
	}
	var fds, toks []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case EnvFD:
			fds = append(fds, v)
		case EnvToken:
			toks = append(toks, v)
		}
	}
	if len(fds) != 1 || fds[0] != "5" {
		t.Fatalf("%s values %v, want [5] (after two extra files)", EnvFD, fds)
	}
	if len(toks) != 1 || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(toks[0]) || toks[0] != string(p.token) {
		t.Fatalf("%s values: %d, want the pair's token once", EnvToken, len(toks))
	}
	if !slices.Contains(env, "HOME=/h") || !slices.Contains(env, "X=1") {
		t.Fatalf("env %d entries, want HOME and X kept", len(env))
	}
	if len(files) != 3 || files[0] != os.Stdin || files[1] != os.Stdout || files[2] != p.agent {
		t.Fatalf("files = %v, want stdin, stdout and the agent's end", files)
	}
	if full := inFiles[:3]; full[2] != nil {
		t.Fatal("Attach wrote into the caller's spare capacity")
	}
	if _, _, err := p.Attach(nil, nil); err == nil {
		t.Fatal("second Attach succeeded")
	}
	if _, err := p.Serve(t.Context(), 0, Config{Agent: engineFunc{}}); err == nil {
		t.Fatal("Serve with pid 0 succeeded")
	}
}

// Without an environment, Attach starts from this process's.
func TestAttachInheritsEnvironment(t *testing.T) {
	p, err := NewPair()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, env, err := p.Attach(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := len(os.Environ()) + 2
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, EnvFD+"=") || strings.HasPrefix(kv, EnvToken+"=") {
			want--
		}
	}
	if len(env) != want || !slices.Contains(env, EnvFD+"=3") {
		t.Fatalf("env has %d entries, want %d ending with %s=3", len(env), want, EnvFD)
	}
}

func TestTokensDiffer(t *testing.T) {
	seen := map[secret]bool{}
	for range 8 {
		p, err := NewPair()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p.token] {
			t.Fatal("two pairs got the same token")
		}
		seen[p.token] = true
		p.Close()
	}
}

func TestTokenNeverPrinted(t *testing.T) {
	p, err := NewPair()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := &Client{token: p.token}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("x", "token", p.token, "pair", p, "client", c)
	for name, s := range map[string]string{
		"fmt":  fmt.Sprintf("%v %+v %#v %s %v %+v %#v", p, p, p, p.token, c, c, c),
		"slog": logged.String(),
	} {
		if strings.Contains(s, string(p.token)) {
			t.Fatalf("%s printed the token: %s", name, s)
		}
	}
}

// testPair returns a connected pair whose end a asks for credentials.
func testPair(t *testing.T) (a *net.UnixConn, b int) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_PASSCRED, 1); err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fds[0]), "a")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); unix.Close(fds[1]) })
	return c.(*net.UnixConn), fds[1]
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func TestReadPreamble(t *testing.T) {
	self := PeerAddr{Pid: int32(os.Getpid()), Uid: uint32(os.Getuid()), Gid: uint32(os.Getgid())}
	write := func(parts ...string) func(*testing.T, int) {
		return func(t *testing.T, fd int) {
			for _, p := range parts {
				if _, err := unix.Write(fd, []byte(p)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	tests := []struct {
		name    string
		send    func(*testing.T, int)
		wantErr string
	}{
		{"whole", write(string(preamble)), ""},
		{"in pieces", write(string(preamble[:5]), string(preamble[5:9]), string(preamble[9:])), ""},
		{"other version", write("parallax-agent-link/2\n"), "want"},
		{"cut short", func(t *testing.T, fd int) {
			write(string(preamble[:4]))(t, fd)
			unix.Shutdown(fd, unix.SHUT_WR)
		}, "EOF"},
		{"passes a descriptor", func(t *testing.T, fd int) {
			var p [2]int
			if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
				t.Fatal(err)
			}
			defer unix.Close(p[0])
			defer unix.Close(p[1])
			if err := unix.Sendmsg(fd, preamble, unix.UnixRights(p[0]), nil, 0); err != nil {
				t.Fatal(err)
			}
		}, "file descriptors"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := testPair(t)
			before := openFDs(t)
			tt.send(t, b)
			got, err := readPreamble(a)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, %v, want an error with %q", got, err, tt.wantErr)
				}
			} else if err != nil || got != self {
				t.Fatalf("got %v, %v, want %v", got, err, self)
			}
			if after := openFDs(t); after != before {
				t.Fatalf("%d descriptors open after, %d before", after, before)
			}
		})
	}
}

// The dialer hands out the inherited descriptor exactly once.
func TestDialerOnce(t *testing.T) {
	_, b := testPair(t)
	fd, err := unix.Dup(b)
	if err != nil {
		t.Fatal(err)
	}
	d := &fdDialer{file: os.NewFile(uintptr(fd), "b")}
	c, err := d.dial(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 2 {
		if c2, err := d.dial(context.Background(), ""); !errors.Is(err, ErrRedial) {
			t.Fatalf("second dial: got %v, %v, want ErrRedial", c2, err)
		}
	}
}

// The link registers no unary service today; the guard still stands in
// front of any that is added, checking the peer and the token per call.
func TestUnaryGuardChecksPeerAndToken(t *testing.T) {
	uid := uint32(os.Getuid())
	good := PeerAddr{Pid: 42, Uid: uid}
	tests := []struct {
		name   string
		peer   net.Addr // nil: no peer in the context
		tokens []string
		want   codes.Code
	}{
		{"the spawned agent with its token", good, []string{"tok"}, codes.OK},
		{"no peer", nil, []string{"tok"}, codes.PermissionDenied},
		{"a peer that is not the link", &net.UnixAddr{Name: "@x", Net: "unix"}, []string{"tok"}, codes.PermissionDenied},
		{"another pid", PeerAddr{Pid: 43, Uid: uid}, []string{"tok"}, codes.PermissionDenied},
		{"another uid", PeerAddr{Pid: 42, Uid: uid + 1}, []string{"tok"}, codes.PermissionDenied},
		{"no token", good, nil, codes.Unauthenticated},
		{"wrong token", good, []string{"tak"}, codes.Unauthenticated},
		{"two tokens", good, []string{"tok", "tok"}, codes.Unauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var refused []*RefusedError
			s := &Server{pid: 42, uid: uid, token: "tok", cfg: Config{
				Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
				Refused: func(e *RefusedError) { refused = append(refused, e) },
			}}
			ctx := t.Context()
			if tt.peer != nil {
				ctx = peer.NewContext(ctx, &peer.Peer{Addr: tt.peer})
			}
			md := metadata.MD{}
			for _, tok := range tt.tokens {
				md.Append(tokenKey, tok)
			}
			ctx = metadata.NewIncomingContext(ctx, md)
			ran := false
			_, err := s.unaryGuard(ctx, nil, &grpc.UnaryServerInfo{FullMethod: "/parallax.v1.Any/Call"},
				func(context.Context, any) (any, error) { ran = true; return nil, nil })
			if got := status.Code(err); got != tt.want {
				t.Fatalf("got %v (%v), want %v", got, err, tt.want)
			}
			if ran != (tt.want == codes.OK) {
				t.Fatalf("handler ran: %v, want %v", ran, tt.want == codes.OK)
			}
			if (len(refused) == 1) != (tt.want != codes.OK) {
				t.Fatalf("refusals reported: %d", len(refused))
			}
		})
	}
}
