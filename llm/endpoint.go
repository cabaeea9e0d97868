package llm

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// endpoint is a checked base URL.
type endpoint struct {
	url *url.URL
	// loopback is true when the host is a loopback address or
	// "localhost"; connections are then checked to really go to loopback.
	loopback bool
}

// checkEndpoint validates a base URL. A provider without a key may only
// talk to loopback; a key is only sent to a remote host over https. The
// URL may not carry credentials, a query or a fragment.
func checkEndpoint(raw string, hasKey bool) (endpoint, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return endpoint{}, errors.New("not a valid URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return endpoint{}, fmt.Errorf("scheme %q (want http or https)", u.Scheme)
	}
	if u.User != nil {
		// Never echo: user info may be a credential.
		return endpoint{}, errors.New("must not contain user info (put the key in api_key_env)")
	}
	if u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return endpoint{}, errors.New("must not have a query or a fragment")
	}
	host := u.Hostname()
	if host == "" {
		return endpoint{}, errors.New("has no host")
	}
	ep := endpoint{url: u, loopback: isLoopbackHost(host)}
	if !hasKey && !ep.loopback {
		return endpoint{}, fmt.Errorf("host %q: %w (a provider without api_key_env may only use 127.0.0.0/8, ::1 or localhost)", host, ErrNotLoopback)
	}
	if hasKey && !ep.loopback && u.Scheme != "https" {
		return endpoint{}, fmt.Errorf("host %q is remote: a key is only sent over https", host)
	}
	return ep, nil
}

// isLoopbackHost reports whether host names loopback: an IP literal in
// 127.0.0.0/8 or ::1, or localhost. Names other than localhost are not
// resolved here; they are not loopback.
func isLoopbackHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// loopbackOnly is a net.Dialer Control function: it refuses to connect
// to anything but a loopback address. It runs after name resolution, so
// "localhost" pointing elsewhere (hosts file, DNS) is caught at connect
// time.
func loopbackOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("connect %s: %w", address, ErrNotLoopback)
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("connect %s: %w", address, ErrNotLoopback)
	}
	return nil
}
