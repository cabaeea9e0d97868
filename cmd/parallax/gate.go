package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/parallax/parallax/shield"
)

// newGate builds the gate for a workspace. Empty workspace means the
// current directory; empty home means $HOME.
func newGate(workspace, home, policy string) (*shield.Gate, error) {
	cfg, err := gateConfig(workspace, home, policy)
	if err != nil {
		return nil, err
	}
	return shield.New(cfg)
}

// gateConfig resolves the workspace and home of a gate.
func gateConfig(workspace, home, policy string) (shield.Config, error) {
	ws, err := resolveWorkspace(workspace)
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

func resolveWorkspace(dir string) (string, error) {
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
