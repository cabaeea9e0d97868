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
		`find .git -type f -print0 | xargs -0 sed -i s/a/b/g`,
		`chgrp -R git .git`,
		`find . -name '*.tmp' -delete`,
		`find /var/log -iname '*.LOG' -exec gzip {} \;`,
		`find . -type f -name '*.java' -exec sh -c 'iconv -f cp1252 -t utf-8 "$1" > converted && mv converted "$1"' -- {} \;`,
		`find /volume1/uploads -name "*.mkv" -exec mv \{\} \{\}.avi \;`,
		`find . -type f -iname "*.txt" -print | xargs grep "needle"`,
		`find . -name '*.pyc' -print0 | xargs -0 rm -f`,
		`ls | xargs -I{} mv {} old_{}`,
		`grep -rl foo src | xargs sed -i s/foo/bar/`,
		`for f in *.txt; do mv "$f" "${f%.txt}.bak"; cat "$f"; done`,
		`for a in $(find . -name '*.py'); do cp "$a" "$a.cp"; done`,
		`grep HIGHMEM /boot/config-$(uname -r)`,
		`mkdir -p /tmp/backup_$(date +%F)`,
		`cp mymodule.ko /lib/modules/$(uname -r)/kernel/drivers/`,
		`chmod +x *.sh`,
		`find . -type f | while read f; do md5sum "$f"; done`,
		`cat /x/$(whoami)`,
		`touch /tmp/x.$$`,
		`echo $((1+2)) > /tmp/n$((3*4))`,
		`rm -rf /$(date +%s)`,
		`cat /a/$(expr 1 + 2)/b`,
	} {
		t.Logf("%s\n%s", cmd, Analyze(cmd, corpusOpt).String())
	}
}
