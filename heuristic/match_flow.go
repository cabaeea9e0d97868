package heuristic

import (
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// envDumpers print the environment, shell state or stored secrets.
var envDumpers = map[string]bool{"env": true, "printenv": true, "set": true, "export": true,
	"declare": true, "typeset": true, "compgen": true, "history": true, "fc": true, "pass": true,
	"gopass": true, "op": true, "bw": true, "lpass": true, "security": true, "secret-tool": true,
	"keyring": true}

// rawSockets move bytes to a socket with no protocol of their own: a
// secret sent through one is not an API call.
var rawSockets = map[string]bool{"nc": true, "ncat": true, "netcat": true, "socat": true,
	"telnet": true, "openssl": true, "cryptcat": true, "pwncat": true}

// dnsTools resolve names; the names can carry data.
var dnsTools = map[string]bool{"dig": true, "nslookup": true, "host": true, "drill": true,
	"delv": true, "kdig": true, "resolvectl": true, "getent": true}

// exfilServices are request catchers, paste sites, tunnels and
// out-of-band interaction servers: a destination with no business purpose
// for secrets.
var exfilServices = [...]string{"webhook.site", "requestbin.net", "requestbin.com", "pipedream.net",
	"ngrok.io", "ngrok-free.app", "ngrok.app", "transfer.sh", "pastebin.com", "paste.ee", "hastebin.com",
	"0x0.st", "file.io", "termbin.com", "ix.io", "catbox.moe", "temp.sh", "bashupload.com",
	"interact.sh", "oast.fun", "oast.me", "oast.pro", "oast.live", "oast.site", "oast.online",
	"burpcollaborator.net", "oastify.com", "dnslog.cn", "ceye.io", "requestcatcher.com",
	"beeceptor.com", "canarytokens.com", "trycloudflare.com", "serveo.net", "localhost.run"}

// isExfilService reports whether host is (under) a known exfil service.
func isExfilService(host string) bool {
	for _, s := range exfilServices {
		if host == s || strings.HasSuffix(host, s) && host[len(host)-len(s)-1] == '.' {
			return true
		}
	}
	return false
}

// isSecretVar reports whether an environment variable name holds a
// secret by convention: one of its words (split on "_") is a secret word
// or ends with one (APIKEY, AUTHTOKEN), or the name is a connection
// string. KEYDIR, SESSION_NAME and AUTH_URL are not secrets.
func isSecretVar(name string) bool {
	n := strings.ToUpper(name)
	if n == "DATABASE_URL" || strings.HasSuffix(n, "_DSN") {
		return true
	}
	for _, w := range strings.Split(n, "_") {
		switch w {
		case "KEY", "KEYS", "SECRET", "SECRETS", "TOKEN", "TOKENS", "PASSWORD", "PASSWD", "PASS",
			"CREDENTIAL", "CREDENTIALS", "CREDS", "COOKIE", "PAT", "PASSPHRASE":
			return true
		case "PWD":
			if n != "PWD" && n != "OLDPWD" {
				return true
			}
		}
		for _, suf := range [...]string{"APIKEY", "TOKEN", "SECRET", "PASSWORD"} {
			if len(w) > len(suf) && strings.HasSuffix(w, suf) {
				return true
			}
		}
	}
	return false
}

// flowSink returns the destination host of a flow, falling back to the
// program's network destinations.
func flowHost(fx *shell.Effects, f *shell.Flow) string {
	if f.Host != "" {
		return f.Host
	}
	for _, n := range fx.Network {
		if n.Program == f.Program && n.Host != "" {
			h, _ := urlHost(n.Host)
			return h
		}
	}
	return ""
}

// matchExfilFlow fires when sensitive data moves to the network: a
// credential or secret file, an environment dump, or a secret variable
// sent through a raw socket, a DNS query or to an exfil service; also
// sensitive attachments.
func matchExfilFlow(in *Input) (string, bool) {
	if fx := in.Effects; fx != nil {
		for i := range fx.Flows {
			f := &fx.Flows[i]
			host := flowHost(fx, f)
			if localFlow(in, f, host) {
				continue
			}
			switch f.Kind {
			case shell.SourceFile:
				if isSensitiveSource(f.Source, strings.ContainsAny(f.Source, "*?["), in.Home) {
					return flowDetail(tilde(f.Source, in.Home), f.Program, host), true
				}
			case shell.SourceCommand:
				if envDumpers[f.Source] {
					return flowDetail("output of "+f.Source, f.Program, host), true
				}
			case shell.SourceEnv, shell.SourceSecret:
				if !secretFlow(f) {
					continue
				}
				if rawSockets[f.Program] || dnsTools[f.Program] || isExfilService(host) {
					return flowDetail(flowSource(f), f.Program, host), true
				}
			}
		}
		if d, ok := uploadOf(in, fx, true); ok {
			return d, true
		}
		if d, ok := stagedExfil(in, fx); ok {
			return d, true
		}
	}
	if _, ok := in.Action.Payload.(*action.ExecuteCommandPayload); ok {
		return "", false
	}
	if action.SinkOf(in.Action.Type).External() {
		for _, f := range in.Action.Payload.PathFields() {
			if f.Access&action.AccessRead != 0 && isSensitiveSource(*f.Path, false, in.Home) {
				return tilde(*f.Path, in.Home) + " as " + f.Name, true
			}
		}
	}
	return "", false
}

// localFlow reports flows that do not leave the machine or do not send
// their source: programs with no network destination in the command
// (pip -r, kubectl -f, docker build: their own daemons and registries),
// rsync and scp between local paths, and an ssh identity key given with -i.
func localFlow(in *Input, f *shell.Flow, host string) bool {
	if host == "" && !rawSockets[f.Program] && !hasNetDest(in.Effects, f.Program) {
		return true
	}
	if host == "" && oneOf(f.Program, "rsync", "scp") {
		return true
	}
	return f.Kind == shell.SourceFile && identityArg(in, f.Program, f.Source)
}

func hasNetDest(fx *shell.Effects, prog string) bool {
	for i := range fx.Network {
		if fx.Network[i].Program == prog {
			return true
		}
	}
	return false
}

// stagedExfil finds a command that both reads sensitive data (or dumps
// the environment) and sends something out: "printenv | base64 | curl -d
// @-", "zip -r /tmp/h.zip ~ && curl -T /tmp/h.zip ...". The flow names
// only the last program of a pipeline, so the read is found by itself.
func stagedExfil(in *Input, fx *shell.Effects) (string, bool) {
	var out *shell.Flow
	for i := range fx.Flows {
		f := &fx.Flows[i]
		if f.Program != "git" && (f.Kind == shell.SourceCommand || f.Kind == shell.SourceFile) &&
			!localFlow(in, f, flowHost(fx, f)) {
			out = f
			break
		}
	}
	if out == nil {
		return "", false
	}
	for _, e := range fx.Execs {
		if envDumpers[e.Name] {
			return flowDetail("output of "+e.Name, out.Program, flowHost(fx, out)), true
		}
	}
	for _, p := range fx.Paths {
		if p.Access&action.AccessRead == 0 || metadataOnly[p.Program] || credentialOwners[p.Program] ||
			identityArg(in, p.Program, p.Path) {
			continue
		}
		if isSensitiveSource(p.Path, p.Glob, in.Home) {
			return flowDetail(tilde(p.Path, in.Home)+" (staged)", out.Program, flowHost(fx, out)), true
		}
	}
	return "", false
}

// secretFlow reports whether an env or literal flow carries a secret.
func secretFlow(f *shell.Flow) bool {
	return f.Kind == shell.SourceSecret || isSecretVar(f.Source) || isConnSecret(f.Source)
}

func flowSource(f *shell.Flow) string {
	if f.Kind == shell.SourceSecret {
		return "a secret literal"
	}
	return "$" + f.Source
}

func flowDetail(src, prog, host string) string {
	d := src + " to " + prog
	if host != "" {
		d += " (" + host + ")"
	}
	return d
}

// uploadOf finds an uploading program that reads a local path itself
// ("curl -T f", "curl -F x=@f", "scp f host:"). With sensitive set it
// reports only sensitive paths, otherwise only the others.
func uploadOf(in *Input, fx *shell.Effects, sensitive bool) (string, bool) {
	for i := range fx.Network {
		n := &fx.Network[i]
		if !n.Upload || n.Program == "git" {
			continue
		}
		for j := range fx.Paths {
			p := &fx.Paths[j]
			if p.Program != n.Program || p.Access&action.AccessRead == 0 || identityArg(in, p.Program, p.Path) {
				continue
			}
			if isSensitiveSource(p.Path, p.Glob, in.Home) == sensitive {
				h, _ := urlHost(n.Host)
				if h == "" {
					h, _ = urlHost(n.URL)
				}
				return flowDetail(tilde(p.Path, in.Home), n.Program, h), true
			}
		}
	}
	return "", false
}

// matchDNSExfil fires on DNS lookups that carry data: a name built from
// command output, file content or a secret ("$(whoami).x.com",
// "{}.evil.net"), ICMP payload patterns filled from data ("ping -p
// $(xxd ...)"), and lookups of out-of-band interaction domains. Looking
// up a name held in a variable ("dig $domain") is routine.
func matchDNSExfil(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	for i := range fx.Network {
		n := &fx.Network[i]
		h, _ := urlHost(n.Host)
		if (dnsTools[n.Program] || n.Program == "ping") && isExfilService(h) {
			return "lookup of " + h + " by " + n.Program, true
		}
	}
	cmd := commandText(in)
	built := strings.Contains(cmd, ").") || strings.Contains(cmd, "`.") || strings.Contains(cmd, "}.")
	for i := range fx.Flows {
		f := &fx.Flows[i]
		if !dnsTools[f.Program] && f.Program != "ping" {
			continue
		}
		if f.Kind == shell.SourceEnv && !isSecretVar(f.Source) {
			continue
		}
		if built || f.Program == "ping" && strings.Contains(cmd, "-p") {
			return "data in a DNS query by " + f.Program, true
		}
	}
	if !built {
		return "", false
	}
	for _, e := range fx.Execs {
		if !dnsTools[e.Name] {
			continue
		}
		for _, a := range e.Args {
			if a == "" {
				return "a computed name queried by " + e.Name, true
			}
		}
	}
	return "", false
}

// matchSecretSend fires when a secret variable or literal goes to a host
// that did not issue it (or an unknown one): using a token with its own
// service is routine, sending it elsewhere is a question of intent.
func matchSecretSend(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	for i := range fx.Flows {
		f := &fx.Flows[i]
		if (f.Kind != shell.SourceEnv && f.Kind != shell.SourceSecret) || !secretFlow(f) {
			continue
		}
		host := flowHost(fx, f)
		if host != "" && f.Kind == shell.SourceEnv && issuedBy(f.Source, host) || connStringArg(in, f, host) {
			continue
		}
		if host == "" {
			return flowSource(f) + " to " + f.Program + " (unknown host)", true
		}
		return flowDetail(flowSource(f), f.Program, host), true
	}
	return "", false
}

// varIssuers maps short variable prefixes to their services.
var varIssuers = map[string]string{"gh": "github", "hf": "huggingface", "glab": "gitlab",
	"gcp": "googleapis", "google": "googleapis", "gcloud": "googleapis", "az": "azure", "do": "digitalocean"}

// genericVarWords start variable names without naming a service.
var genericVarWords = map[string]bool{"API": true, "MY": true, "APP": true, "SECRET": true,
	"AUTH": true, "ACCESS": true, "PRIVATE": true, "CLIENT": true, "SERVICE": true, "TOKEN": true,
	"KEY": true, "DB": true, "DATABASE": true, "PASSWORD": true, "USER": true, "ADMIN": true,
	"PROD": true, "DEV": true, "CI": true, "BOT": true, "WEBHOOK": true}

// issuedBy reports whether host belongs to the service a variable is
// named after: GITHUB_TOKEN → *.github.com, AWS_SESSION_TOKEN →
// *.amazonaws.com, OPENAI_API_KEY → api.openai.com.
func issuedBy(name, host string) bool {
	word := name
	if i := strings.IndexByte(name, '_'); i >= 0 {
		word = name[:i]
	}
	word = strings.ToUpper(word)
	if genericVarWords[word] {
		return false
	}
	w := strings.ToLower(word)
	if s, ok := varIssuers[w]; ok {
		w = s
	}
	if len(w) < 3 {
		return false
	}
	return strings.Contains(registrable(host), w)
}

// registrable returns the last two labels of a host ("api.github.com" →
// "github.com"), so that a service name in a subdomain does not count.
func registrable(host string) string {
	i := strings.LastIndexByte(host, '.')
	if i <= 0 {
		return host
	}
	if j := strings.LastIndexByte(host[:i], '.'); j >= 0 {
		return host[j+1:]
	}
	return host
}

// matchUpload fires on local, non-sensitive data sent by an uploading
// program (scp, curl -T/-F/@file, rsync to a remote) or piped from a
// command into one. Publishing a file is routine or a leak depending on
// intent. git is exempt: it pushes to configured remotes.
func matchUpload(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	for i := range fx.Flows {
		f := &fx.Flows[i]
		if f.Program == "git" || localFlow(in, f, flowHost(fx, f)) {
			continue
		}
		switch f.Kind {
		case shell.SourceFile:
			if isSensitiveSource(f.Source, strings.ContainsAny(f.Source, "*?["), in.Home) {
				continue // exfil_flow blocks it
			}
			return flowDetail(tilde(f.Source, in.Home), f.Program, flowHost(fx, f)), true
		case shell.SourceCommand:
			if !oneOf(f.Source, "echo", "printf", "jq", "cat", "true") {
				return flowDetail("output of "+f.Source, f.Program, flowHost(fx, f)), true
			}
		}
	}
	return uploadOf(in, fx, false)
}
