package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	pxworkspace "github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shield"
)

// gateConfig resolves the workspace and home of a gate.
func gateConfig(stderr io.Writer, workspace, home, policy string) (shield.Config, error) {
	ws, err := resolveWorkspace(stderr, workspace)
	if err != nil {
		return shield.Config{}, err
	}
	if home == "" {
		home = os.Getenv("HOME")
	}
	if home == "" {
		return shield.Config{}, errors.New("HOME is not set: it decides what ~ means; set it or pass --home")
	}
	return shield.Config{Workspace: ws, Home: home, Policy: policy}, nil
}

// resolveWorkspace is --workspace made absolute; without it, the nearest
// workspace at or above the current directory, found as the hook finds
// it (workspace.Find), or the current directory when there is none. When
// the workspace is not the current directory it says so on stderr: a
// command run from a subdirectory uses the project's state and audit.
func resolveWorkspace(stderr io.Writer, dir string) (string, error) {
	if dir != "" {
		return dirOrCwd(dir)
	}
	wd, err := dirOrCwd("")
	if err != nil {
		return "", err
	}
	root, err := pxworkspace.Find(wd)
	if errors.Is(err, pxworkspace.ErrNoWorkspace) {
		return wd, nil
	}
	if err != nil {
		return "", err
	}
	if root != wd {
		fmt.Fprintf(stderr, "parallax: using the workspace %s (found above the current directory)\n", root)
	}
	return root, nil
}

// dirOrCwd is dir made absolute, or the current directory.
func dirOrCwd(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find current directory: %w", err)
		}
		return wd, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	return abs, nil
}
