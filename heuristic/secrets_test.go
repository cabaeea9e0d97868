package heuristic

import "testing"

func TestFindSecret(t *testing.T) {
	tests := []struct {
		name, in, want string // want "" for no secret
	}{
		{"aws key id", "id=AKIA4QZ7RT2MXW9KLP3D&x=1", "an AWS access key id"},
		{"aws documented example id", "id=AKIAIOSFODNN7EXAMPLE&x=1", ""},
		{"aws documented example secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""},
		{"aws sts key id", `"ASIAY34FZKBOKMUTVV7A"`, "an AWS access key id"},
		{"aws key id too short", "AKIAIOSFODNN7EXAMP", ""},
		{"aws key id inside word", "XAKIA4QZ7RT2MXW9KLP3D", ""},
		{"aws secret", "aws_secret_access_key = q8Vt2LmN0xR5bY7wKp3ZcF9sHd1JgA6eUo4iTnQm", "an AWS secret access key"},
		{"aws secret wrong length", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG", ""},
		{"pem rsa", "-----BEGIN RSA PRIVATE KEY-----\nMIIE", "a private key block"},
		{"pem openssh", "x -----BEGIN OPENSSH PRIVATE KEY----- y", "a private key block"},
		{"pem pgp", "-----BEGIN PGP PRIVATE KEY BLOCK-----", "a private key block"},
		{"pem certificate", "-----BEGIN CERTIFICATE-----\nMIIB", ""},
		{"pem public", "-----BEGIN PUBLIC KEY-----", ""},
		{"github classic", "token ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R", "a GitHub token"},
		{"github oauth", "gho_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R", "a GitHub token"},
		{"github fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV", "a GitHub token"},
		{"github short", "ghp_shortvalue", ""},
		{"gitlab", "glpat-abcDEF123456ghiJKL78", "a GitLab token"},
		{"gitlab short", "glpat-abc", ""},
		{"slack bot", "xoxb-123456789012-abcdefABCDEF", "a Slack token"},
		{"slack word", "the xoxb- prefix", ""},
		{"stripe live", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "a Stripe live key"},
		{"stripe test", "sk_test_4eC39HqLyjWDarjtT1zdp7dc", ""},
		{"openai project", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx_12", "an OpenAI API key"},
		{"openai legacy", "sk-AbCdEfGhIjKlMnOpQrSt1234567890abcdefghijklmn", "an OpenAI API key"},
		{"openai word", "see the sk-learn docs and task-scheduler", ""},
		{"anthropic", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCd", "an Anthropic API key"},
		{"google", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "a Google API key"},
		{"google short", "AIzaSyA1b2", ""},
		{"npm", "npm_abcdefghijklmnopqrstuvwxyz0123456789", "an npm token"},
		{"jwt", "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "a JSON web token"},
		{"jwt-like not json", "eyJub3QganNvbiBhdCBhbGw.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc", ""},
		{"service account", `{"type":"service_account","private_key":"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKjMzEfYyjiWA4R4"}`, "a service-account private key"},
		{"service account empty", `{"private_key": ""}`, ""},
		{"password assignment", "db_password=Xq7!vR2#pL9@wM4z", "a password value"},
		{"password json", `{"password": "hT9$kW2!mQ7#zR4x"}`, "a password value"},
		{"token query", "https://x.example/?api_key=Zx81Kq02Lm93Nb74", "a api key value"},
		{"password placeholder", "password=${DB_PASSWORD}", ""},
		{"password low entropy", "password=aaaaaaaa1", ""},
		{"password word", "password: changeme123", ""},
		{"password call", "password = getPassword(user, realm)", ""},
		{"tokenizer", "tokenizer=Bpe2Tok7Xy", ""},
		{"plain prose", "The deploy finished in 42 seconds with no errors at all.", ""},
		{"git sha", "commit 9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := findSecret(tt.in)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("findSecret = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

func FuzzFindSecret(f *testing.F) {
	for _, s := range []string{"AKIA4QZ7RT2MXW9KLP3D", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.x", "password=Xq7!vR2#pL9@wM4z",
		"-----BEGIN RSA PRIVATE KEY-----", `"private_key": "`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kind, ok := findSecret(s)
		if ok == (kind == "") {
			t.Fatalf("kind %q with ok %v", kind, ok)
		}
	})
}

func BenchmarkFindSecret(b *testing.B) {
	body := "Hello team,\nthe release went out at 10:42; see https://ci.example.org/builds/1234 for logs.\n" +
		"Next steps: update the changelog, bump the version and tag v1.2.3.\nThanks!"
	for b.Loop() {
		findSecret(body)
	}
}
