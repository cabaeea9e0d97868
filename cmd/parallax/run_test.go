package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runParallax runs the real root command in-process with stdin and args
// (the command path included: "policy", "lint", FILE) and returns what it
// wrote to stdout and stderr.
func runParallax(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	root.SilenceUsage, root.SilenceErrors = true, true
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}
