package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/ifc"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

func TestIFCListAndSweep(t *testing.T) {
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".parallax"), 0o700); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(ws, "kept.txt")
	if err := os.WriteFile(kept, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(ws, "gone.txt")
	w, err := pxworkspace.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []ifc.Activity{
		{Path: kept, Level: ifc.Critical, Labels: []string{"aws_secret_key"}, Source: "content", Session: "s1"},
		{Path: gone, Level: ifc.Restricted, Source: "path", Session: "s2"},
	} {
		if err := w.IFCStore().UpsertActivity(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	out, err := runParallax(t, "", "ifc", "list", "--workspace", ws)
	if err != nil {
		t.Fatalf("list: %v\n%s", err, out)
	}
	for _, want := range []string{kept, gone, "critical", "aws_secret_key", "restricted"} {
		if !strings.Contains(out, want) {
			t.Errorf("list output lacks %q:\n%s", want, out)
		}
	}
	out, err = runParallax(t, "", "ifc", "sweep", "--workspace", ws)
	if err != nil {
		t.Fatalf("sweep: %v\n%s", err, out)
	}
	if !strings.Contains(out, "dropped "+gone) || strings.Contains(out, "dropped "+kept) || !strings.Contains(out, "1 label(s) dropped") {
		t.Errorf("sweep output:\n%s", out)
	}
	out, _ = runParallax(t, "", "ifc", "list", "--workspace", ws)
	if strings.Contains(out, gone) || !strings.Contains(out, kept) {
		t.Errorf("after sweep, list:\n%s", out)
	}
	var drops []audit.Entry
	err = audit.Scan(audit.DefaultPath(ws), audit.Filter{Type: audit.IFCLabelDropped}, func(e audit.Entry) error {
		drops = append(drops, e)
		return nil
	})
	if err != nil || len(drops) != 1 || drops[0].Detail.Path != gone {
		t.Errorf("audited drops: %+v %v", drops, err)
	}
}

func TestIFCRefusesUninitialisedWorkspace(t *testing.T) {
	ws := t.TempDir()
	out, err := runParallax(t, "", "ifc", "list", "--workspace", ws)
	if err == nil || !strings.Contains(err.Error(), "parallax init") {
		t.Fatalf("got %v\n%s, want a not-initialised error", err, out)
	}
}
