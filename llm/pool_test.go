package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testPool(t *testing.T, env map[string]string) *Pool {
	t.Helper()
	cfg, err := ParseConfig("config.yaml", []byte(goodConfig))
	if err != nil {
		t.Fatal(err)
	}
	pool, err := NewPool(cfg, Options{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	return pool
}

func TestPoolRoles(t *testing.T) {
	pool := testPool(t, map[string]string{"ANTHROPIC_API_KEY": testKey, "OPENAI_API_KEY": testKey, "GEMINI_API_KEY": testKey})
	cases := []struct {
		role     Role
		name     string
		provider ProviderKind
	}{
		{RoleChat, "claude", ProviderAnthropic},
		{RoleShield, "judge", ProviderOpenAI},
		{RoleEmbedding, "local", ProviderOllama},
		{RoleSubAgent, "gem", ProviderGemini},
	}
	for _, c := range cases {
		t.Run(string(c.role), func(t *testing.T) {
			p, ref, err := pool.ForRole(c.role)
			if err != nil {
				t.Fatalf("for role: %v", err)
			}
			expectEqual(t, "name", ref.Name, c.name)
			expectEqual(t, "provider", ref.Provider, c.provider)
			printed := fmt.Sprintf("%v %+v %#v %s", p, p, p, p)
			if strings.Contains(printed, testKey) {
				t.Errorf("printed provider contains the key: %s", printed)
			}
		})
	}
}

func TestPoolMissingKey(t *testing.T) {
	pool := testPool(t, map[string]string{"OPENAI_API_KEY": "   "})
	for _, role := range []Role{RoleChat, RoleShield, RoleSubAgent} {
		t.Run(string(role), func(t *testing.T) {
			ref, err := pool.Assigned(role) // needs no key
			if err != nil {
				t.Fatalf("assigned: %v", err)
			}
			_, _, err = pool.ForRole(role)
			e := asError(t, err)
			expectEqual(t, "kind", e.Kind, KindConfig)
			if !errors.Is(err, ErrMissingKey) {
				t.Error("errors.Is(err, ErrMissingKey): got false, want true")
			}
			m := pool.entry(ref.Name)
			if !strings.Contains(err.Error(), m.APIKeyEnv) {
				t.Errorf("error %q does not name %s", err, m.APIKeyEnv)
			}
		})
	}
	// The unauthenticated entry needs no key.
	if _, _, err := pool.ForRole(RoleEmbedding); err != nil {
		t.Errorf("ollama without key: %v", err)
	}
}

func TestPoolRoleErrors(t *testing.T) {
	pool, err := NewPool(Config{Models: []ModelConfig{{Name: "a", Provider: ProviderOllama, Model: "m"}}, Roles: Roles{Chat: "a"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := pool.ForRole(RoleShield); !errors.Is(err, ErrNoModel) {
		t.Errorf("unassigned role: got %v, want ErrNoModel", err)
	}
	if _, _, err := pool.ForRole("judge"); err == nil || !strings.Contains(err.Error(), "unknown role") {
		t.Errorf("unknown role: got %v", err)
	}
	if _, _, err := pool.Model("nope"); err == nil || !strings.Contains(err.Error(), "not in the pool") {
		t.Errorf("unknown model: got %v", err)
	}
	if _, err := NewPool(Config{Models: []ModelConfig{{Name: "a", Provider: "x", Model: "m"}}}, Options{}); err == nil {
		t.Error("invalid config: got a pool, want an error")
	}
}

func TestSameModel(t *testing.T) {
	a := ModelRef{Name: "a", Model: "gpt-4.1", BaseURL: "https://api.openai.com/v1"}
	b := ModelRef{Name: "b", Model: "gpt-4.1", BaseURL: "https://api.openai.com/v1/"}
	c := ModelRef{Name: "c", Model: "gpt-4.1-mini", BaseURL: "https://api.openai.com/v1"}
	expectEqual(t, "same", a.SameModel(b), true)
	expectEqual(t, "different", a.SameModel(c), false)
}

// TestSDKEnvironmentIgnored: the SDKs read OPENAI_API_KEY,
// OPENAI_BASE_URL, ANTHROPIC_BASE_URL… by default. None of it may reach
// a request: no key for an unauthenticated local server, no other host.
func TestSDKEnvironmentIgnored(t *testing.T) {
	const leaked = "sk-from-the-environment"
	t.Setenv("OPENAI_API_KEY", leaked)
	t.Setenv("OPENAI_ORG_ID", "org-leak")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("ANTHROPIC_API_KEY", leaked)
	t.Setenv("ANTHROPIC_AUTH_TOKEN", leaked)
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Leak: yes")
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, _ := setup(t, k, nil, reply{file: "text.json"})
			if _, err := p.Complete(context.Background(), helloRequest()); err != nil {
				t.Fatalf("complete (did it go to the environment's base URL?): %v", err)
			}
			h := ws.requests()[0].Header
			for name, vals := range h {
				for _, v := range vals {
					if strings.Contains(v, leaked) || strings.Contains(v, "org-leak") || name == "X-Leak" {
						t.Errorf("header %s carries the environment's value", name)
					}
				}
			}
			k.checkAuth(t, h)
		})
	}
}

// TestVLLMWithKey: an OpenAI-compatible server with a key on loopback
// over http is allowed; the key goes as a bearer token and the answer
// bound as max_tokens.
func TestVLLMWithKey(t *testing.T) {
	k := kit{name: "ollama", provider: ProviderVLLM, keyEnv: "VLLM_KEY", model: "meta-llama/Llama-3.1-8B-Instruct",
		basePath: "/v1", crlf: false}
	p, ws, _ := setup(t, k, nil, reply{file: "text.json"})
	if _, err := p.Complete(context.Background(), helloRequest()); err != nil {
		t.Fatalf("complete: %v", err)
	}
	r := ws.requests()[0]
	expectEqual(t, "authorization", r.Header.Get("Authorization"), "Bearer "+testKey)
	expectEqual(t, "max_tokens", at(r.Body, "max_tokens"), "256")
	expectEqual(t, "model", at(r.Body, "model"), "meta-llama/Llama-3.1-8B-Instruct")
}

// TestLocalhostName: "localhost" is accepted for an unauthenticated
// server and reaches it (the dial check sees a loopback address).
func TestLocalhostName(t *testing.T) {
	k := kits[2] // ollama
	ws := newWireServer(t, k.name, false, reply{file: "text.json"})
	port := ws.srv.URL[strings.LastIndex(ws.srv.URL, ":")+1:]
	pool, err := NewPool(Config{Models: []ModelConfig{{Name: "l", Provider: ProviderOllama, Model: "llama3.2",
		BaseURL: "http://localhost:" + port + "/v1"}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := pool.Model("l")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(context.Background(), helloRequest()); err != nil {
		t.Fatalf("complete: %v", err)
	}
}

// TestDialGuard: a loopback endpoint's client refuses to connect
// anywhere else, whatever the URL says (the check runs before connect).
func TestDialGuard(t *testing.T) {
	hc := newHTTPClient(endpoint{loopback: true}, 1<<20)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://192.0.2.1:9/", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err == nil {
		_ = resp.Body.Close()
		t.Fatal("connection to a non-loopback address: got a response, want an error")
	}
	if !errors.Is(err, ErrNotLoopback) {
		t.Errorf("got %v, want ErrNotLoopback", err)
	}
}

// TestEndToEndFromConfigFile: a YAML file on disk, a pool from it, each
// role's provider answering through its real client from a loopback
// server speaking its wire format.
func TestEndToEndFromConfigFile(t *testing.T) {
	url := map[string]string{}
	for _, k := range kits {
		ws := newWireServer(t, k.name, k.crlf, reply{file: "text.json"})
		url[k.name] = ws.srv.URL + k.basePath
	}
	yaml := fmt.Sprintf(`models:
  - {name: main, provider: anthropic, model: claude-sonnet-4-5, api_key_env: ANTHROPIC_API_KEY, base_url: %q}
  - {name: judge, provider: openai, model: gpt-4.1-mini, api_key_env: OPENAI_API_KEY, base_url: %q, timeout: 10s}
  - {name: local, provider: ollama, model: llama3.2, base_url: %q}
  - {name: helper, provider: gemini, model: gemini-2.5-flash, api_key_env: GEMINI_API_KEY, base_url: %q}
roles: {chat: main, shield: judge, embedding: local, sub_agent: helper}
`, url["anthropic"], url["openai"], url["ollama"], url["gemini"])
	file := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(file)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	pool, err := NewPool(cfg, Options{Getenv: testEnv})
	if err != nil {
		t.Fatalf("pool: %v", err)
	}
	for _, role := range []Role{RoleChat, RoleShield, RoleEmbedding, RoleSubAgent} {
		p, ref, err := pool.ForRole(role)
		if err != nil {
			t.Fatalf("%s: %v", role, err)
		}
		resp, err := p.Complete(context.Background(), helloRequest())
		if err != nil {
			t.Fatalf("%s (%s): %v", role, ref.Name, err)
		}
		expectEqual(t, string(role)+" text", resp.Text, helloText)
		if resp.Usage.InputTokens == 0 {
			t.Errorf("%s: no usage reported", role)
		}
	}
}
