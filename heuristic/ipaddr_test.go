package heuristic

import "testing"

func TestParseIPv4Legacy(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" for not an address
	}{
		{"169.254.169.254", "169.254.169.254"},
		{"2852039166", "169.254.169.254"},
		{"0xa9fea9fe", "169.254.169.254"},
		{"0XA9FEA9FE", "169.254.169.254"},
		{"0xa9.0xfe.0xa9.0xfe", "169.254.169.254"},
		{"0251.0376.0251.0376", "169.254.169.254"},
		{"169.254.43518", "169.254.169.254"},
		{"169.16689662", "169.254.169.254"},
		{"0251.254.0xa9fe", "169.254.169.254"},
		{"169.254.169.254.", "169.254.169.254"},
		{"127.1", "127.0.0.1"},
		{"0", "0.0.0.0"},
		{"0x7f000001", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"256.1.1.1", ""},
		{"1.2.3.4.5", ""},
		{"4294967296", ""},
		{"08.1.1.1", ""}, // 8 is not octal
		{"1..1", ""},
		{"", ""},
		{"example.com", ""},
		{"0xg1", ""},
		{"99999999999999999999999", ""},
		{"1.2.3.256", ""},
		{"1.2.65536", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			a, ok := parseIPv4Legacy(tt.in)
			got := ""
			if ok {
				got = a.String()
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseHostIP(t *testing.T) {
	tests := []struct{ in, want string }{
		{"[::ffff:169.254.169.254]", "169.254.169.254"},
		{"::ffff:a9fe:a9fe", "169.254.169.254"},
		{"[::ffff:a9fe:a9fe]", "169.254.169.254"},
		{"::a9fe:a9fe", "169.254.169.254"},
		{"64:ff9b::a9fe:a9fe", "169.254.169.254"},
		{"[fd00:ec2::254]", "fd00:ec2::254"},
		{"[fe80::1%eth0]", "fe80::1"},
		{"::1", "::1"},
		{"[::]", "::"},
		{"2001:db8::1", "2001:db8::1"},
		{"[not-an-ip]", ""},
	}
	for _, tt := range tests {
		a, ok := parseHostIP(tt.in)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want {
			t.Errorf("parseHostIP(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMetadataHost(t *testing.T) {
	yes := []string{"169.254.169.254", "2852039166", "0xa9fea9fe", "0xa9.0xfe.0xa9.0xfe",
		"0251.0376.0251.0376", "169.254.43518", "[::ffff:169.254.169.254]", "[::ffff:a9fe:a9fe]",
		"[fd00:ec2::254]", "metadata.google.internal", "metadata.google.internal.", "metadata.goog",
		"100.100.100.200", "169.254.170.2", "169.254.169.254.nip.io", "a9fea9fe.nip.io",
		"app-169-254-169-254.sslip.io", "instance-data"}
	no := []string{"169.254.169.253", "example.com", "metadata.example.com", "169.254.169.25.example.com",
		"10.0.0.1", "[::1]", "google.internal", "169.254.169.254.example.com", ""}
	for _, h := range yes {
		if !isMetadataHost(h) {
			t.Errorf("isMetadataHost(%q) = false, want true", h)
		}
	}
	for _, h := range no {
		if isMetadataHost(h) {
			t.Errorf("isMetadataHost(%q) = true, want false", h)
		}
	}
}

func TestInternalHost(t *testing.T) {
	yes := []string{"127.0.0.1", "127.1", "0x7f000001", "localhost", "api.localhost", "10.1.2.3",
		"172.16.0.1", "192.168.1.1", "[::1]", "169.254.10.10", "0.0.0.0", "100.64.0.1", "[fc00::1]",
		"db.internal", "printer.local", "[::ffff:10.0.0.1]"}
	no := []string{"8.8.8.8", "example.com", "172.32.0.1", "10.example.com", "[2001:4860::8888]"}
	for _, h := range yes {
		if !isInternalHost(h) {
			t.Errorf("isInternalHost(%q) = false, want true", h)
		}
	}
	for _, h := range no {
		if isInternalHost(h) {
			t.Errorf("isInternalHost(%q) = true, want false", h)
		}
	}
}

func TestURLHost(t *testing.T) {
	tests := []struct{ in, host, port string }{
		{"http://169.254.169.254/latest", "169.254.169.254", ""},
		{"https://user:pw@Example.COM:8443/x?y#z", "example.com", "8443"},
		{"http://[::ffff:a9fe:a9fe]:80/", "[::ffff:a9fe:a9fe]", "80"},
		{"http://evil.example\\@169.254.169.254/", "evil.example", ""},
		{"http://%31%36%39.254.169.254/", "169.254.169.254", ""},
		{"http://\uff11\uff16\uff19\u3002254.169.254/", "169.254.169.254", ""},
		{"//metadata.google.internal/x", "metadata.google.internal", ""},
		{"localhost:2375", "localhost", "2375"},
		{"example.com.", "example.com", ""},
		{"git@github.com:org/repo.git", "github.com", "org"},
	}
	for _, tt := range tests {
		h, p := urlHost(tt.in)
		if h != tt.host || p != tt.port {
			t.Errorf("urlHost(%q) = %q, %q; want %q, %q", tt.in, h, p, tt.host, tt.port)
		}
	}
}

func FuzzParseHostIP(f *testing.F) {
	for _, s := range []string{"169.254.169.254", "0xa9fea9fe", "::ffff:a9fe:a9fe", "1.2.3", "0251.0376.0251.0376"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := parseHostIP(s)
		if ok && !a.IsValid() {
			t.Fatalf("ok with invalid address for %q", s)
		}
		if ok && a.Is4() {
			// Round trip: the dotted form parses to the same address.
			b, ok2 := parseIPv4Legacy(a.String())
			if !ok2 || b != a {
				t.Fatalf("%q → %v does not round-trip", s, a)
			}
		}
		_ = isMetadataHost(s)
		_, _ = urlHost(s)
	})
}
