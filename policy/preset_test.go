package policy

import (
	"encoding/json"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

var testVars = Vars{Workspace: "/home/dev/project", Home: "/home/dev"}

// decodeAction decodes real JSON through action.Decode and Normalize.
func decodeAction(t testing.TB, typ, payload string) *action.Action {
	t.Helper()
	a, err := action.Decode(typ, json.RawMessage(payload))
	if err != nil {
		t.Fatalf("decode %s %s: %v", typ, payload, err)
	}
	if err := action.Normalize(a, action.Env{Home: testVars.Home}); err != nil {
		t.Fatalf("normalize %s %s: %v", typ, payload, err)
	}
	return a
}

// sh builds shell effects by hand so these tests do not depend on the
// analyser's state.
func sh(execs []string, paths []shell.PathUse, hosts []string, tags ...shell.TagKind) *shell.Effects {
	e := &shell.Effects{Paths: paths}
	for _, x := range execs {
		e.Execs = append(e.Execs, shell.Exec{Name: x})
	}
	for _, h := range hosts {
		e.Network = append(e.Network, shell.NetDest{Host: h})
	}
	for _, k := range tags {
		e.Tags = append(e.Tags, shell.Tag{Kind: k})
	}
	return e
}

func use(p string, acc action.Access) shell.PathUse { return shell.PathUse{Path: p, Access: acc} }

func globUse(p string, acc action.Access) shell.PathUse {
	return shell.PathUse{Path: p, Access: acc, Glob: true}
}

type presetCase struct {
	name    string
	typ     string
	payload string
	eff     *shell.Effects
	want    Effect
	tier    int
	rule    string
}

const (
	r = action.AccessRead
	w = action.AccessWrite
	d = action.AccessDelete
)

func runPreset(t *testing.T, preset string, cases []presetCase) {
	t.Helper()
	p, err := Preset(preset, testVars)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := NewInput(decodeAction(t, c.typ, c.payload), c.eff)
			got := p.Evaluate(in)
			if got.Effect != c.want || got.Tier != c.tier || (c.rule != "" && got.Rule != c.rule) {
				t.Errorf("got %v tier %d rule %q (%s), want %v tier %d rule %q",
					got.Effect, got.Tier, got.Rule, got.Reason, c.want, c.tier, c.rule)
			}
			if got.Effect != None && got.Reason == "" {
				t.Errorf("empty reason")
			}
		})
	}
}

func TestPresetDefault(t *testing.T) {
	runPreset(t, "default", []presetCase{
		{"workspace read", "read_file", `{"path":"/home/dev/project/main.go"}`, nil, Allow, 0, "workspace_reads"},
		{"workspace read via tilde", "read_file", `{"path":"~/project/README.md"}`, nil, Allow, 0, "workspace_reads"},
		{"read elsewhere", "read_file", `{"path":"/usr/share/doc/bash/README"}`, nil, Allow, 0, "reads_elsewhere"},
		{"list dir", "list_directory", `{"path":"/home/dev/project","recursive":true}`, nil, Allow, 0, "workspace_reads"},
		{"search", "search_files", `{"path":"/home/dev/project","pattern":"TODO"}`, nil, Allow, 0, "workspace_reads"},
		{"netrc", "read_file", `{"path":"~/.netrc"}`, nil, Deny, 0, "credential_files"},
		{"shadow", "read_file", `{"path":"/etc/shadow"}`, nil, Deny, 0, "credential_files"},
		{"gh hosts", "read_file", `{"path":"/home/dev/.config/gh/hosts.yml"}`, nil, Deny, 0, "credential_files"},
		{"terraform creds", "copy_file", `{"source":"~/.terraform.d/credentials.tfrc.json","destination":"/home/dev/project/x"}`, nil, Deny, 0, "credential_files"},
		{"keyring", "list_directory", `{"path":"/home/dev/.local/share/keyrings"}`, nil, Deny, 0, "credential_files"},
		{"chrome cookies", "read_file", `{"path":"/home/dev/.config/google-chrome/Default/Cookies"}`, nil, Deny, 0, "browser_profiles"},
		{"firefox logins", "read_file", `{"path":"/home/dev/.mozilla/firefox/abc.default/logins.json"}`, nil, Deny, 0, "browser_profiles"},
		{"email netrc attachment", "send_email", `{"to":"a@b.c","subject":"x","body":"y","attachments":["~/.netrc"]}`, nil, Deny, 0, "credential_files"},
		{"delete SOUL.md", "delete_file", `{"path":"/home/dev/project/SOUL.md"}`, nil, Deny, 0, "identity_files"},
		{"overwrite IDENTITY.md", "write_file", `{"path":"/home/dev/project/IDENTITY.md","content":"x"}`, nil, Deny, 0, "identity_files"},
		{"move SOUL.md away", "move_file", `{"source":"/home/dev/project/SOUL.md","destination":"/home/dev/project/old.md"}`, nil, Deny, 0, "identity_files"},
		{"read SOUL.md", "read_file", `{"path":"/home/dev/project/SOUL.md"}`, nil, Allow, 0, "workspace_reads"},
		// .parallax is sealed by the guard, before any policy: the preset
		// does not repeat it (a repeat would over-match recursive patterns).
		{"parallax state", "read_file", `{"path":"/home/dev/project/.parallax/policy.yaml"}`, nil, Allow, 0, "workspace_reads"},
		{"shell rm SOUL via effects", "execute_command", `{"command":"rm SOUL.md"}`,
			sh([]string{"rm"}, []shell.PathUse{use("/home/dev/project/SOUL.md", d)}, nil), Deny, 0, "identity_files"},
		{"shell cat netrc via glob", "execute_command", `{"command":"cat ~/.ne*"}`,
			sh([]string{"cat"}, []shell.PathUse{globUse("/home/dev/.ne*", r)}, nil), Deny, 0, "credential_files"},
		{"shell routine", "execute_command", `{"command":"go test ./..."}`,
			sh([]string{"go"}, nil, nil), Verify, 1, "shell_effects"},
		{"shell without effects", "execute_command", `{"command":"ls"}`, nil, Verify, 1, "shell_effects"},
		{"workspace write", "write_file", `{"path":"/home/dev/project/src/a.go","content":"package a"}`, nil, Allow, 0, "workspace_writes"},
		{"workspace edit", "edit_file", `{"path":"/home/dev/project/a.go","old":"a","new":"b"}`, nil, Allow, 0, "workspace_writes"},
		{"workspace delete", "delete_file", `{"path":"/home/dev/project/tmp.txt"}`, nil, Allow, 0, "workspace_writes"},
		{"write outside", "write_file", `{"path":"/home/dev/notes.txt","content":"x"}`, nil, Verify, 2, "writes_outside_workspace"},
		{"copy out of workspace", "copy_file", `{"source":"/home/dev/project/a","destination":"/tmp/a"}`, nil, Verify, 2, "writes_outside_workspace"},
		{"move into workspace from outside", "move_file", `{"source":"/home/dev/Downloads/a","destination":"/home/dev/project/a"}`, nil, Verify, 2, "writes_outside_workspace"},
		{"copy into workspace from outside", "copy_file", `{"source":"/usr/share/dict/words","destination":"/home/dev/project/words"}`, nil, Allow, 0, ""},
		{"mkdir outside", "create_directory", `{"path":"/opt/x"}`, nil, Verify, 2, "writes_outside_workspace"},
		{"USER.md write", "write_file", `{"path":"/home/dev/project/USER.md","content":"x"}`, nil, Verify, 1, "memory_files"},
		{"MEMORY.md edit", "edit_file", `{"path":"/home/dev/project/MEMORY.md","old":"a","new":"b"}`, nil, Verify, 1, "memory_files"},
		{"AGENTS.md write", "write_file", `{"path":"/home/dev/project/AGENTS.md","content":"x"}`, nil, Verify, 2, "agent_files"},
		{"memory_write", "memory_write", `{"content":"likes tea"}`, nil, Verify, 1, "memory_writes"},
		{"memory_search", "memory_search", `{"query":"tea"}`, nil, Allow, 0, "read_only_tools"},
		{"git status", "git_status", `{}`, nil, Allow, 0, "read_only_git"},
		{"git diff", "git_diff", `{"path":"/home/dev/project"}`, nil, Allow, 0, "read_only_git"},
		{"git push", "git_push", `{"remote":"origin","branch":"main"}`, nil, Verify, 1, "git_push"},
		{"git commit", "git_commit", `{"message":"fix"}`, nil, Verify, 1, "git_changes"},
		{"git clone outside", "git_clone", `{"url":"https://github.com/a/b","path":"/srv/b"}`, nil, Verify, 2, "writes_outside_workspace"},
		{"send email", "send_email", `{"to":"a@b.c","subject":"hi","body":"x"}`, nil, Verify, 2, "external_communication"},
		{"send message", "send_message", `{"channel":"slack","body":"x"}`, nil, Verify, 2, "external_communication"},
		{"create event", "create_event", `{"title":"x","start":"2026-01-01T10:00:00Z","attendees":["a@b.c"]}`, nil, Verify, 2, "external_communication"},
		{"mcp call", "mcp_call", `{"server":"s","tool":"t","arguments":{}}`, nil, Verify, 2, "external_communication"},
		{"http get", "http_request", `{"method":"GET","url":"https://api.example.com/x"}`, nil, Verify, 1, "http_reads"},
		{"http post", "http_request", `{"method":"post","url":"https://api.example.com/x","body":"{}"}`, nil, Verify, 2, "http_writes"},
		{"http odd method", "http_request", `{"method":"PROPFIND","url":"https://dav.example.com/"}`, nil, Verify, 2, "default_tier2"},
		{"navigate", "browser_navigate", `{"url":"https://example.com"}`, nil, Verify, 1, "web_access"},
		{"browser click", "browser_click", `{"selector":"#buy"}`, nil, Verify, 1, "local_changes"},
		{"read calendar", "read_calendar", `{}`, nil, Allow, 0, "read_only_tools"},
		{"list schedules", "list_schedules", `{}`, nil, Allow, 0, "read_only_tools"},
		{"create schedule", "create_schedule", `{"cron":"* * * * *","task":"x"}`, nil, Verify, 2, "schedules"},
		{"create agent", "create_agent", `{"task":"x"}`, nil, Verify, 1, "agent_instructions"},
		{"notify", "notify", `{"title":"x"}`, nil, Allow, 0, "local_notes"},
		{"recursive delete in workspace", "delete_file", `{"path":"/home/dev/project/build","recursive":true}`, nil, Allow, 0, "workspace_writes"},
		{"recursive delete of the workspace", "delete_file", `{"path":"/home/dev/project","recursive":true}`, nil, Verify, 2, "recursive_delete"},
		{"schedule", "create_schedule", `{"cron":"* * * * *","task":"x"}`, nil, Verify, 2, "schedules"},
	})
}

func TestPresetPermissive(t *testing.T) {
	runPreset(t, "permissive", []presetCase{
		{"ssh key", "read_file", `{"path":"~/.ssh/id_ed25519"}`, nil, Deny, 0, "critical_secrets"},
		{"aws creds", "read_file", `{"path":"/home/dev/.aws/credentials"}`, nil, Deny, 0, "critical_secrets"},
		{"gcloud", "list_directory", `{"path":"/home/dev/.config/gcloud/legacy_credentials"}`, nil, Deny, 0, "critical_secrets"},
		{"shadow", "read_file", `{"path":"/etc/shadow"}`, nil, Deny, 0, "critical_secrets"},
		{"ssh key via shell glob", "execute_command", `{"command":"cat ~/.ssh/*"}`,
			sh([]string{"cat"}, []shell.PathUse{globUse("/home/dev/.ssh/*", r)}, nil), Deny, 0, "critical_secrets"},
		{"ssh known_hosts", "read_file", `{"path":"~/.ssh/known_hosts"}`, nil, Allow, 0, "default_allow"},
		{"netrc is allowed here", "read_file", `{"path":"~/.netrc"}`, nil, Allow, 0, "default_allow"},
		{"workspace read", "read_file", `{"path":"/home/dev/project/a"}`, nil, Allow, 0, "default_allow"},
		{"write outside", "write_file", `{"path":"/etc/hosts","content":"x"}`, nil, Allow, 0, "default_allow"},
		{"recursive delete", "delete_file", `{"path":"/home/dev/project/x","recursive":true}`, nil, Allow, 0, "default_allow"},
		{"email", "send_email", `{"to":"a@b.c","subject":"x","body":"y"}`, nil, Verify, 1, "outbound"},
		{"message", "send_message", `{"channel":"c","body":"y"}`, nil, Verify, 1, "outbound"},
		{"http post", "http_request", `{"method":"POST","url":"https://x.example/"}`, nil, Verify, 1, "outbound"},
		{"mcp", "mcp_call", `{"server":"s","tool":"t"}`, nil, Verify, 1, "outbound"},
		{"shell", "execute_command", `{"command":"make"}`, sh([]string{"make"}, nil, nil), Verify, 1, "shell_effects"},
		{"schedule", "create_schedule", `{"cron":"@daily","command":"make"}`, nil, Verify, 1, "shell_effects"},
		{"git push", "git_push", `{}`, nil, Allow, 0, "default_allow"},
		{"browser type", "browser_type", `{"selector":"#q","text":"x"}`, nil, Allow, 0, "default_allow"},
		{"create agent", "create_agent", `{"task":"x"}`, nil, Allow, 0, "default_allow"},
		{"extended type", "clipboard_read", `{}`, nil, Allow, 0, "default_allow"},
	})
}

func TestPresetStrict(t *testing.T) {
	runPreset(t, "strict", []presetCase{
		{"workspace read", "read_file", `{"path":"/home/dev/project/a.go"}`, nil, Allow, 0, "reads"},
		{"read elsewhere", "read_file", `{"path":"/usr/include/stdio.h"}`, nil, Allow, 0, "reads"},
		{"list", "list_directory", `{"path":"/home/dev/project"}`, nil, Allow, 0, "reads"},
		{"docker config", "read_file", `{"path":"~/.docker/config.json"}`, nil, Deny, 0, "secrets"},
		{"ssh known hosts", "read_file", `{"path":"~/.ssh/known_hosts"}`, nil, Deny, 0, "secrets"},
		{"etc ssh", "read_file", `{"path":"/etc/ssh/sshd_config"}`, nil, Deny, 0, "secrets"},
		{"root home", "list_directory", `{"path":"/root"}`, nil, Deny, 0, "secrets"},
		{"shadow", "read_file", `{"path":"/etc/shadow"}`, nil, Deny, 0, "secrets"},
		{"parallax state write", "write_file", `{"path":"/home/dev/project/.parallax/x","content":"x"}`, nil, Deny, 0, "agent_state"},
		{"delete file", "delete_file", `{"path":"/home/dev/project/a"}`, nil, Deny, 0, "no_deletions"},
		{"shell rm", "execute_command", `{"command":"rm a"}`,
			sh([]string{"rm"}, []shell.PathUse{use("/home/dev/project/a", d)}, nil), Deny, 0, "no_deletions"},
		{"shell rm glob", "execute_command", `{"command":"rm *.o"}`,
			sh([]string{"rm"}, []shell.PathUse{globUse("/home/dev/project/*.o", d)}, nil), Deny, 0, "no_deletions"},
		{"shell destructive tag", "execute_command", `{"command":"shred x"}`,
			sh([]string{"shred"}, nil, nil, shell.TagDestructive), Deny, 0, "destructive_effects"},
		{"shell routine", "execute_command", `{"command":"go build"}`, sh([]string{"go"}, nil, nil), Verify, 2, "shell"},
		{"git push", "git_push", `{}`, nil, Deny, 0, "no_push"},
		{"browser click", "browser_click", `{"selector":"#a"}`, nil, Deny, 0, "no_browser_input"},
		{"browser type", "browser_type", `{"selector":"#a","text":"x"}`, nil, Deny, 0, "no_browser_input"},
		{"write in workspace", "write_file", `{"path":"/home/dev/project/a","content":"x"}`, nil, Verify, 2, "writes"},
		{"move", "move_file", `{"source":"/home/dev/project/a","destination":"/home/dev/project/b"}`, nil, Verify, 2, "writes"},
		{"email", "send_email", `{"to":"a@b.c","subject":"x","body":"y"}`, nil, Verify, 2, "external_communication"},
		{"http get", "http_request", `{"method":"GET","url":"https://example.com"}`, nil, Verify, 2, "external_communication"},
		{"schedule", "create_schedule", `{"cron":"@daily","task":"x"}`, nil, Verify, 2, "schedules_and_calendar"},
		{"event", "create_event", `{"title":"x","start":"2026-01-01"}`, nil, Verify, 2, "schedules_and_calendar"},
		{"git status", "git_status", `{}`, nil, Verify, 1, "git"},
		{"git commit", "git_commit", `{"message":"x"}`, nil, Verify, 1, "git"},
		{"navigate", "browser_navigate", `{"url":"https://example.com"}`, nil, Verify, 1, "browser_navigation"},
		{"memory search", "memory_search", `{"query":"x"}`, nil, Allow, 0, "read_only_tools"},
		{"unlisted type", "clipboard_read", `{}`, nil, Deny, 0, "default_deny"},
		{"system info", "system_info", `{}`, nil, Deny, 0, "default_deny"},
	})
}

func TestPresetsLoadAndLintClean(t *testing.T) {
	names := PresetNames()
	if len(names) != 3 || names[0] != "default" || names[1] != "permissive" || names[2] != "strict" {
		t.Fatalf("got presets %v, want [default permissive strict]", names)
	}
	for _, n := range names {
		p, err := Preset(n, testVars)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		for _, w := range p.Lint() {
			t.Errorf("%s: %s", n, w)
		}
	}
	if _, err := Preset("nope", testVars); err == nil {
		t.Errorf("unknown preset: got nil error")
	}
	if _, err := Preset("default", Vars{Home: "/home/dev"}); err == nil {
		t.Errorf("default without workspace: got nil error, want $WORKSPACE is not set")
	}
}
