package dlp

import (
	"slices"
	"strings"
	"testing"
)

// All secrets below are fake: random values in the vendors' formats.

type scanCase struct {
	name, text string
	want       []string // scanner ids found, in any order; nil for none
}

var scannerCases = append(append(append(append(append(append(baseScannerCases, encodedURLCases...), cryptoCases...), seedCases...), encodedCases...), addressCases...), layerCases...)

var baseScannerCases = []scanCase{
	// private_key
	{"pem rsa", "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEAv3k9q2ZxP8yW1nTc5RmD0aLh7Jf4uQe6Ks2Bp9Vg+Xo=\n", 3) +
		"-----END RSA PRIVATE KEY-----", []string{"private_key"}},
	{"pem in json", `{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDRk2x9\nq7Lw3Zp0Ye1m8TfVbN4cU6sHjK2oXa5iRgPd\n-----END PRIVATE KEY-----\n"}`, []string{"private_key"}},
	{"pem header only in code", `if strings.HasPrefix(s, "-----BEGIN RSA PRIVATE KEY-----") {`, nil},
	{"pem public key", "-----BEGIN PUBLIC KEY-----\n" + strings.Repeat("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n", 3) + "-----END PUBLIC KEY-----", nil},
	{"pem placeholder body", "-----BEGIN OPENSSH PRIVATE KEY-----\n...\n-----END OPENSSH PRIVATE KEY-----", nil},

	// aws
	{"aws key id", "aws_access_key_id = AKIAUJZDEGXDNCF32EPF", []string{"aws_access_key_id"}},
	{"aws key id example", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", nil},
	{"aws key id in word", "XAKIAUJZDEGXDNCF32EPF", nil},
	{"aws key id too long", "AKIAUJZDEGXDNCF32EPFQ", nil},
	{"aws secret", "aws_secret_access_key = 2hpChYgCfrL1spNxnyVmihA+2O76UMFxFkM+R5Kj", []string{"aws_secret_access_key"}},
	{"aws secret env", "AWS_SECRET_ACCESS_KEY=2hpChYgCfrL1spNxnyVmihA+2O76UMFxFkM+R5Kj\n", []string{"aws_secret_access_key"}},
	{"aws secret example", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", nil},
	{"aws secret reference", "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}", nil},

	// gcp
	{"gcp api key", `const firebaseConfig = { apiKey: "AIzap1vRt-1fjORS_6ilI8ihN5KXSc7Tvo_hBKq" };`, []string{"gcp_api_key"}},
	{"gcp api key short", "AIzaSyA1b2C3d4", nil},
	{"gcp api key filler", "AIzaXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", nil},
	{"gcp oauth secret", `"client_secret":"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"`, []string{"gcp_oauth_client_secret"}},
	{"gcp oauth secret short", "GOCSPX-abc", nil},

	// azure
	{"azure storage key", "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=hGyiRUIQfHOJMaidDn87XG3/q/xbMtEPO6UkzYuF0ie9Pu2njHkAm1/5wDr16EpLLJIVGHz4FxFEtKyPiYGFDm==;EndpointSuffix=core.windows.net", []string{"azure_storage_key"}},
	{"azure storage azurite", "AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;", nil},
	{"azure storage key ref", "AccountKey=${STORAGE_KEY};", nil},
	{"azure client secret", "AZURE_CLIENT_SECRET=jAI8Q~VOq-g6YYZYn9ZhyiA4uoRgnatmUdjAWtGS", []string{"azure_client_secret"}},
	{"azure client secret in text", "the secret jAI8Q~VOq-g6YYZYn9ZhyiA4uoRgnatmUdjAWtGS was rotated", []string{"azure_client_secret"}},
	{"azure tilde path", "see ~/Q~notes and 8Q~x", nil},

	// github / gitlab
	{"github classic", "token: ghp_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH", []string{"github_token"}},
	{"github fine grained", "GH_TOKEN=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", []string{"github_token"}},
	{"github short", "ghp_shortvalue", nil},
	{"github filler", "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", nil},
	{"gitlab", "glpat-Xz9w3QlY7Zkuvqdt7s8S", []string{"gitlab_token"}},
	{"gitlab placeholder", "export GITLAB_TOKEN=glpat-<your-token-here>", nil},

	// slack
	{"slack bot", "SLACK_BOT_TOKEN=xoxb-288200182633-0434839548620-6Vw5DQL05HA064GiIjHGb3CX", []string{"slack_token"}},
	{"slack placeholder", "xoxb-your-bot-token-here", nil},
	{"slack webhook", "curl -X POST https://hooks.slack.com/services/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", []string{"slack_webhook"}},
	{"slack webhook docs", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", nil},

	// stripe / openai / anthropic
	{"stripe live", "Stripe.api_key = 'sk_live_IZEG8pSH4487q7J58m1CiAhz'", []string{"stripe_key"}},
	{"stripe test", "sk_test_IZEG8pSH4487q7J58m1CiAhz", nil},
	{"stripe publishable", "pk_live_IZEG8pSH4487q7J58m1CiAhz", nil},
	{"openai project", "OPENAI_API_KEY=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", []string{"openai_key"}},
	{"openai legacy", "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", []string{"openai_key"}},
	{"openai word", "pip install scikit-learn; see sk-learn-docs-and-examples-for-more-information-today", nil},
	{"anthropic", "x-api-key: sk-ant-api03-_tKsf2rcDkdfrUnW5gcF-Ha6ili8GjHEAD6_Wj9KfzjsQGMrb9h-ImB-LK777pzNk8cL6j5IXAAjlsHUqJoUD_-Ydua-5AA", []string{"anthropic_key"}},
	{"anthropic placeholder", "ANTHROPIC_API_KEY=sk-ant-api03-...", nil},

	// npm / pypi / sendgrid
	{"npm", "//registry.npmjs.org/:_authToken=npm_ztUjAwyuh1vauWv1zh87mTa5Vsqxezy3Lex7", []string{"npm_token"}},
	{"npm config var", "npm_config_cache=/home/dev/.npm npm_package_version=1.2.3", nil},
	{"pypi", "password = pypi-AgEIcHlwaS5vcmc2JgJngKtFI3OyV2dZAkg05rK-gqv81RKMGHZEM9YpvujA_C5Q52ryFlwRlOEVHzc0X0AWI", []string{"pypi_token"}},
	{"pypi short", "pypi-AgEIcHlwaS5vcmc", nil},
	{"sendgrid", "SENDGRID_API_KEY='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'", []string{"sendgrid_key"}},
	{"sendgrid short", "SG.abc.def", nil},

	// jwt / basic / bearer
	{"jwt bearer", "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiAidS1ibUY0UlBBZiIsICJpYXQiOiAxNzE4MDAwMDAwfQ.GD2VD_eR1UYzaLiA_zNyD7CHLn_xC-1hsYgBds1ghxY", []string{"jwt"}},
	{"jwt not json", "eyJub3QganNvbiBhdCBhbGw.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc", nil},
	{"jwt header only", "eyJhbGciOiJIUzI1NiJ9", nil},
	{"basic auth", "Authorization: Basic ZGVwbG95OkM1VDR1VWhmN2t2bWxQ", []string{"basic_auth"}},
	{"basic words", "Basic usage: run the tool. Basic realm=\"api\"", nil},
	{"basic no colon", "Authorization: Basic aGVsbG8gd29ybGQ=", nil},
	{"bearer opaque", "curl -H 'Authorization: Bearer 7eNWVQ4vnakJkS1pAWTN3lg8zV5yPU8d0FZfWe7i' https://api.acme.io", []string{"bearer_token"}},
	{"bearer variable", `curl -H "Authorization: Bearer $API_TOKEN" https://api.acme.io`, nil},
	{"bearer template", "Authorization: Bearer <token>", nil},
	{"bearer github yields", "Authorization: Bearer ghp_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH", []string{"github_token"}},

	// connection strings
	{"postgres url", "DATABASE_URL=postgres://app:Wq7vR2pL9xM4@db.internal:5432/app", []string{"connection_string_password"}},
	{"redis no user", "redis://:hT9kW2mQ7zR4@cache:6379/0", []string{"connection_string_password"}},
	{"ado string", "Server=tcp:acme.database.windows.net,1433;Database=crm;User ID=svc;Password=Pa55w0rd!2024;Encrypt=True", []string{"connection_string_password"}},
	{"url no password", "postgres://app@localhost/app and ssh://git@github.com/org/repo", nil},
	{"url password placeholder", "mongodb://<user>:<password>@cluster0.mongodb.net and postgres://user:password@localhost/db", nil},
	{"url password variable", "redis://:${REDIS_PASSWORD}@redis:6379", nil},
	{"url token yields", "https://x-access-token:ghp_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH@github.com/org/repo.git", []string{"github_token"}},

	// generic
	{"generic env", "JWT_SECRET=3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e", []string{"generic_secret"}},
	{"generic json", `{"client_secret": "hT9$kW2!mQ7#zR4xLp0v"}`, []string{"generic_secret"}},
	{"generic yaml", "  password: Xq7!vR2#pL9@wM4z\n", []string{"generic_secret"}},
	{"generic query", "GET /v1/items?api_key=Zx81Kq02Lm93Nb74&page=2", []string{"generic_secret"}},
	{"generic reference", "password: ${DB_PASSWORD}", nil},
	{"generic call", "password = os.getenv('DB_PASSWORD')", nil},
	{"generic placeholder", "api_key: your-api-key-here", nil},
	{"generic low entropy", "password=aaaaaaaa1", nil},
	{"generic dotted", "password: settings.database.password2", nil},
	{"generic public key", "public_key = AAAAC3NzaC1lZDI1NTE5AAAAIOMq", nil},
	{"generic page token", "next_page_token: CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA5ZHJ1", nil},

	// markers
	{"top secret", "TOP SECRET//NOFORN\nOperation summary", []string{"secret_marker"}},
	{"tlp red", "TLP:RED - do not share outside the incident team", []string{"secret_marker"}},
	{"classification restricted", "Classification: Restricted", []string{"secret_marker"}},
	{"secret word", "The secret to good soup is salt. keep_secret=true", nil},
	{"confidential banner", "ACME CORP CONFIDENTIAL - Q3 board deck", []string{"confidential_marker"}},
	{"confidential phrase", "This memo is privileged and confidential.", []string{"confidential_marker"}},
	{"confidential enum", "if doc.Level == Level.CONFIDENTIAL { return }\nconst CONFIDENTIAL = 3", nil},
	{"confidential string", `label == "CONFIDENTIAL"`, nil},
	{"confidential prose", "We keep customer data confidential.", nil},
	{"public tlp", "TLP:CLEAR\nAdvisory: patch your routers.", []string{"public_marker"}},
	{"public approved", "Approved for public release; distribution unlimited.", []string{"public_marker"}},
	{"public word", "func (s *Server) Public() bool { return true }", nil},

	// pii
	{"email", "From: Jane Doe <jane.doe@acme-corp.com>", []string{"email"}},
	{"email mailto", `<a href="mailto:support@fastmail.fm">`, []string{"email"}},
	{"email example domain", "user@example.com admin@mail.example.org", nil},
	{"email git remote", "git@github.com:parallax/parallax.git", nil},
	{"email image", "icon@2x.png logo@3x.webp", nil},
	{"email package version", "lodash@4.17.21 and @types/node@20.1.0", nil},
	{"email url userinfo", "ssh://deploy@build.acme.io/srv", nil},
	{"phone us", "Call me at (415) 867-2301 tomorrow", []string{"phone_number"}},
	{"phone us dashed", "tel 646-309-4471", []string{"phone_number"}},
	{"phone intl", "Office: +44 20 7946 0321", []string{"phone_number"}},
	{"phone intl trunk", "+49 (0)30 9018 2245", []string{"phone_number"}},
	{"phone fictional", "(415) 555-0142", nil},
	{"phone timezone", "2024-05-01T10:00:00+05:30", nil},
	{"phone version", "release 1.234.5678 built", nil},
	{"phone ip", "10.120.230.1400", nil},
	{"ssn", "SSN 536-22-8174", []string{"us_ssn"}},
	{"ssn labelled plain", "ssn: 536228174", []string{"us_ssn"}},
	{"ssn invalid area", "ref 666-22-8174 and 912-34-5678 and 000-12-3456", nil},
	{"ssn example", "e.g. 123-45-6789", nil},
	{"nino", "NI number: QR 12 34 56 C", nil},
	{"nino valid", "National Insurance: AB 12 34 56 C", []string{"uk_nino"}},
	{"nino compact", "nino=JG103759A", []string{"uk_nino"}},
	{"nino bad prefix", "GB123456A and AB123456E", nil},
	{"dni", "DNI: 21237899K", []string{"es_dni"}},
	{"nie", "NIE Y9215275V", []string{"es_dni"}},
	{"dni bad letter", "21237899A", nil},
	{"sin", "SIN: 651 337 420", []string{"ca_sin"}},
	{"sin no label", "order 651 337 420 shipped", nil},
	{"sin bad luhn", "SIN: 651 337 421", nil},
	{"dob iso", "DOB: 1984-07-23", []string{"date_of_birth"}},
	{"dob words", "Date of Birth: March 3, 1979", []string{"date_of_birth"}},
	{"dob born", "She was born on 12 March 1985 in Leeds.", []string{"date_of_birth"}},
	{"dob invalid", "dob: 1984-02-30", nil},
	{"date not dob", "created: 1984-07-23", nil},

	// phi
	{"mrn", "MRN: 004417823", []string{"medical_record_number"}},
	{"patient id", `"patient_id": "P-20931847"`, []string{"medical_record_number"}},
	{"patient id code", "patient_id = request.args.get('patient_id')", nil},
	{"phi marker", "Chief Complaint: chest pain for 3 days", []string{"phi_marker"}},
	{"phi marker prose", "Our product stores HIPAA compliance reports.", nil},
	{"health prose", "Dana was diagnosed with type 2 diabetes in March.", []string{"health_condition"}},
	{"health word about a build", "The build was diagnosed as flaky.", nil},

	// street addresses
	{"address after cue", "Priya lives at 42 Elm Street.", []string{"street_address"}},
	{"address with locality", "1187 Maple Avenue, Springfield, IL 62704", []string{"street_address"}},
	{"street without cue or locality", "42 Elm Street is a film.", nil},

	// pci
	{"card visa", "card 4787 7893 2879 2170 exp 09/27", []string{"credit_card"}},
	{"card amex", "amex: 373840191614617", []string{"credit_card"}},
	{"card mc dashed", "5100-3390-7579-3836", []string{"credit_card"}},
	{"card test number", "use 4242 4242 4242 4242 in test mode", nil},
	{"card bad luhn", "4787 7893 2879 2171", nil},
	{"card timestamp", "ts=1718000000123 nanos=1718000000123456789", nil},
	{"iban", "IBAN: DE91 2699 1023 7409 5461 11", []string{"iban"}},
	{"iban compact", "pay to GB92NWBK39309559729792 by Friday", []string{"iban"}},
	{"iban example", "GB82 WEST 1234 5698 7654 32", nil},
	{"iban bad check", "DE92 2699 1023 7409 5461 11", nil},

	// nothing
	{"prose", "The deploy finished in 42 seconds with no errors at all.", nil},
	{"uuid and sha", "id=550e8400-e29b-41d4-a716-446655440000 commit 9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6", nil},
}

func foundIDs(r Result) []string {
	var ids []string
	for _, f := range r.Findings {
		if !slices.Contains(ids, f.Scanner) {
			ids = append(ids, f.Scanner)
		}
	}
	slices.Sort(ids)
	return ids
}

func TestScanners(t *testing.T) {
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range scannerCases {
		t.Run(tt.name, func(t *testing.T) {
			got := foundIDs(d.Scan(tt.text))
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

// TestScannerCasesCoverTable holds every scanner to a positive and a
// negative unit case (the labelled set holds it to more).
func TestScannerCasesCoverTable(t *testing.T) {
	pos := map[string]int{}
	for _, c := range scannerCases {
		for _, id := range c.want {
			pos[id]++
		}
	}
	for _, s := range Scanners() {
		if pos[s.ID] == 0 {
			t.Errorf("scanner %s: no positive unit case", s.ID)
		}
	}
}
