package shell

import "testing"

// TestKBQueries checks the two questions other packages may ask the
// knowledge base (its entries never leave the package).
func TestKBQueries(t *testing.T) {
	cases := []struct {
		name      string
		args      []string
		networked bool
		lang      string
		known     bool
	}{
		{"curl", nil, true, "", true},
		{"ls", []string{"-la"}, false, "", true},
		{"python3", []string{"-c", "print(1)"}, false, "python", true},
		{"bash", nil, false, "sh", true},
		{"git", []string{"push", "origin"}, true, "", true},
		{"git", []string{"status"}, false, "", true},
		{"surely-not-a-program", []string{"push"}, false, "", false},
		{"", nil, false, "", false},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if got := Networked(tt.name, tt.args); got != tt.networked {
				t.Errorf("Networked(%q, %q) = %v, want %v", tt.name, tt.args, got, tt.networked)
			}
			lang, known := ProgramLang(tt.name)
			if lang != tt.lang || known != tt.known {
				t.Errorf("ProgramLang(%q) = %q, %v, want %q, %v", tt.name, lang, known, tt.lang, tt.known)
			}
		})
	}
	// Every entry answers as the table says.
	for name, p := range programs() {
		if lang, known := ProgramLang(name); !known || lang != p.Lang {
			t.Errorf("ProgramLang(%q) = %q, %v, want %q, true", name, lang, known, p.Lang)
		}
		if got := Networked(name, nil); got != p.Network {
			t.Errorf("Networked(%q, nil) = %v, want %v", name, got, p.Network)
		}
	}
}
