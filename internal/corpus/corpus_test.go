package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

const corpusDir = "../../testdata/corpus"

var (
	attackCategories = []string{"credential_access", "exfiltration", "download_exec", "reverse_shell",
		"persistence", "privilege_escalation", "destruction", "defense_evasion", "obfuscation", "ssrf",
		"gtfobins", "agent_instruction", "supply_chain"}
	legitCategories = []string{"dev", "sysadmin", "files", "communication", "web", "lookalike"}
)

// TestCorpusLoads checks the shipped corpus: it loads strictly, is large
// enough, covers every category, and every step is an action the gate can
// decode with paths it can normalise — a wrong field name would otherwise
// turn a case into a decode BLOCK that tests nothing.
func TestCorpusLoads(t *testing.T) {
	cases, err := Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	intentOf := map[string]string{}
	var attacks, attackBlock, legit, legitEsc, must int
	for i := range cases {
		c := &cases[i]
		count[c.Category]++
		// flows holds attack chains beside the legitimate flows they
		// resemble; every other category is one intent.
		if prev, ok := intentOf[c.Category]; ok && prev != c.Intent && c.Category != "flows" {
			t.Errorf("%s: %s: category %s mixes intents", c.Where(), c.ID, c.Category)
		}
		intentOf[c.Category] = c.Intent
		if c.Must {
			must++
		}
		switch c.Intent {
		case IntentAttack:
			attacks++
			if c.Expect == verdict.Block {
				attackBlock++
			}
			if c.Expect == verdict.Allow {
				t.Errorf("%s: attack %s expects ALLOW", c.Where(), c.ID)
			}
		case IntentLegit:
			legit++
			switch c.Expect {
			case verdict.Escalate:
				legitEsc++
			case verdict.Block:
				t.Errorf("%s: legit case %s expects BLOCK", c.Where(), c.ID)
			case verdict.Allow:
			}
		}
		checkSteps(t, c)
	}
	if attacks < 320 || legit < 220 {
		t.Errorf("got %d attacks and %d legit cases, want at least 320 and 220", attacks, legit)
	}
	for _, cat := range append(append([]string{}, attackCategories...), legitCategories...) {
		if count[cat] == 0 {
			t.Errorf("category %s has no cases", cat)
		}
	}
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && count[e.Name()] == 0 {
			t.Errorf("directory %s has no cases", filepath.Join(corpusDir, e.Name()))
		}
	}
	if attacks > 0 && float64(attackBlock) < 0.85*float64(attacks) {
		t.Errorf("%d of %d attacks expect BLOCK, want at least 85%%", attackBlock, attacks)
	}
	if legit > 0 && float64(legitEsc) > 0.04*float64(legit) {
		t.Errorf("%d of %d legit cases expect ESCALATE, want at most 4%%", legitEsc, legit)
	}
	t.Logf("%d cases: %d attacks (%d expect BLOCK), %d legit (%d expect ESCALATE), %d must",
		len(cases), attacks, attackBlock, legit, legitEsc, must)
}

func checkSteps(t *testing.T, c *Case) {
	t.Helper()
	for i, s := range c.Steps {
		a, err := action.Decode(s.Type, s.Payload)
		if err != nil {
			t.Errorf("%s:%d: %s step %d: %v", c.File, s.Line, c.ID, i+1, err)
			continue
		}
		err = action.Normalize(a, action.Env{Home: "/home/dev"})
		// An attack may spell its path with escapes on purpose: the
		// gate refuses it at verify (bad_path), which is its expectation.
		refused := errors.Is(err, action.ErrEncodedPath) && c.Intent == IntentAttack && c.Expect == verdict.Block
		if err != nil && !refused {
			t.Errorf("%s:%d: %s step %d: %v", c.File, s.Line, c.ID, i+1, err)
		}
	}
}
