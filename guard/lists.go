package guard

import (
	"maps"
	"slices"
)

// The tables every OS shares: the workspace levels (DESIGN §3), the
// user-level files under the home, and the name and component rules.
// System paths live in lists_<os>.go. The tables are compiled into the
// binary and are not user-extensible: policy can add denials, never
// remove these.

// Categories, plural, so reasons read "<what> are restricted".
const (
	catSSH       = "SSH keys and configuration"
	catCloud     = "cloud credentials"
	catGPG       = "GPG keys"
	catRegistry  = "container registry credentials"
	catKube      = "Kubernetes credentials"
	catPass      = "password stores"
	catTokens    = "CLI access tokens"
	catBrowser   = "browser profiles (cookies and saved passwords)"
	catKeyring   = "desktop keyrings"
	catHistory   = "shell and REPL histories"
	catAgent     = "agent internals (.parallax)"
	catShellRC   = "shell startup files"
	catToolCfg   = "tool configuration files that run code or hold tokens"
	catAutostart = "autostart and service definitions"
	catGitHooks  = "git hooks"
	catGitConfig = "git repository configurations (they can run commands)"
	catKeys      = "private keys and key stores"
	catEnv       = "environment secret files"
	catCreds     = "credential files"
	catProcMem   = "process memory and environments"
	catGateCfg   = "agent hook and MCP client configurations (they switch Parallax on or off)"

	catSoul    = "agent identity files"
	catSkills  = "agent skills"
	catAgents  = "agent instructions"
	catMemory  = "agent memory"
	catUserDoc = "the user profile"

	// catHostDocs are what an agent host loads as instructions or runs as
	// extensions (DESIGN §3 treats AGENTS.md so): Claude Code's memory
	// files, rules, skills, sub-agents, slash commands, hook scripts,
	// output styles and plugins.
	catHostDocs = "agent host instructions and extensions (Claude Code memory, rules, skills, agents, commands, hooks, plugins)"
)

// workspaceEntries are relative to the workspace root.
var workspaceEntries = []entry{
	{path: ".parallax", level: Sealed, what: catAgent},
	{path: "SOUL.md", level: ReadOnly, what: catSoul},
	{path: "IDENTITY.md", level: ReadOnly, what: catSoul},
	{path: "skills", level: ReadOnly, what: catSkills},
	{path: "AGENTS.md", level: Tier2, what: catAgents},
	{path: "HEARTBEAT.md", level: Tier2, what: catAgents},
	{path: "USER.md", level: Tier1, what: catUserDoc},
	{path: "MEMORY.md", level: Tier1, what: catMemory},
	{path: "memory", level: Tier1, what: catMemory},

	// What puts Parallax in front of the agents: Claude Code's hook
	// settings and the MCP client configurations that route through the
	// proxy. The agent the gate guards must not switch it off.
	{path: ".claude/settings.json", level: Protected, what: catGateCfg},
	{path: ".claude/settings.local.json", level: Protected, what: catGateCfg},
	{path: ".mcp.json", level: Protected, what: catGateCfg},
	{path: ".cursor/mcp.json", level: Protected, what: catGateCfg},
	{path: ".vscode/mcp.json", level: Protected, what: catGateCfg},

	// What Claude Code loads as the agent's instructions or runs as its
	// extensions: a change is an instruction to every later session, so
	// it gets the review AGENTS.md gets. A skill, agent or command that
	// declares hooks is a hook configuration: tier 1 blocks that write
	// (heuristic host_hook_config), as the guard blocks settings files.
	{path: "CLAUDE.md", level: Tier2, what: catHostDocs},
	{path: "CLAUDE.local.md", level: Tier2, what: catHostDocs},
	{path: ".claude/CLAUDE.md", level: Tier2, what: catHostDocs},
	{path: ".claude/rules", level: Tier2, what: catHostDocs},
	{path: ".claude/skills", level: Tier2, what: catHostDocs},
	{path: ".claude/agents", level: Tier2, what: catHostDocs},
	{path: ".claude/commands", level: Tier2, what: catHostDocs},
	{path: ".claude/hooks", level: Tier2, what: catHostDocs},
	{path: ".claude/output-styles", level: Tier2, what: catHostDocs},
	{path: ".claude/plugins", level: Tier2, what: catHostDocs},
}

// homeEntries are relative to the home ("~/…"). Shell rc files are
// protected only here, directly under the home: a .bashrc inside a
// project (a dotfiles repository) is an ordinary file.
var homeEntries = []entry{
	{path: "~/.parallax", level: Sealed, what: catAgent},

	{path: "~/.ssh", level: Restricted, what: catSSH, pub: true},
	{path: "~/.aws", level: Restricted, what: catCloud},
	{path: "~/.azure", level: Restricted, what: catCloud},
	{path: "~/.config/gcloud", level: Restricted, what: catCloud},
	{path: "~/.oci", level: Restricted, what: catCloud},
	{path: "~/.gnupg", level: Restricted, what: catGPG},
	{path: "~/.docker", level: Restricted, what: catRegistry},
	{path: "~/.kube", level: Restricted, what: catKube},
	{path: "~/.password-store", level: Restricted, what: catPass},
	{path: "~/.config/op", level: Restricted, what: catPass},
	{path: "~/.config/gh", level: Restricted, what: catTokens},
	{path: "~/.config/hub", level: Restricted, what: catTokens},
	{path: "~/.terraform.d", level: Restricted, what: catTokens},
	{path: "~/.npmrc", level: Restricted, what: catTokens},
	{path: "~/.pypirc", level: Restricted, what: catTokens},
	{path: "~/.cargo/credentials", level: Restricted, what: catTokens},
	{path: "~/.cargo/credentials.toml", level: Restricted, what: catTokens},
	{path: "~/.local/share/keyrings", level: Restricted, what: catKeyring},
	{path: "~/.mozilla", level: Restricted, what: catBrowser},
	{path: "~/.config/google-chrome", level: Restricted, what: catBrowser},
	{path: "~/.config/chromium", level: Restricted, what: catBrowser},
	{path: "~/.config/BraveSoftware", level: Restricted, what: catBrowser},
	{path: "~/.bash_history", level: Restricted, what: catHistory},
	{path: "~/.zsh_history", level: Restricted, what: catHistory},
	{path: "~/.local/share/fish/fish_history", level: Restricted, what: catHistory},
	{path: "~/.python_history", level: Restricted, what: catHistory},
	{path: "~/.psql_history", level: Restricted, what: catHistory},
	{path: "~/.mysql_history", level: Restricted, what: catHistory},
	{path: "~/.node_repl_history", level: Restricted, what: catHistory},

	{path: "~/.bashrc", level: Protected, what: catShellRC},
	{path: "~/.bash_profile", level: Protected, what: catShellRC},
	{path: "~/.bash_login", level: Protected, what: catShellRC},
	{path: "~/.bash_logout", level: Protected, what: catShellRC},
	{path: "~/.zshrc", level: Protected, what: catShellRC},
	{path: "~/.zshenv", level: Protected, what: catShellRC},
	{path: "~/.zprofile", level: Protected, what: catShellRC},
	{path: "~/.zlogin", level: Protected, what: catShellRC},
	{path: "~/.zlogout", level: Protected, what: catShellRC},
	{path: "~/.profile", level: Protected, what: catShellRC},
	{path: "~/.cshrc", level: Protected, what: catShellRC},
	{path: "~/.tcshrc", level: Protected, what: catShellRC},
	{path: "~/.kshrc", level: Protected, what: catShellRC},
	{path: "~/.xprofile", level: Protected, what: catShellRC},
	{path: "~/.xinitrc", level: Protected, what: catShellRC},
	{path: "~/.xsessionrc", level: Protected, what: catShellRC},
	{path: "~/.pam_environment", level: Protected, what: catShellRC},
	{path: "~/.config/fish", level: Protected, what: catShellRC},
	{path: "~/.config/environment.d", level: Protected, what: catShellRC},
	{path: "~/.inputrc", level: Protected, what: catShellRC},

	{path: "~/.gitconfig", level: Protected, what: catToolCfg},
	{path: "~/.config/git", level: Protected, what: catToolCfg},
	{path: "~/.npmrc", level: Protected, what: catToolCfg},
	{path: "~/.yarnrc", level: Protected, what: catToolCfg},
	{path: "~/.yarnrc.yml", level: Protected, what: catToolCfg},
	{path: "~/.pip/pip.conf", level: Protected, what: catToolCfg},
	{path: "~/.config/pip", level: Protected, what: catToolCfg},
	{path: "~/.pypirc", level: Protected, what: catToolCfg},
	{path: "~/.cargo/config", level: Protected, what: catToolCfg},
	{path: "~/.cargo/config.toml", level: Protected, what: catToolCfg},
	{path: "~/.vimrc", level: Protected, what: catToolCfg},
	{path: "~/.vim/plugin", level: Protected, what: catToolCfg},
	{path: "~/.config/nvim/init.vim", level: Protected, what: catToolCfg},
	{path: "~/.config/nvim/init.lua", level: Protected, what: catToolCfg},
	{path: "~/.tmux.conf", level: Protected, what: catToolCfg},
	{path: "~/.config/tmux", level: Protected, what: catToolCfg},

	{path: "~/.claude/settings.json", level: Protected, what: catGateCfg},
	{path: "~/.claude/settings.local.json", level: Protected, what: catGateCfg},
	{path: "~/.claude.json", level: Protected, what: catGateCfg},
	{path: "~/.config/Claude/claude_desktop_config.json", level: Protected, what: catGateCfg},
	{path: "~/Library/Application Support/Claude/claude_desktop_config.json", level: Protected, what: catGateCfg},
	{path: "~/.cursor/mcp.json", level: Protected, what: catGateCfg},
	{path: "~/.codeium/windsurf/mcp_config.json", level: Protected, what: catGateCfg},

	// The user-level counterparts of the workspace's host instructions.
	{path: "~/.claude/CLAUDE.md", level: Tier2, what: catHostDocs},
	{path: "~/.claude/rules", level: Tier2, what: catHostDocs},
	{path: "~/.claude/skills", level: Tier2, what: catHostDocs},
	{path: "~/.claude/agents", level: Tier2, what: catHostDocs},
	{path: "~/.claude/commands", level: Tier2, what: catHostDocs},
	{path: "~/.claude/hooks", level: Tier2, what: catHostDocs},
	{path: "~/.claude/output-styles", level: Tier2, what: catHostDocs},
	{path: "~/.claude/plugins", level: Tier2, what: catHostDocs},

	{path: "~/.config/autostart", level: Protected, what: catAutostart},
	{path: "~/.local/share/systemd", level: Protected, what: catAutostart},
	{path: "~/.config/systemd", level: Protected, what: catAutostart},
}

// HostTrusted are the paths of a workspace, relative to its root, that
// programs of the host obey or run when the user works there: git's
// configuration and hooks, the editors' and agents' settings and tasks,
// direnv, commit hooks. A command run for the agent may read them but
// never change them (the gate protects some by name; the kernel all).
func HostTrusted() []string {
	return []string{".git/config", ".git/hooks", ".git/info", ".claude", ".vscode", ".cursor", ".idea", ".mcp.json",
		".envrc", ".husky", ".pre-commit-config.yaml", ".devcontainer", ".gitmodules"}
}

// SecretName reports whether a base name is a secret's by the guard's
// name rules (id_rsa, .env, .netrc, *.pem, …), whatever its directory.
func SecretName(base string) bool {
	lvl, _ := nameLevel(base)
	return lvl != None
}

// componentRules apply wherever the components sit, inside the
// workspace too.
var componentRules = []componentRule{
	{seq: []string{".parallax"}, level: Sealed, what: catAgent},
	{seq: []string{".ssh"}, level: Restricted, what: catSSH, pub: true},
	{seq: []string{".gnupg"}, level: Restricted, what: catGPG},
	{seq: []string{".git", "hooks"}, level: Protected, what: catGitHooks},
	{seq: []string{".git", "config"}, level: Protected, what: catGitConfig},
	// A Claude Code project below the workspace root has its own settings.
	{seq: []string{".claude", "settings.json"}, level: Protected, what: catGateCfg},
	{seq: []string{".claude", "settings.local.json"}, level: Protected, what: catGateCfg},
	// ... and its own instructions and extensions.
	{seq: []string{".claude", "CLAUDE.md"}, level: Tier2, what: catHostDocs},
	{seq: []string{".claude", "rules"}, level: Tier2, what: catHostDocs},
	{seq: []string{".claude", "skills"}, level: Tier2, what: catHostDocs},
	{seq: []string{".claude", "agents"}, level: Tier2, what: catHostDocs},
	{seq: []string{".claude", "commands"}, level: Tier2, what: catHostDocs},
	{seq: []string{".claude", "hooks"}, level: Tier2, what: catHostDocs},
	{seq: []string{".claude", "output-styles"}, level: Tier2, what: catHostDocs},
	{seq: []string{".claude", "plugins"}, level: Tier2, what: catHostDocs},
}

// hostDocNames are the memory files Claude Code loads from the directory
// it starts in, each directory above it, and the directories below it it
// works in: judged as host instructions (Tier2) in the workspace, the
// home and every directory above the workspace (instructionName).
var hostDocNames = map[string]bool{"CLAUDE.md": true, "CLAUDE.local.md": true}

// secretNames are restricted base names (lower case), anywhere on disk.
// Public keys and certificates (*.pub, id_*-cert.pub) are not secrets.
var secretNames = map[string]string{
	"id_rsa":                catKeys,
	"id_dsa":                catKeys,
	"id_ecdsa":              catKeys,
	"id_ed25519":            catKeys,
	"id_ecdsa_sk":           catKeys,
	"id_ed25519_sk":         catKeys,
	".env":                  catEnv,
	".envrc":                catEnv,
	"credentials":           catCreds,
	"credentials.json":      catCreds,
	"secrets.yaml":          catCreds,
	"secrets.yml":           catCreds,
	"secrets.json":          catCreds,
	"token.json":            catCreds,
	"service-account.json":  catCreds,
	".pgpass":               catCreds,
	".my.cnf":               catCreds,
	".netrc":                catCreds,
	"_netrc":                catCreds,
	".git-credentials":      catCreds,
	".vault-token":          catCreds,
	".htpasswd":             catCreds,
	"credentials.tfrc.json": catCreds,
}

// secretNameList is secretNames' keys in order, for deterministic reasons.
var secretNameList = slices.Sorted(maps.Keys(secretNames))

// secretSuffixes are restricted name endings (lower case).
var secretSuffixes = []struct{ suffix, what string }{
	{".pem", catKeys},
	{".key", catKeys},
	{".p12", catKeys},
	{".pfx", catKeys},
	{".keystore", catKeys},
	{".jks", catKeys},
	{".asc", catKeys},
	{".ppk", catKeys},
	{".kdbx", catPass},
}

// envExamples are the .env.* names that hold no secrets by convention.
var envExamples = map[string]bool{
	".env.example":  true,
	".env.sample":   true,
	".env.template": true,
}
