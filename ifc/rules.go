package ifc

// RuleKind says how a path rule's patterns are matched.
type RuleKind uint8

// Path rule kinds.
const (
	// KindTree: the path is the pattern or lies below it. Patterns are
	// absolute, or start with "~/" (the home) or "$WORKSPACE/".
	KindTree RuleKind = iota
	// KindGlob: an absolute pattern whose segments may hold * ? [..];
	// the path must have as many segments and match each.
	KindGlob
	// KindName: the base name equals the pattern, ignoring case.
	KindName
	// KindSuffix: the base name ends with the pattern (and is longer),
	// ignoring case.
	KindSuffix
	// KindPrefix: the base name starts with the pattern, ignoring case.
	KindPrefix
	// KindNameGlob: the lower-cased base name matches a path.Match pattern.
	KindNameGlob
	// KindWord: a word of a document's name or of its folders (below the
	// workspace or the home) equals the pattern. Words split at
	// punctuation, case changes and letter/digit boundaries. Only
	// documents count: files with a document extension, and files
	// without one outside the workspace.
	KindWord
)

// PathRule is one entry of the static classification table.
type PathRule struct {
	ID       string // stable id, shown in reasons
	Level    Level
	Kind     RuleKind
	Patterns []string
	// Except lists lower-case base-name patterns (path.Match) the rule
	// does not cover, e.g. public keys inside ~/.ssh.
	Except []string
	// Match and NoMatch are example paths ("~" is the home, "$WORKSPACE"
	// the workspace) that tests hold the rule to: each Match path is
	// classified at the rule's level by this rule, no NoMatch path is.
	Match   []string
	NoMatch []string
}

// The level of a path is the highest level of the rules above Public
// that match it. When none does, a matching Public rule makes it Public;
// otherwise it is Internal.

// pathRules is the classification table. It is compiled into the binary
// and not extensible by policy files: what is sensitive does not depend
// on a preset; what may happen to it does.
var pathRules = []PathRule{
	// Critical: credentials, keys and secrets.
	{ID: "agent_internals", Level: Critical, Kind: KindTree,
		Patterns: []string{"$WORKSPACE/.parallax", "~/.parallax"},
		Match:    []string{"$WORKSPACE/.parallax/canary.token", "~/.parallax/policy.yaml"}},
	{ID: "ssh_keys", Level: Critical, Kind: KindTree, Patterns: []string{"~/.ssh", "/root/.ssh"},
		Except:  []string{"*.pub", "known_hosts", "known_hosts.old", "config", "authorized_keys", "authorized_keys2"},
		Match:   []string{"~/.ssh/id_rsa", "~/.ssh/deploy", "/root/.ssh/id_ed25519"},
		NoMatch: []string{"~/.ssh/id_rsa.pub", "~/.ssh/known_hosts", "~/.sshrc"}},
	{ID: "cloud_credentials", Level: Critical, Kind: KindTree,
		Patterns: []string{"~/.aws", "~/.azure", "~/.config/gcloud", "~/.oci", "~/.kube", "~/.docker/config.json",
			"~/.config/doctl", "~/.databrickscfg", "~/.s3cfg", "~/.boto", "~/.config/rclone",
			"/etc/kubernetes/admin.conf", "/etc/kubernetes/pki", "/var/lib/kubelet/pki"},
		Match:   []string{"~/.aws/credentials", "~/.kube/config", "~/.config/gcloud/application_default_credentials.json"},
		NoMatch: []string{"~/.awsome", "~/.docker/daemon.json"}},
	{ID: "key_stores", Level: Critical, Kind: KindTree,
		Patterns: []string{"~/.gnupg", "~/.password-store", "~/.local/share/keyrings", "~/Library/Keychains",
			"/Library/Keychains", "~/.config/op"},
		Match: []string{"~/.gnupg/private-keys-v1.d/x.key", "~/.password-store/bank.gpg"}},
	{ID: "token_files", Level: Critical, Kind: KindTree,
		Patterns: []string{"~/.config/gh", "~/.config/hub", "~/.terraform.d/credentials.tfrc.json",
			"~/.cargo/credentials", "~/.cargo/credentials.toml", "~/.gem/credentials", "~/.vault-token",
			"~/.npmrc", "~/.pypirc", "~/.netrc", "~/_netrc", "~/.git-credentials", "~/.config/git/credentials",
			"~/.pgpass", "~/.my.cnf", "~/.mylogin.cnf", "~/.m2/settings-security.xml"},
		Match:   []string{"~/.config/gh/hosts.yml", "~/.npmrc", "~/.netrc"},
		NoMatch: []string{"~/.config/ghostty/config"}},
	{ID: "system_secrets", Level: Critical, Kind: KindTree,
		Patterns: []string{"/etc/shadow", "/etc/gshadow", "/etc/master.passwd", "/etc/security/opasswd",
			"/proc/kcore", "/dev/mem", "/dev/kmem"},
		Match: []string{"/etc/shadow", "/etc/gshadow"}, NoMatch: []string{"/etc/shadows.conf"}},
	{ID: "process_secrets", Level: Critical, Kind: KindGlob,
		Patterns: []string{"/proc/*/environ", "/proc/*/mem", "/proc/*/task/*/environ", "/etc/ssh/ssh_host_*_key"},
		Match:    []string{"/proc/self/environ", "/proc/1/mem", "/etc/ssh/ssh_host_rsa_key"},
		NoMatch:  []string{"/proc/1/status", "/etc/ssh/ssh_host_rsa_key.pub"}},
	{ID: "browser_secrets", Level: Critical, Kind: KindName,
		Patterns: []string{"cookies", "login data", "login data for account", "cookies.sqlite", "logins.json",
			"key3.db", "key4.db"},
		Match: []string{"~/.config/google-chrome/Default/Cookies", "~/.mozilla/firefox/x.default/logins.json"}},
	{ID: "secret_files", Level: Critical, Kind: KindName,
		Patterns: []string{".env", ".envrc", "credentials", "credentials.json", "secrets.yaml", "secrets.yml",
			"secrets.json", "secrets.toml", "token.json", "service-account.json", ".pgpass", ".my.cnf", ".netrc",
			"_netrc", ".git-credentials", ".vault-token", ".htpasswd", "credentials.tfrc.json", "id_rsa",
			"id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "wallet.dat"},
		Match:   []string{"$WORKSPACE/.env", "/srv/app/config/credentials.json", "/tmp/id_rsa", "$WORKSPACE/.ENV"},
		NoMatch: []string{"$WORKSPACE/.env.example", "$WORKSPACE/environment.go", "/tmp/id_rsa.pub"}},
	{ID: "dotenv_files", Level: Critical, Kind: KindPrefix, Patterns: []string{".env."},
		Except:  []string{".env.example", ".env.sample", ".env.template", ".env.dist", ".env.defaults", ".env.*.example"},
		Match:   []string{"$WORKSPACE/.env.production", "/srv/app/.env.local"},
		NoMatch: []string{"$WORKSPACE/.env.example", "$WORKSPACE/.env.template"}},
	{ID: "service_account_keys", Level: Critical, Kind: KindNameGlob,
		Patterns: []string{"service-account*.json", "*-sa-key.json", "*serviceaccount*.json"},
		Match:    []string{"$WORKSPACE/deploy/service-account-prod.json"}},
	{ID: "key_material", Level: Critical, Kind: KindSuffix,
		Patterns: []string{".pem", ".key", ".p12", ".pfx", ".keystore", ".jks", ".ppk", ".kdbx",
			".tfstate", ".tfstate.backup"},
		Match:   []string{"$WORKSPACE/certs/server.pem", "/etc/ssl/private/site.key", "$WORKSPACE/infra/terraform.tfstate"},
		NoMatch: []string{"$WORKSPACE/keys.go", "$WORKSPACE/.pem"}},

	// Restricted: records about people and money, and typed secrets.
	{ID: "shell_histories", Level: Restricted, Kind: KindTree,
		Patterns: []string{"~/.bash_history", "~/.zsh_history", "~/.sh_history", "~/.history", "~/.python_history",
			"~/.psql_history", "~/.mysql_history", "~/.node_repl_history", "~/.local/share/fish/fish_history",
			"/root/.bash_history"},
		Match: []string{"~/.bash_history", "~/.zsh_history"}},
	{ID: "mail_stores", Level: Restricted, Kind: KindTree,
		Patterns: []string{"~/Mail", "~/.thunderbird", "~/Library/Mail", "~/.local/share/evolution/mail",
			"/var/mail", "/var/spool/mail"},
		Match: []string{"~/Mail/inbox", "/var/mail/dev"}},
	{ID: "finance_documents", Level: Restricted, Kind: KindWord,
		Patterns: []string{"payroll", "salary", "salaries", "paystub", "paystubs", "payslip", "payslips", "tax",
			"taxes", "bank", "banking", "iban", "brokerage", "finance", "finances", "financial", "financials",
			"accounting", "1099"},
		Match: []string{"~/Documents/Taxes/2023/return.pdf", "~/Downloads/bank_statement_2024.pdf",
			"$WORKSPACE/data/payroll.csv", "~/Documents/BankStatement.pdf", "~/finance/q3"},
		NoMatch: []string{"$WORKSPACE/src/tax.go", "$WORKSPACE/docs/syntax.md", "$WORKSPACE/finance"}},
	{ID: "health_documents", Level: Restricted, Kind: KindWord,
		Patterns: []string{"medical", "diagnosis", "diagnoses", "patient", "patients", "prescription",
			"prescriptions", "hipaa", "clinical"},
		Match:   []string{"~/Documents/medical/bloodwork.pdf", "$WORKSPACE/exports/patients.xlsx"},
		NoMatch: []string{"$WORKSPACE/internal/patient.go", "$WORKSPACE/docs/healthcheck.md"}},
	{ID: "identity_documents", Level: Restricted, Kind: KindWord,
		Patterns: []string{"passport", "ssn", "passports"},
		Match:    []string{"~/Pictures/passport-scan.jpg"}},

	// Confidential: legal and business documents, account lists.
	{ID: "legal_documents", Level: Confidential, Kind: KindWord,
		Patterns: []string{"contract", "contracts", "nda", "ndas", "agreement", "agreements", "legal",
			"lawsuit", "litigation", "settlement", "subpoena", "confidential"},
		Match:   []string{"~/Documents/Legal/lease.pdf", "$WORKSPACE/docs/acme-NDA.docx", "~/contracts/2024"},
		NoMatch: []string{"$WORKSPACE/contracts/erc20.sol", "$WORKSPACE/calendar.md"}},
	{ID: "business_documents", Level: Confidential, Kind: KindWord,
		Patterns: []string{"invoice", "invoices", "receipt", "receipts", "budget", "budgets", "ledger",
			"personnel"},
		Match:   []string{"~/Downloads/invoice-1042.pdf", "$WORKSPACE/reports/budget2025.xlsx"},
		NoMatch: []string{"$WORKSPACE/billing/invoice.go"}},
	{ID: "account_databases", Level: Confidential, Kind: KindTree,
		Patterns: []string{"/etc/passwd", "/etc/group", "/etc/sudoers", "/etc/sudoers.d"},
		Match:    []string{"/etc/passwd", "/etc/sudoers.d/dev"}},
	{ID: "ssh_config", Level: Confidential, Kind: KindTree,
		Patterns: []string{"~/.ssh/config", "~/.ssh/known_hosts"},
		Match:    []string{"~/.ssh/config", "~/.ssh/known_hosts"}},

	// Public: published material.
	{ID: "public_docs", Level: Public, Kind: KindPrefix,
		Patterns: []string{"readme", "license", "licence", "copying", "changelog", "contributing",
			"code_of_conduct", "notice", "authors"},
		Match:   []string{"$WORKSPACE/README.md", "$WORKSPACE/LICENSE", "/usr/local/src/x/CHANGELOG.md"},
		NoMatch: []string{"$WORKSPACE/main.go"}},
	{ID: "public_keys", Level: Public, Kind: KindSuffix, Patterns: []string{".pub"},
		Match: []string{"~/.ssh/id_ed25519.pub"}},
	{ID: "system_files", Level: Public, Kind: KindTree,
		Patterns: []string{"/usr/share", "/usr/include", "/usr/lib", "/usr/bin", "/usr/sbin", "/bin", "/sbin", "/lib"},
		Match:    []string{"/usr/share/dict/words", "/usr/bin/git"}},
}

// ruleDefault names the fallback classification (no rule matched).
const ruleDefault = "default"

// docExts are the extensions of documents (KindWord rules apply to them).
var docExts = map[string]bool{
	"pdf": true, "doc": true, "docx": true, "odt": true, "rtf": true, "txt": true, "md": true,
	"csv": true, "tsv": true, "xls": true, "xlsx": true, "ods": true, "numbers": true, "pages": true,
	"eml": true, "msg": true, "mbox": true, "json": true, "xml": true, "html": true, "htm": true,
	"jpg": true, "jpeg": true, "png": true, "heic": true, "tif": true, "tiff": true, "gif": true,
	"zip": true, "tar": true, "gz": true, "tgz": true, "7z": true, "qif": true, "ofx": true,
}
