package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/parallax/parallax/internal/egress"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

// registryTimeout bounds each registry probe (resolve and connect, then
// the proxy's answer); the probes run at once.
const registryTimeout = 5 * time.Second

// cacheChecks checks each shared toolchain cache the command sandbox
// overlays (engine.CommandNeeds): a directory of the user's, writable by
// them and by no one else, or missing where the user may create it (the
// engine creates a missing cache at the first command).
func cacheChecks(caches []string) []pxworkspace.Check {
	out := make([]pxworkspace.Check, 0, len(caches))
	for _, p := range caches {
		out = append(out, cacheCheck(p))
	}
	return out
}

func cacheCheck(p string) pxworkspace.Check {
	c := pxworkspace.Check{Name: "cache " + p}
	fail := func(detail, fix string) pxworkspace.Check {
		c.Status, c.Detail, c.Fix = pxworkspace.StatusFail, detail, fix
		return c
	}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		anc := filepath.Dir(p)
		for ; anc != filepath.Dir(anc); anc = filepath.Dir(anc) {
			if _, err := os.Stat(anc); err == nil {
				break
			}
		}
		if err := unix.Access(anc, unix.W_OK); err != nil {
			return fail("missing, and "+anc+" is not writable by you, so the first command cannot create it ("+err.Error()+")",
				"mkdir -p "+p+" as yourself, or drop it from agent.command.caches")
		}
		c.Status, c.Detail = pxworkspace.StatusOK, "missing; created at the first command that needs it"
		return c
	case err != nil:
		return fail("cannot be read: "+err.Error(), "check the path and its parents' modes")
	case !st.IsDir():
		return fail("is not a directory", "remove it or drop it from agent.command.caches")
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fail(fmt.Sprintf("owned by uid %d, not by you (uid %d): builds would read what another user put there",
			sys.Uid, os.Getuid()), "chown -R your user "+p+" (or remove it: it is created afresh)")
	}
	if st.Mode().Perm()&0o002 != 0 {
		return fail(fmt.Sprintf("world-writable (mode %04o): any user could plant what builds run", st.Mode().Perm()),
			"chmod o-w "+p)
	}
	if err := unix.Access(p, unix.W_OK); err != nil {
		return fail(fmt.Sprintf("not writable by you (mode %04o)", st.Mode().Perm()), "chmod u+w "+p)
	}
	c.Status, c.Detail = pxworkspace.StatusOK, fmt.Sprintf("yours, mode %04o", st.Mode().Perm())
	return c
}

// registryChecks asks each registry for a connection through an egress
// proxy with the workspace's rules, as a command's would be (CONNECT
// host:port; 443 for an entry without a port), all at once, each
// bounded by registryTimeout. A registry that does not answer is a WARN
// naming it and why: sessions still work offline.
func registryChecks(ctx context.Context, registries []string) []pxworkspace.Check {
	if len(registries) == 0 {
		return []pxworkspace.Check{{Name: "registries", Status: pxworkspace.StatusOK, Detail: "none configured: commands reach only the hosts their verdict names"}}
	}
	out := make([]pxworkspace.Check, len(registries))
	p, err := egress.New(egress.Config{Registries: registries, Limits: egress.Limits{DialTimeout: registryTimeout}})
	var ln net.Listener
	if err == nil {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		for i, r := range registries {
			out[i] = pxworkspace.Check{Name: "registry " + r, Status: pxworkspace.StatusFail,
				Detail: "the egress proxy cannot be set up: " + err.Error(), Fix: "check agent.command.registries in config.yaml"}
		}
		return out
	}
	go func() { _ = p.Serve(ln) }()
	defer p.Close()
	var wg sync.WaitGroup
	for i, r := range registries {
		wg.Go(func() { out[i] = registryCheck(ctx, ln.Addr().String(), r) })
	}
	wg.Wait()
	return out
}

// registryCheck asks the proxy at proxy for a tunnel to registry r.
func registryCheck(ctx context.Context, proxy, r string) pxworkspace.Check {
	c := pxworkspace.Check{Name: "registry " + r}
	target := r
	if _, _, err := net.SplitHostPort(r); err != nil {
		target = net.JoinHostPort(strings.Trim(r, "[]"), "443")
	}
	warn := func(detail, fix string) pxworkspace.Check {
		c.Status, c.Detail, c.Fix = pxworkspace.StatusWarn, target+" "+detail, fix
		return c
	}
	dctx, cancel := context.WithTimeout(ctx, registryTimeout+2*time.Second)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(dctx, "tcp", proxy)
	if err != nil {
		return warn("was not tried: the probe's own proxy did not answer: "+err.Error(), "run parallax doctor again")
	}
	defer conn.Close()
	if dl, ok := dctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if _, err := fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target); err != nil {
		return warn("was not tried: "+err.Error(), "run parallax doctor again")
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: http.MethodConnect})
	if err != nil {
		return warn(fmt.Sprintf("did not answer within %v through the egress proxy", registryTimeout),
			"check the network and that the registry runs; until then commands cannot fetch from it")
	}
	_ = resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		c.Status, c.Detail = pxworkspace.StatusOK, target+" answers a connection through the egress proxy"
		return c
	}
	reason := egress.Reason(resp.Header.Get("X-Parallax-Egress"))
	return warn(fmt.Sprintf("cannot be reached through the egress proxy (%s)", reason), registryFix(reason))
}

// registryFix says what to do about a registry the proxy could not reach.
func registryFix(r egress.Reason) string {
	switch r {
	case egress.ReasonNotPublic:
		return "it resolves to a private or loopback address, which the proxy refuses for a name: " +
			"write the mirror as a literal IP:port in agent.command.registries"
	case egress.ReasonResolve:
		return "the name does not resolve from this machine: check DNS, a VPN, or the entry's spelling"
	case egress.ReasonDial, egress.ReasonTimeout:
		return "nothing answers there: check the network, a firewall, or that the mirror runs"
	}
	return "check agent.command.registries in config.yaml and the network"
}
