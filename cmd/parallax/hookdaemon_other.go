//go:build !linux

package main

// startHookDaemon: the hook daemon needs Linux (SO_PEERCRED); elsewhere
// every call is decided in process.
func startHookDaemon(string, string) {}
