package shell

import (
	"os"
	"testing"
)

func TestScratch(t *testing.T) {
	if os.Getenv("PX_SCRATCH") == "" {
		t.Skip()
	}
	for _, cmd := range []string{
		`ls | xargs rm -f /etc/passwd`,
		`ls | xargs grep -l -e foo /etc/shadow`,
		`ls | xargs -0 ls -la /root`,
		`ls | xargs -n 1 cp -t /etc`,
		`ls | xargs --max-args=1 -P2 sh -c 'cat /etc/shadow'`,
	} {
		t.Logf("%s\n%s", cmd, Analyze(cmd, corpusOpt).String())
	}
}
