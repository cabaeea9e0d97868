package main

import (
	"runtime/debug"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "18bca11f00d2c0ffee1234567890abcdef123456"},
		{Key: "vcs.time", Value: "2026-11-29T10:06:56Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		mod      string
		settings []debug.BuildSetting
		want     string
	}{
		{"v0.4.0", nil, "v0.4.0"},
		{"v0.0.0-20261129101208-18bca11f00d2+dirty", vcs, "v0.0.0-20261129101208-18bca11f00d2+dirty"},
		{"(devel)", vcs, "devel 18bca11f00d2 2026-11-29 modified"},
		{"(devel)", vcs[:2], "devel 18bca11f00d2 2026-11-29"},
		{"(devel)", nil, "devel (no commit recorded: built with -buildvcs=false or outside a git checkout)"},
	} {
		if got := describeBuild(tc.mod, tc.settings); got != tc.want {
			t.Errorf("describeBuild(%q, %v) = %q, want %q", tc.mod, tc.settings, got, tc.want)
		}
	}
}
