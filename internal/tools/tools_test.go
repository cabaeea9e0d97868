package tools

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestCodeOf(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"typed", Errorf(CodePathChanged, "read_file", "/w/a", "moved"), CodePathChanged},
		{"wrapped typed", fmt.Errorf("outer: %w", Errorf(CodeNoMatch, "edit_file", "/w/a", "x")), CodeNoMatch},
		{"context", context.Canceled, CodeCanceled},
		{"deadline", fmt.Errorf("run: %w", context.DeadlineExceeded), CodeCanceled},
		{"other", errors.New("boom"), CodeIO},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := CodeOf(c.err); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			if c.err == nil {
				return
			}
			res, err := Fail(c.err)
			if err != c.err || res.Code != c.want || res.Error != c.err.Error() {
				t.Fatalf("Fail: got %+v, %v", res, err)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	cause := errors.New("no space left on device")
	cases := []struct {
		err  *Error
		want string
	}{
		{&Error{Code: CodeIO, Op: "write_file", Part: "/w/a", Err: cause}, "io_error: write_file /w/a: no space left on device"},
		{Errorf(CodeAmbiguous, "edit_file", "/w/a", "occurs %d times", 2), "ambiguous_edit: edit_file /w/a: occurs 2 times"},
		{&Error{Code: CodeBadPlan, Op: "read_file"}, "bad_plan: read_file"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	if !errors.Is(cases[0].err, cause) {
		t.Error("Error does not unwrap to its cause")
	}
}
