package forge

import (
	"strings"
	"testing"
)

func TestRedactString(t *testing.T) {
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlX2hlcmU"
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc==\n-----END RSA PRIVATE KEY-----"
	tests := []struct{ name, in, want string }{
		// 1 NVIDIA
		{"nvapi", "token nvapi-FAKE0123456789", "token ***REDACTED***"},
		{"nvapi short", "nvapi-x", "***REDACTED***"},
		// 2 OpenAI-style with the boundary rule
		{"sk 20 chars", "prefix sk-abcdefghijklmnopqrst", "prefix ***REDACTED***"},
		{"sk 19 chars", "prefix sk-abcdefghijklmnopqrs", "prefix sk-abcdefghijklmnopqrs"},
		{"sk boundary", "see task-orchestrator-with-a-long-slug-1234567890", "see task-orchestrator-with-a-long-slug-1234567890"},
		{"sk after digit", "9sk-abcdefghijklmnopqrstuvwxyz", "9sk-abcdefghijklmnopqrstuvwxyz"},
		{"sk after dash", "x-sk-abcdefghijklmnopqrstuvwxyz", "x-***REDACTED***"},
		{"sk resume inside rejected span", "ask-aaaa_sk-bbbbbbbbbbbbbbbbbbbbbbbb", "ask-aaaa_***REDACTED***"},
		{"sk at start", "sk-ABCDEFGHIJKLMNOPQRSTUVWXYZ", "***REDACTED***"},
		// 3-4 Stripe
		{"stripe live", "k=sk_live_0123456789", "k=***REDACTED***"},
		{"stripe test short", "sk_test_012345678", "sk_test_012345678"},
		{"stripe restricted", "rk_test_abcdefghij", "***REDACTED***"},
		// 5 GitHub
		{"github", "ghp_0123456789abcdefghij rest", "***REDACTED*** rest"},
		{"github short", "ghp_0123456789abcdefghi", "ghp_0123456789abcdefghi"},
		{"github other", "ghx_0123456789abcdefghij", "ghx_0123456789abcdefghij"},
		// 6 Slack
		{"slack", "xoxb-123-abc", "***REDACTED***"},
		// 7 AWS
		{"aws", "AKIAABCDEFGHIJKLMNOP!", "***REDACTED***!"},
		{"aws short", "AKIAABCDEFGHIJKLMNO", "AKIAABCDEFGHIJKLMNO"},
		// 8 Google
		{"google", "AIza" + strings.Repeat("a", 35), "***REDACTED***"},
		{"google short", "AIza" + strings.Repeat("a", 34), "AIza" + strings.Repeat("a", 34)},
		// 9 SendGrid
		{"sendgrid", "SG." + strings.Repeat("a", 16) + "." + strings.Repeat("b", 16), "***REDACTED***"},
		{"sendgrid short", "SG." + strings.Repeat("a", 15) + "." + strings.Repeat("b", 16), "SG." + strings.Repeat("a", 15) + "." + strings.Repeat("b", 16)},
		// 10 PEM
		{"pem", "key:\n" + pem + "\ndone", "key:\n***REDACTED***\ndone"},
		{"pem plain", "-----BEGIN PRIVATE KEY-----x-----END PRIVATE KEY-----", "***REDACTED***"},
		{"pem no footer", "-----BEGIN PRIVATE KEY-----\nabc", "-----BEGIN PRIVATE KEY-----\nabc"},
		{"pem public", "-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----"},
		{"pem body 8192", "-----BEGIN PRIVATE KEY-----" + strings.Repeat("A", 8192) + "-----END PRIVATE KEY-----", "***REDACTED***"},
		{"pem body 8193", "-----BEGIN PRIVATE KEY-----" + strings.Repeat("A", 8193) + "-----END PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----" + strings.Repeat("A", 8193) + "-----END PRIVATE KEY-----"},
		{"pem body multibyte units", "-----BEGIN PRIVATE KEY-----" + strings.Repeat("é", 8192) + "-----END PRIVATE KEY-----", "***REDACTED***"},
		{"pem body astral counts two", "-----BEGIN PRIVATE KEY-----" + strings.Repeat("😀", 4097) + "-----END PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----" + strings.Repeat("😀", 4097) + "-----END PRIVATE KEY-----"},
		{"pem lazy two blocks", "-----BEGIN PRIVATE KEY-----a-----END PRIVATE KEY----- mid -----BEGIN EC PRIVATE KEY-----b-----END EC PRIVATE KEY-----", "***REDACTED*** mid ***REDACTED***"},
		// 11 JWT
		{"jwt", "Bearer-less " + jwt + " end", "Bearer-less ***REDACTED*** end"},
		{"jwt short header", "eyJabc.def.ghi", "eyJabc.def.ghi"},
		{"jwt long signature", "eyJ" + strings.Repeat("a", 10) + ".b." + strings.Repeat("c", 8200), "***REDACTED***" + strings.Repeat("c", 8)},
		{"jwt header 257", "eyJ" + strings.Repeat("a", 257) + ".b.c", "eyJ" + strings.Repeat("a", 257) + ".b.c"},
		{"jwt inner start", "eyJ" + strings.Repeat("a", 300) + "eyJ" + strings.Repeat("b", 10) + ".p.s", "eyJ" + strings.Repeat("a", 300) + "***REDACTED***"},
		// 12 URL credentials
		{"url", "psql postgres://admin:SuperSecret99@db:5432/app", "psql postgres://admin:***REDACTED***@db:5432/app"},
		{"url case", "HTTPS://User:PaSs@host", "HTTPS://User:***REDACTED***@host"},
		{"url no password", "https://user@host/x", "https://user@host/x"},
		// labelled secrets
		{"label equals", "login with password=hunter2 ok", "login with password=***REDACTED*** ok"},
		{"label json", `"api_key": "abc123"`, `"api_key": "***REDACTED***"`},
		{"label single quoted", `secret: 'x y z'`, `secret: '***REDACTED***'`},
		{"label unterminated quote", "token: \"abc def\nnext", "token: \"***REDACTED***\nnext"},
		{"label colon spaces", "Authorization :  Basic", "Authorization :  ***REDACTED***"},
		{"label stops at comma", "pwd=abc,user=x", "pwd=***REDACTED***,user=x"},
		{"label preceded by letter", "mypassword=abc", "mypassword=abc"},
		{"label client secret", "client-secret=abc", "client-secret=***REDACTED***"},
		{"label upper", "PASSWORD=abc", "PASSWORD=***REDACTED***"},
		{"label kelvin is not k", "api_\u212aey=abc", "api_\u212aey=abc"},
		{"label bare mixed", "token 4b19f0e2c9aa", "token ***REDACTED***"},
		{"label bare prose", "The access token expiration is set to 3600 seconds.", "The access token expiration is set to 3600 seconds."},
		{"label bare 11", "token 4b19f0e2c9a", "token 4b19f0e2c9a"},
		{"label bare letters only", "token abcdefghijklmnop", "token abcdefghijklmnop"},
		{"label bare digits only", "session 1234567890123", "session 1234567890123"},
		{"label tokens plural", "tokens: abc", "tokens: abc"},
		{"label author", "author: ada", "author: ada"},
		{"label value 4096", "pwd=" + strings.Repeat("a", 4100), "pwd=***REDACTED***aaaa"},
		{"label cookie", "Cookie: sid=abc; path=/", "Cookie: ***REDACTED***; path=/"},
		{"unicode space separator", "password\u00a0=\u3000hunter2", "password\u00a0=\u3000***REDACTED***"},
		{"nothing", "plain text, no secrets", "plain text, no secrets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RedactString(tt.in); got != tt.want {
				t.Fatalf("RedactString(%.80q)\n got %.200q\nwant %.200q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSecretKey(t *testing.T) {
	match := []string{"password", "db_password", "apiKey", "access_token", "X-Api-Key", "session.token", "PRIVATE_KEY", "client secret", "Authorization", "credentials"}
	no := []string{"author", "description", "tokens", "keyboard", "passwords", "tokenizer", ""}
	for _, k := range match {
		if !SecretKey(k) {
			t.Errorf("SecretKey(%q) = false", k)
		}
	}
	for _, k := range no {
		if SecretKey(k) {
			t.Errorf("SecretKey(%q) = true", k)
		}
	}
}

func TestRedactWalk(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"db":{"db_password":"hunter2","port":5432}}`, `{"db":{"db_password":"***REDACTED***","port":5432}}`},
		{`{"author":"ada","description":"a token of appreciation"}`, `{"author":"ada","description":"a token of appreciation"}`},
		{`{"password":"  "}`, `{"password":"  "}`},
		{`{"password":["plain","nvapi-x"]}`, `{"password":["plain","***REDACTED***"]}`},
		{`{"token":42,"secret":null,"apiKey":true}`, `{"token":42,"secret":null,"apiKey":true}`},
		{`{"evidence":["token nvapi-FAKE0123456789","ok"],"tests_run":"psql postgres://a:b@h/db"}`, `{"evidence":["token ***REDACTED***","ok"],"tests_run":"psql postgres://a:***REDACTED***@h/db"}`},
		{`[{"x":{"y":{"access_key":"v"}}}]`, `[{"x":{"y":{"access_key":"***REDACTED***"}}}]`},
	}
	for _, tt := range tests {
		v, err := ParseJSON([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		got := string(Stringify(nil, Redact(v)))
		if got != tt.want {
			t.Errorf("Redact(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
		// the input is not modified
		if again := string(Stringify(nil, v)); again == got && tt.in != tt.want {
			t.Errorf("Redact modified its input")
		}
	}
}

// TestRedactLinearTime feeds adversarial inputs; RE2 and the bounded scanners must stay linear.
func TestRedactLinearTime(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	inputs := []string{
		strings.Repeat("-----BEGIN PRIVATE KEY-----", 2000) + strings.Repeat("é", 9000) + "-----END PRIVATE KEY-----",
		strings.Repeat("eyJ", 20000),
		strings.Repeat("eyJaaaaaaaaaaaa.", 5000),
		strings.Repeat("sk-", 20000),
		strings.Repeat("password=", 5000),
		strings.Repeat("a://", 5000) + strings.Repeat("b", 600),
		strings.Repeat("token ", 5000),
	}
	for _, in := range inputs {
		_ = RedactString(in)
	}
}
