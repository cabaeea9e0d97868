package heuristic

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// dest is one network destination of an action.
type dest struct {
	host, port string
	field      string // payload field or program
}

// findDest calls fn for every destination the action names: typed URL
// fields, URL-like MCP arguments, and the shell's network destinations.
// bare accepts MCP argument strings that are hosts without a scheme.
func findDest(in *Input, bare bool, fn func(d dest) bool) (dest, bool) {
	if fx := in.Effects; fx != nil {
		for i := range fx.Network {
			n := &fx.Network[i]
			if n.URL != "" {
				h, p := urlHost(n.URL)
				if d := (dest{h, p, n.Program}); fn(d) {
					return d, true
				}
			}
			if n.Host != "" {
				h, p := urlHost(n.Host)
				if n.Port != "" {
					p = n.Port
				}
				if d := (dest{h, p, n.Program}); fn(d) {
					return d, true
				}
			}
		}
		return dest{}, false
	}
	_, mcp := in.Action.Payload.(*action.MCPCallPayload)
	for _, t := range in.Action.Payload.Texts() {
		switch {
		case t.Name == "url" || mcp && strings.Contains(t.Value, "://"):
		case mcp && bare && len(t.Value) < 256 && !strings.ContainsAny(t.Value, " \t\n/"):
		default:
			continue
		}
		h, p := urlHost(t.Value)
		if d := (dest{h, p, t.Name}); fn(d) {
			return d, true
		}
	}
	return dest{}, false
}

// metadataHeaders are request headers only a metadata service wants.
var metadataHeaders = [...]string{"metadata-flavor", "x-aws-ec2-metadata-token",
	"x-aws-ec2-metadata-token-ttl-seconds", "metadata", "x-google-metadata-request"}

// matchSSRFMetadata fires on any request to a cloud metadata service, in
// every spelling of its address (decimal, hex, octal, short, IPv6-mapped,
// NAT64, wildcard DNS), and on metadata request headers.
func matchSSRFMetadata(in *Input) (string, bool) {
	if d, ok := findDest(in, true, func(d dest) bool { return isMetadataHost(d.host) }); ok {
		return "metadata service " + d.host + " via " + d.field, true
	}
	if p, ok := in.Action.Payload.(*action.HTTPRequestPayload); ok {
		for k := range p.Headers {
			for _, h := range metadataHeaders {
				if strings.EqualFold(k, h) {
					return "metadata request header " + h, true
				}
			}
		}
	}
	cmd := commandText(in)
	if strings.Contains(cmd, "169.254.169.254") || strings.Contains(cmd, "metadata.google.internal") {
		return "metadata service address in the command", true
	}
	if strings.Contains(cmd, "etadata") {
		low := strings.ToLower(cmd)
		for _, h := range metadataHeaders[:3] {
			if strings.Contains(low, h) {
				return "metadata request header " + h, true
			}
		}
	}
	return "", false
}

// rootAPIs are unauthenticated, root-equivalent control planes: the
// Docker daemon, the kubelet, etcd.
var rootAPIs = map[string]string{"2375": "docker daemon", "2376": "docker daemon",
	"10250": "kubelet", "10255": "kubelet (read-only)", "2379": "etcd", "2380": "etcd peer"}

// adminAPIs need credentials but control infrastructure: the Kubernetes
// API server, Consul, Vault, Nomad.
var adminAPIs = map[string]string{"6443": "kubernetes API", "8500": "consul", "8501": "consul",
	"8200": "vault", "4646": "nomad"}

// matchAdminAPI fires on requests to root-equivalent control planes on
// internal addresses (Docker daemon, kubelet, etcd): talking to them
// directly bypasses every tool-level check.
func matchAdminAPI(in *Input) (string, bool) {
	if d, ok := findDest(in, true, func(d dest) bool {
		_, ok := rootAPIs[d.port]
		return ok && (isInternalHost(d.host) || d.host == "")
	}); ok {
		return rootAPIs[d.port] + " at " + d.host + ":" + d.port, true
	}
	return "", false
}

// matchInternalAddress fires on typed requests to loopback, private and
// link-local addresses (SSRF towards internal services), and on any
// request to an infrastructure admin API on such an address. Shell
// commands reaching local dev servers (curl localhost:3000) are routine.
func matchInternalAddress(in *Input) (string, bool) {
	typed := in.Effects == nil && (in.Action.Type == action.HTTPRequest || in.Action.Type == "download_file")
	if d, ok := findDest(in, false, func(d dest) bool {
		if !isInternalHost(d.host) {
			return false
		}
		_, admin := adminAPIs[d.port]
		return admin || typed && !devServer(d)
	}); ok {
		if name, admin := adminAPIs[d.port]; admin {
			return name + " at " + d.host + ":" + d.port, true
		}
		return "internal address " + d.host, true
	}
	return "", false
}

// devPorts are the ports local development servers listen on by default
// (Rails, Node, Vite, Angular, Flask, Django, Go, Jupyter).
var devPorts = map[string]bool{"3000": true, "3001": true, "4000": true, "4200": true, "5000": true,
	"5173": true, "8000": true, "8080": true, "8081": true, "8888": true}

// devServer reports whether d is a plainly spelled loopback address on a
// development server port: an agent checking the app it is building.
// Other spellings (0x7f000001, 2130706433) are not plain.
func devServer(d dest) bool {
	switch d.host {
	case "localhost", "127.0.0.1", "::1", "[::1]":
		return devPorts[d.port]
	}
	return false
}
