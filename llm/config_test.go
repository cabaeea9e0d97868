package llm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const goodConfig = `
models:
  - name: claude
    provider: anthropic
    model: claude-sonnet-4-5
    api_key_env: ANTHROPIC_API_KEY
    purpose: main agent
  - name: judge
    provider: openai
    model: gpt-4.1-mini
    api_key_env: OPENAI_API_KEY
    timeout: 20s
    max_tokens: 512
  - name: local
    provider: ollama
    model: llama3.2
  - name: vllm
    provider: vllm
    model: meta-llama/Llama-3.1-8B-Instruct
    base_url: http://localhost:8000/v1
  - name: gem
    provider: gemini
    model: gemini-2.5-flash
    api_key_env: GEMINI_API_KEY
roles:
  chat: claude
  shield: judge
  embedding: local
  sub_agent: gem
`

func TestParseConfig(t *testing.T) {
	cfg, err := ParseConfig("config.yaml", []byte(goodConfig))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	expectEqual(t, "models", len(cfg.Models), 5)
	expectEqual(t, "timeout", cfg.Models[1].Timeout, 20*time.Second)
	expectEqual(t, "max tokens", cfg.Models[1].MaxTokens, 512)
	expectEqual(t, "role shield", cfg.Roles.Shield, "judge")
	expectEqual(t, "ollama default base", cfg.Models[2].baseURL(), "http://127.0.0.1:11434/v1")
	expectEqual(t, "default timeout", cfg.Models[0].timeout(), DefaultTimeout)
	expectEqual(t, "default max tokens", cfg.Models[0].maxTokens(), DefaultMaxTokens)
}

func TestLoadConfigFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "llm.yaml")
	if err := os.WriteFile(file, []byte(goodConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(file)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	expectEqual(t, "models", len(cfg.Models), 5)
	_, err = LoadConfig(filepath.Join(dir, "missing.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v, want os.ErrNotExist", err)
	}
}

func TestConfigErrors(t *testing.T) {
	const pastedKey = "sk-ant-api03-PASTEDKEYVALUE"
	cases := []struct {
		name, yaml, want string
		leak             string // must not appear in the error
	}{
		{"unknown key", "models: []\nroles: {chat: x}\nextra: 1\n", "field extra not found", ""},
		{"unknown role", "roles: {judge: x}\n", "field judge not found", ""},
		{"unknown model key", "models: [{name: a, provider: ollama, model: m, key: x}]\n", "field key not found", ""},
		{"unknown provider", "models: [{name: a, provider: mistral, model: m}]\n", `unknown provider "mistral"`, ""},
		{"duplicate", "models: [{name: a, provider: ollama, model: m}, {name: a, provider: ollama, model: n}]\n", `duplicate name "a"`, ""},
		{"role to nothing", "models: [{name: a, provider: ollama, model: m}]\nroles: {shield: b}\n", `roles.shield: no model named "b"`, ""},
		{"key needed", "models: [{name: a, provider: anthropic, model: m}]\n", "needs api_key_env", ""},
		{"key pasted", "models: [{name: a, provider: anthropic, model: m, api_key_env: " + pastedKey + "}]\n", "not a key", pastedKey},
		{"compat needs base", "models: [{name: a, provider: openai_compatible, model: m}]\n", "needs base_url", ""},
		{"ollama remote", "models: [{name: a, provider: ollama, model: m, base_url: 'http://10.0.0.5:11434/v1'}]\n", "not loopback", ""},
		{"vllm remote name", "models: [{name: a, provider: vllm, model: m, base_url: 'http://gpu-box:8000/v1'}]\n", "not loopback", ""},
		{"key over http", "models: [{name: a, provider: openai, model: m, api_key_env: K, base_url: 'http://api.example.com/v1'}]\n", "only sent over https", ""},
		{"user info", "models: [{name: a, provider: ollama, model: m, base_url: 'http://u:hunter2@127.0.0.1/v1'}]\n", "user info", "hunter2"},
		{"query", "models: [{name: a, provider: ollama, model: m, base_url: 'http://127.0.0.1/v1?key=x'}]\n", "query", ""},
		{"scheme", "models: [{name: a, provider: ollama, model: m, base_url: 'ftp://127.0.0.1/'}]\n", `scheme "ftp"`, ""},
		{"bad name", "models: [{name: 'A B', provider: ollama, model: m}]\n", "name must be", ""},
		{"empty model", "models: [{name: a, provider: ollama, model: ''}]\n", "model must be", ""},
		{"negative timeout", "models: [{name: a, provider: ollama, model: m, timeout: -1s}]\n", "must not be negative", ""},
		{"bad duration", "models: [{name: a, provider: ollama, model: m, timeout: soon}]\n", "line 1: cannot unmarshal", ""},
		{"key in a typed field", "models: [{name: a, provider: ollama, model: m, max_tokens: " + pastedKey + "}]\n", "cannot unmarshal", pastedKey},
		{"two documents", "models: []\n---\nmodels: []\n", "one YAML document", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig("cfg.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatalf("got nil error, want one containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q: want it to contain %q", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "cfg.yaml: ") {
				t.Errorf("error %q does not name the file", err)
			}
			if c.leak != "" && strings.Contains(err.Error(), c.leak) {
				t.Errorf("error %q echoes the secret", err)
			}
		})
	}
}

func TestConfigTooLarge(t *testing.T) {
	_, err := ParseConfig("big.yaml", make([]byte, MaxConfigBytes+1))
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("got %v, want a size error", err)
	}
}
