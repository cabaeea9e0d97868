package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// A command the engine runs gets the scrubbed environment, never the
// engine's: a variable outside the allowlist and the model's key
// variable (named by api_key_env, allowlisted by its GO prefix) do not
// reach it; an allowlisted variable does (the control that proves the
// command prints its environment).
func TestCommandCannotSeeTheEnginesEnvironment(t *testing.T) {
	t.Setenv("PX_ENGINE_ONLY_SETTING", "zebra-engine-setting")
	t.Setenv("GOTEAM_LLM_CRED", "zebra-model-credential")
	t.Setenv("LC_PX_VISIBLE", "zebra-visible")
	e := newRuntimeEnv(t, rtOptions{keyEnv: "GOTEAM_LLM_CRED"})
	defer e.rt.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	s, err := e.rt.sessions.New(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(e.root, "env.txt")
	payload, err := json.Marshal(map[string]any{
		"command": `printf '%s|%s|%s' "$PX_ENGINE_ONLY_SETTING" "$GOTEAM_LLM_CRED" "$LC_PX_VISIBLE" > ` + dump})
	if err != nil {
		t.Fatal(err)
	}
	c := newAgentConn(e.rt, 0, time.Now(), time.Now())
	e.rt.propose(ctx, c, &pb.ToolProposal{SessionId: s.ID, CallId: "call-env", ActionType: "execute_command", PayloadJson: payload})
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatalf("the command did not run: %v", err)
	}
	got := string(b)
	if !strings.HasSuffix(got, "|zebra-visible") {
		t.Fatalf("control: the allowlisted variable is missing, so the output proves nothing: %q", got)
	}
	for _, v := range []string{"zebra-engine-setting", "zebra-model-credential"} {
		if strings.Contains(got, v) {
			t.Errorf("the command saw the engine's %q", v)
		}
	}
}
