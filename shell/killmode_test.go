package shell

import (
	"slices"
	"testing"
)

func TestKillTargets(t *testing.T) {
	opt := Options{Cwd: "/home/dev/project", Home: "/home/dev"}
	cases := []struct {
		cmd     string
		daemons []string // daemons among the targets, in order
		pid1    bool
	}{
		{cmd: `kill -9 1`, pid1: true},
		{cmd: `kill -s KILL 1`, pid1: true},
		{cmd: `kill $(pidof sshd)`, daemons: []string{"sshd"}},
		{cmd: `pgrep -f cron | xargs kill -9`, daemons: []string{"cron"}},
		{cmd: `for p in $(ps aux | grep [s]shd | awk '{print $2}'); do kill $p; done`, daemons: []string{"sshd"}},
		{cmd: `kill -9 $(cat /var/run/sshd.pid)`, daemons: []string{"sshd", "sshd"}},
		{cmd: `xargs kill < /run/crond.pid`, daemons: []string{"crond"}},
		{cmd: `killall -KILL Xorg`, daemons: []string{"xorg"}},
		{cmd: `pkill -f "postgres: checkpointer"`, daemons: []string{"postgres"}},
		{cmd: `systemctl stop sshd.service`, daemons: []string{"sshd"}},
		{cmd: `systemctl disable --now cron`, daemons: []string{"cron"}},
		{cmd: `service ssh stop`, daemons: []string{"ssh"}},
		// not kills of daemons
		{cmd: `kill -0 $(pidof sshd)`},
		{cmd: `kill -s 0 1`},
		{cmd: `pgrep sshd`},
		{cmd: `ps aux | grep [s]shd`},
		{cmd: `pkill ssh`},
		{cmd: `pkill -f "node server.js"`},
		{cmd: `kill $(cat server.pid)`},
		{cmd: `systemctl status sshd`},
		{cmd: `systemctl restart postgresql`},
		{cmd: `service ssh status`},
		{cmd: `kill %1`},
		{cmd: `cat notes/redis.txt; kill %1`},
		// a lookup feeds only a kill whose operand is not spelled out
		{cmd: `grep -rn redis src; kill %1`},
		{cmd: `pgrep -f cron; kill 4242`},
		// $! is a job this shell started: the lookup beside it feeds nothing
		{cmd: `ps aux | grep [s]shd; kill $!`},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			var daemons []string
			pid1 := false
			for _, k := range Analyze(c.cmd, opt).KillTargets() {
				pid1 = pid1 || k.PID == "1"
				if d, ok := SystemDaemon(k.Name, k.Unit); ok {
					daemons = append(daemons, d)
				}
			}
			if !slices.Equal(daemons, c.daemons) || pid1 != c.pid1 {
				t.Errorf("daemons %q pid1 %v, want %q %v", daemons, pid1, c.daemons, c.pid1)
			}
		})
	}
}

func TestOthersWrite(t *testing.T) {
	cases := []struct {
		mode string
		want bool
	}{
		{"777", true}, {"0777", true}, {"1777", true}, {"666", true}, {"772", true}, {"o+w", true},
		{"a+w", true}, {"a+rwx", true}, {"ugo+rwx", true}, {"u+x,o+w", true}, {"a=rwx,o+t", true},
		{"o=rw", true},
		{"755", false}, {"775", false}, {"644", false}, {"4755", false}, {"+x", false}, {"+w", false},
		{"=rw", false}, {"g+w", false}, {"u+rw", false}, {"go-w", false}, {"o-w", false},
		{"u=rwx,g=rx,o=", false}, {"o+r", false}, {"", false},
	}
	for _, c := range cases {
		if got := OthersWrite(c.mode); got != c.want {
			t.Errorf("OthersWrite(%q) = %v, want %v", c.mode, got, c.want)
		}
	}
}

func TestModeChanges(t *testing.T) {
	opt := Options{Cwd: "/home/dev/project", Home: "/home/dev"}
	cases := []struct {
		cmd  string
		want []string // "prog mode" of the world-writable changes
	}{
		{cmd: `chmod -R 777 .`, want: []string{"chmod 777"}},
		{cmd: `chmod o+w ~/bin`, want: []string{"chmod o+w"}},
		{cmd: `find . -type d -exec chmod 777 {} \;`, want: []string{"chmod 777"}},
		{cmd: `mkdir -p -m 777 d`, want: []string{"mkdir 777"}},
		{cmd: `install -d --mode=0777 d`, want: []string{"install 0777"}},
		{cmd: `setfacl -m o::rwx ~/bin`, want: []string{"setfacl o::rwx"}},
		{cmd: `umask 000`, want: []string{"umask 000"}},
		{cmd: `umask 0`, want: []string{"umask 0"}},
		{cmd: `umask 0002`},
		{cmd: `chmod +x script.sh`},
		{cmd: `chmod -R go-w .`},
		{cmd: `mkdir -m 755 out`},
		{cmd: `mkdir -p out`},
		{cmd: `umask 022`},
		{cmd: `umask`},
		{cmd: `setfacl -m u:alice:rwx shared`},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			var got []string
			for _, m := range Analyze(c.cmd, opt).ModeChanges() {
				if m.WorldWritable {
					got = append(got, m.Program+" "+m.Mode)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestSignalTargetsByDataflow: a kill reaches the command's own process
// only when its operand's value is $! (directly or carried through
// variables, function arguments and loops) or a job spec; every other
// unresolved value is a process the command did not start, whatever the
// names and the shape around it.
func TestSignalTargetsByDataflow(t *testing.T) {
	opt := Options{Cwd: "/home/dev/project", Home: "/home/dev"}
	cases := []struct {
		cmd  string
		want []SignalTarget
	}{
		// own jobs
		{`sleep 5 & kill $!`, []SignalTarget{SignalOwn}},
		{`sleep 5 & pid=$!; sleep 1; kill "$pid"`, []SignalTarget{SignalOwn}},
		{`./server & srv_pid=$!; stop() { kill -TERM "$1"; }; stop $srv_pid`, []SignalTarget{SignalOwn}},
		{`sleep 9 & kill -- -$!`, []SignalTarget{SignalOwn}},
		{`sleep 9 & kill %1`, []SignalTarget{SignalOwn}},
		{`trap 'kill $!' EXIT; ./server &`, []SignalTarget{SignalOwn}},
		{`if true; then sleep 5 & p=$!; else sleep 6 & p=$!; fi; kill $p`, []SignalTarget{SignalOwn}},
		// nothing is sent
		{`kill -0 $pid`, nil},
		{`kill -l`, nil},
		{`killall -l`, nil},
		{`timeout -s KILL 5 make test`, nil},
		{`ps aux | grep node`, nil},
		// not started by the command
		{`kill $pid`, []SignalTarget{SignalLookup}},
		{`sleep 5 & pid=$(pgrep -n sleep); kill $pid`, []SignalTarget{SignalLookup}},
		{`sleep 5 & p=$!; p=$(cat app.pid); kill $p`, []SignalTarget{SignalLookup}},
		{`kill $(lsof -t -i:3000)`, []SignalTarget{SignalLookup}},
		{"kill `cat /run/app.pid`", []SignalTarget{SignalLookup}},
		{`ps aux | grep myapp | awk '{print $2}' | xargs kill`, []SignalTarget{SignalLookup}},
		{`ps aux | grep myapp | awk '{print $2}' | xargs -I{} kill -9 {}`, []SignalTarget{SignalLookup}},
		{`ps -eo pid=,comm= | while read zz yy; do kill $zz; done`, []SignalTarget{SignalLookup}},
		{`ps aux | awk '/myapp/ {system("kill " $2)}'`, []SignalTarget{SignalLookup}},
		{`sh -c 'kill $(pidof myapp)'`, []SignalTarget{SignalLookup}},
		{`eval 'kill $(pgrep myapp)'`, []SignalTarget{SignalLookup}},
		{`fuser -k 8080/tcp`, []SignalTarget{SignalLookup}},
		{`kill 4242`, []SignalTarget{SignalPID}},
		{`pkill -f "node server.js"`, []SignalTarget{SignalName}},
		// everything
		{`kill -9 -1`, []SignalTarget{SignalAll}},
		{`kill -- -1`, []SignalTarget{SignalAll}},
		{`killall5 -9`, []SignalTarget{SignalAll}},
		{`pkill -u dev`, []SignalTarget{SignalAll}},
		{`pkill -9 .`, []SignalTarget{SignalAll}},
		// services
		{`systemctl stop nginx`, []SignalTarget{SignalUnit}},
		{`systemctl disable --now cron`, []SignalTarget{SignalUnit}},
		{`systemctl disable cron`, nil},
		{`service cron stop`, []SignalTarget{SignalUnit}},
		{`/etc/init.d/rsyslog stop`, []SignalTarget{SignalUnit}},
		{`systemctl status nginx`, nil},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			var got []SignalTarget
			for _, s := range Analyze(c.cmd, opt).Signals {
				if !slices.Contains(got, s.Target) {
					got = append(got, s.Target)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestKillTargetsFollowFilters: the names a kill of listed PIDs reaches
// are those its filters compare with, in any construct (awk, [ ], case,
// [[ ]], a function's arguments), and a listing nothing filters reaches
// every process.
func TestKillTargetsFollowFilters(t *testing.T) {
	opt := Options{Cwd: "/home/dev/project", Home: "/home/dev"}
	cases := []struct {
		cmd        string
		daemon     string
		unfiltered bool
	}{
		{cmd: `zap() { for n in "$@"; do for q in $(ps -eo pid=,comm= | awk -v n="$n" '$2==n{print $1}'); do kill -9 "$q"; done; done; }; zap rsyslogd cron`, daemon: "rsyslogd"},
		{cmd: `ps -eo pid=,comm= | while read a b; do case $b in cron|auditd) kill $a;; esac; done`, daemon: "cron"},
		{cmd: `ps -eo pid=,comm= | while read a b; do [[ $b == sshd ]] && kill $a; done`, daemon: "sshd"},
		{cmd: `ps -eo pid=,comm= | while read a b; do [ "$b" = falco ] && kill $a; done`, daemon: "falco"},
		{cmd: `for s in auditd cron; do kill $(pgrep -x $s); done`, daemon: "auditd"},
		{cmd: `ps -eo pid= | xargs kill -9`, unfiltered: true},
		{cmd: `kill $(ps -e -o pid=)`, unfiltered: true},
		{cmd: `ps aux | awk '{print $2}' | xargs kill`, unfiltered: true},
		{cmd: `ps aux | grep myapp | awk '{print $2}' | xargs kill`},
		{cmd: `kill $(lsof -t -i:3000)`},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			fx := Analyze(c.cmd, opt)
			daemon := ""
			for _, k := range fx.KillTargets() {
				if d, ok := SystemDaemon(k.Name, k.Unit); ok && daemon == "" {
					daemon = d
				}
			}
			if daemon != c.daemon || fx.UnfilteredKill() != c.unfiltered {
				t.Errorf("daemon %q unfiltered %v, want %q %v", daemon, fx.UnfilteredKill(), c.daemon, c.unfiltered)
			}
		})
	}
}
