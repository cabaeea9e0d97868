package proc

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc"

	"github.com/parallax/parallax/internal/agentlink"
)

// The sandbox comes first: when it cannot be applied (or there is no
// sandbox function at all) the agent stops before it takes the link, and
// the exit code says why.
func TestSandboxComesFirst(t *testing.T) {
	failing := func() (SandboxReport, error) { return SandboxReport{}, errors.New("landlock: not supported") }
	tests := []struct {
		name    string
		sandbox func() (SandboxReport, error)
		want    error
	}{
		{"no sandbox function", nil, ErrNoSandbox},
		{"sandbox fails", failing, ErrSandbox},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dialed := false
			dial := func(context.Context, ...grpc.DialOption) (*agentlink.Client, error) {
				dialed = true
				return nil, errors.New("no link in this test")
			}
			err := RunProcess(context.Background(), RunOptions{Sandbox: tt.sandbox, Dial: dial})
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if dialed {
				t.Error("the agent took the link although its sandbox failed")
			}
			if code := Main(context.Background(), RunOptions{Sandbox: tt.sandbox, Dial: dial}); code != ExitSandbox {
				t.Errorf("exit code: got %d, want %d", code, ExitSandbox)
			}
		})
	}
}

// A working sandbox hands over to the link.
func TestSandboxThenDial(t *testing.T) {
	order := []string{}
	err := RunProcess(context.Background(), RunOptions{
		Sandbox: func() (SandboxReport, error) {
			order = append(order, "sandbox")
			return SandboxReport{Disabled: true}, nil
		},
		Dial: func(context.Context, ...grpc.DialOption) (*agentlink.Client, error) {
			order = append(order, "dial")
			return nil, errors.New("no link in this test")
		}})
	if err == nil || errors.Is(err, ErrSandbox) {
		t.Fatalf("got %v, want the dial error", err)
	}
	if len(order) != 2 || order[0] != "sandbox" || order[1] != "dial" {
		t.Errorf("order: got %v, want sandbox then dial", order)
	}
}
