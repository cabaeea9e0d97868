package shell

import "strings"

// Containers and orchestration: docker/podman, compose, kubectl, helm.
// Container escapes are the run options that hand the host to the
// container (-v /:/host, --privileged, --pid=host, the docker socket).

// kbContainerTable builds the kbContainer table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbContainerTable() map[string]*Program {
	var (
		kDockerRunFlags = flags(
			shorts("ditP")+" --rm --detach --interactive --tty --init --read-only --publish-all --no-healthcheck"+
				" --sig-proxy --oom-kill-disable", fBool,
			"--env-file --label-file", fRead, "--cidfile", fWrite,
			"-e --env -p --publish --name -w --workdir -u --user --entrypoint --network --net"+
				" --cap-add --cap-drop --security-opt --pid --ipc --uts --userns --device --mount -v --volume"+
				" --volumes-from --tmpfs -l --label --restart --memory -m --cpus --gpus --platform"+
				" --hostname -h --add-host --dns --log-driver --log-opt --ulimit --shm-size --pull --cgroupns"+
				" --health-cmd --group-add --expose --link --runtime --sysctl --stop-signal", fVal,
			"--privileged", tagged(fBool, TagContainerEscape),
		)
		kDockerRun  = &Program{Flags: kDockerRunFlags, Network: true, Check: checkDockerRun}
		kDockerExec = &Program{Flags: flags("-d -i -t --privileged --detach --interactive --tty", fBool, "-e --env -u --user -w --workdir --index", fVal, "--env-file", fRead),
			OptionsFirst: true, Check: checkDockerExec} // the command after the container is the container's argv
		kDockerCp    = &Program{Flags: flags("-a --archive -L --follow-link -q --quiet", fBool), Check: checkDockerCp}
		kDockerBuild = &Program{Flags: flags("-q --no-cache --pull --rm --squash --load --push", fBool,
			"-t --tag --build-arg --target --platform --network --ssh --label --cache-from --progress", fVal,
			"-f --file --iidfile --output -o", fVal, "--secret", fVal), Args: []Role{RoleRead}, Network: true, Check: checkDockerBuild}
		kCompose = &Program{Flags: flags("--compatibility --dry-run", fBool, "-p --project-name --profile --env-file --project-directory", fVal, "-f --file", fRead),
			Network: true, SubDefault: &Program{Network: true}, Sub: map[string]*Program{
				"down": {Flags: flags("--remove-orphans", fBool, "-t --timeout --rmi", fVal, "-v --volumes", tagged(fBool, TagInfraTeardown))},
				"run":  {Flags: kDockerRunFlags, Check: checkDockerRun},
				"exec": kDockerExec,
				"cp":   kDockerCp,
			}}
		// --config, --kubeconfig and the TLS files name the tool's own
		// credentials, which it reads without the flag anyway (kubectl
		// get reads ~/.kube/config): plain values, so that spelling the
		// default out does not change the decision.
		kDocker = &Program{Flags: flags("-D --debug --tls --tlsverify", fBool,
			"-H --host -c --context -l --log-level --config --tlscacert --tlscert --tlskey", fVal),
			Network: true, SubDefault: &Program{Network: true}, Sub: map[string]*Program{
				"run": kDockerRun, "create": kDockerRun, "exec": kDockerExec,
				"build":   kDockerBuild,
				"buildx":  {Network: true, SubDefault: &Program{Network: true}, Sub: map[string]*Program{"build": kDockerBuild}},
				"builder": {Network: true, SubDefault: &Program{Network: true}, Sub: map[string]*Program{"build": kDockerBuild}},
				"image": {SubDefault: &Program{}, Sub: map[string]*Program{
					"build": kDockerBuild, "save": {Flags: flags("-o --output", fWrite)},
					"load": {Flags: flags("-i --input", fRead)}, "import": {Args: []Role{RoleRead}},
					"push": {Network: true, Upload: true}, "pull": {Network: true},
				}},
				"cp":     kDockerCp,
				"push":   {Network: true, Upload: true},
				"pull":   {Network: true},
				"login":  {Network: true, Flags: flags("--password-stdin", fBool, "-u --username -p --password", fVal)},
				"rm":     {Flags: flags("-f --force -v --volumes", fBool)},
				"rmi":    {Flags: flags("-f --force", fBool)},
				"system": {SubDefault: &Program{}, Sub: map[string]*Program{"prune": {Flags: flags("-f --force --volumes", fBool, "--filter", fVal, "-a --all", tagged(fBool, TagInfraTeardown)), Check: checkPruneVolumes}}},
				"volume": {SubDefault: &Program{}, Sub: map[string]*Program{"prune": {Tags: []TagKind{TagInfraTeardown}}, "rm": {Tags: []TagKind{TagInfraTeardown}}}},
				"container": {SubDefault: &Program{}, Sub: map[string]*Program{"run": kDockerRun, "create": kDockerRun, "exec": kDockerExec,
					"cp": kDockerCp, "export": {Flags: flags("-o --output", fWrite)}}},
				"save":    {Flags: flags("-o --output", fWrite)},
				"load":    {Flags: flags("-i --input", fRead)},
				"export":  {Flags: flags("-o --output", fWrite)},
				"import":  {Args: []Role{RoleRead}},
				"compose": kCompose,
				"swarm":   {Tags: []TagKind{TagSystemChange}},
				"plugin":  {SubDefault: &Program{}, Sub: map[string]*Program{"install": {Network: true, Tags: []TagKind{TagPackageInstall}}}},
			}}
		kKubectl = &Program{Flags: flags("--insecure-skip-tls-verify", fBool, "-n --namespace --context --cluster -s --server --token --user -l --selector -o --output"+
			" --kubeconfig --client-certificate --client-key --certificate-authority", fVal),
			Network: true, SubDefault: &Program{Network: true, Flags: flags("-A --all-namespaces", fBool, "-n --namespace --context -l --selector -o --output", fVal)},
			Sub: map[string]*Program{
				"delete":       {Flags: flags("--all -A --all-namespaces --force --now --wait --ignore-not-found", fBool, "-n --namespace --context -l --selector --grace-period -o", fVal, "-f --filename", fRead), Network: true, Check: checkKubectlDelete},
				"apply":        {Flags: flags("--prune --force --server-side --dry-run", fBool, "-n --namespace -l -o", fVal, "-f --filename -k --kustomize", fRead), Network: true, Upload: true},
				"create":       {Flags: flags("--dry-run", fBool, "-n --namespace -o", fVal, "-f --filename", fRead), Network: true, Upload: true},
				"replace":      {Flags: flags("--force", fBool, "-f --filename", fRead), Network: true, Upload: true},
				"exec":         {Flags: flags("-i -t --stdin --tty -q", fBool, "-n --namespace -c --container --context", fVal), Network: true, Check: checkKubectlExec},
				"run":          {Flags: flags("-i -t --rm --privileged --stdin --tty", fBool, "-n --namespace --image --overrides --env --port --restart", fVal), Network: true, Check: checkKubectlRun},
				"cp":           {Flags: flags("-n --namespace -c --container", fVal), Network: true, Upload: true, Check: checkDockerCp},
				"port-forward": {Network: true, Flags: flags("-n --namespace --address", fVal)},
				"drain":        {Network: true, Tags: []TagKind{TagInfraTeardown}},
				"cordon":       {Network: true, Tags: []TagKind{TagSystemChange}},
				"scale":        {Network: true, Flags: flags("--replicas -n --namespace", fVal), Check: checkKubectlScale},
				"get":          {Network: true, Flags: flags("-A --all-namespaces -w --watch", fBool, "-n --namespace -o --output -l --selector", fVal), Check: checkKubectlGetSecret},
				"debug":        {Network: true, Flags: flags("-i -t --stdin --tty", fBool, "--image -n --namespace --profile", fVal), Check: checkKubectlDebug},
			}}
		kTeardown = &Program{Network: true, Tags: []TagKind{TagInfraTeardown}}
		kHelm     = &Program{Flags: flags("--debug", fBool, "-n --namespace --kube-context --kubeconfig", fVal), Network: true,
			SubDefault: &Program{Network: true},
			Sub: map[string]*Program{
				"uninstall": kTeardown, "delete": kTeardown, "del": kTeardown,
				"install": {Network: true, Flags: flags("--wait --atomic --create-namespace --dry-run", fBool, "-n --namespace --version --set --set-string --repo", fVal, "-f --values", fRead), Rest: RoleOperand},
				"upgrade": {Network: true, Flags: flags("-i --install --wait --atomic --dry-run", fBool, "-n --namespace --version --set --repo", fVal, "-f --values", fRead), Rest: RoleOperand},
				"repo":    {Network: true, SubDefault: &Program{Network: true}, Sub: map[string]*Program{"add": {Network: true, Tags: []TagKind{TagPackageSource}}}},
				"plugin":  {Network: true, SubDefault: &Program{}, Sub: map[string]*Program{"install": {Network: true, Tags: []TagKind{TagPackageInstall, TagPackageSource}}}},
			}}
	)

	var kbContainer = map[string]*Program{
		"docker": kDocker, "podman": kDocker, "nerdctl": kDocker,
		"docker-compose": kCompose, "podman-compose": kCompose,
		"kubectl": kKubectl, "oc": kKubectl,
		"k3s":       {SubDefault: &Program{Tags: []TagKind{TagSystemChange}}, Sub: map[string]*Program{"kubectl": kKubectl}},
		"microk8s":  {SubDefault: &Program{}, Sub: map[string]*Program{"kubectl": kKubectl}},
		"minikube":  {Network: true, SubDefault: &Program{Network: true}, Sub: map[string]*Program{"delete": kTeardown}},
		"kind":      {SubDefault: &Program{}, Sub: map[string]*Program{"delete": kTeardown}},
		"helm":      kHelm,
		"k9s":       {Network: true},
		"kustomize": {Rest: RoleRead},
		"skaffold":  {Network: true, SubDefault: &Program{Network: true}, Sub: map[string]*Program{"delete": kTeardown}},
		"crictl":    {SubDefault: &Program{}, Sub: map[string]*Program{"exec": kDockerExec}},
		"ctr":       {Network: true},
		"lxc":       {SubDefault: &Program{}, Sub: map[string]*Program{"exec": kDockerExec, "delete": kTeardown}},
		"vagrant":   {SubDefault: &Program{}, Sub: map[string]*Program{"destroy": kTeardown, "ssh": {Flags: flags("-c --command", fShell), Tags: []TagKind{TagRemoteExec}}}},
		"virsh":     {SubDefault: &Program{}, Sub: map[string]*Program{"destroy": kTeardown, "undefine": kTeardown}},
		"nsenter": {Flags: flags(shorts("amunipUCrwFZ")+" --mount --uts --ipc --net --pid --user --cgroup --all --preserve-credentials", fBool,
			"-t --target -S --setuid -G --setgid -R --root -w --wd", fVal), Args: []Role{RoleCommand}, Tags: []TagKind{TagPrivilege}, Check: checkNsenter},
		"unshare": {Flags: flags(shorts("mUinpuCTfr")+" --mount --uts --ipc --net --pid --user --cgroup --fork --map-root-user --mount-proc", fBool,
			"--propagation --setgroups -R --root -w --wd -S --setuid -G --setgid", fVal), Args: []Role{RoleCommand}, Check: checkUnshare},
		"chroot":         {Flags: flags("--skip-chdir", fBool, "--userspec --groups", fVal), Args: []Role{RoleRead, RoleCommand}, Tags: []TagKind{TagPrivilege}},
		"systemd-nspawn": {Flags: flags("-b --boot -q", fBool, "-D --directory -M --machine", fVal), Args: []Role{RoleCommand}, Tags: []TagKind{TagPrivilege}},
	}
	return kbContainer
}

// hostMounts are host paths whose mount into a container hands over the host.
var hostMounts = map[string]bool{"/": true, "/etc": true, "/root": true, "/var/run/docker.sock": true, "/run/docker.sock": true,
	"/var/run": true, "/run": true, "/proc": true, "/sys": true, "/dev": true, "/boot": true, "/home": true,
	"/var/lib/docker": true, "/usr": true, "/bin": true, "/sbin": true, "/lib": true, "/var": true,
	"/run/containerd/containerd.sock": true, "/var/run/containerd/containerd.sock": true}

// checkDockerRun tags the run options that escape the container.
func checkDockerRun(c *Call) {
	for i := 0; i < len(c.Args); i++ {
		v := c.Args[i].Value
		var val Word
		if k, rest, ok := strings.Cut(v, "="); ok && strings.HasPrefix(k, "--") {
			v, val = k, Word{Value: rest, Known: c.Args[i].Known}
		} else if i+1 < len(c.Args) {
			val = c.Args[i+1]
		}
		switch v {
		case "-v", "--volume", "--mount":
			src := val.Value
			if v == "--mount" {
				src = mountSource(val.Value)
			} else if j := strings.IndexByte(src, ':'); j >= 0 {
				src = src[:j]
			}
			dockerMount(c, src, val.Known)
		case "--pid", "--ipc", "--uts", "--userns", "--cgroupns":
			if val.Value == "host" {
				c.Tag(TagContainerEscape, "docker "+v+"=host")
			}
		case "--net", "--network":
			if val.Value == "host" && hasCapAdmin(c) {
				c.Tag(TagContainerEscape, "docker --net=host --cap-add")
			}
		case "--cap-add":
			switch strings.TrimPrefix(strings.ToUpper(val.Value), "CAP_") {
			case "SYS_ADMIN", "ALL", "SYS_PTRACE", "SYS_MODULE", "DAC_READ_SEARCH", "SYS_RAWIO":
				c.Tag(TagContainerEscape, "docker --cap-add "+val.Value)
			}
		case "--security-opt":
			if strings.Contains(val.Value, "unconfined") || strings.Contains(val.Value, "disable") {
				c.Tag(TagContainerEscape, "docker --security-opt "+val.Value)
			}
		case "--device":
			c.Tag(TagContainerEscape, "docker --device "+val.Value)
		}
	}
}

// mountSource extracts source= from a --mount specification.
func mountSource(spec string) string {
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		if k == "source" || k == "src" {
			return v
		}
	}
	return ""
}

// dockerMount judges one bind-mount source.
func dockerMount(c *Call, src string, known bool) {
	if src == "" || !strings.HasPrefix(src, "/") && !strings.HasPrefix(src, "~") && !strings.HasPrefix(src, ".") {
		if known {
			return // a named volume
		}
	}
	w := Word{Value: src, Known: known}
	c.Use(w, accRW)
	p, ok := c.Abs(w)
	if !ok {
		return
	}
	clean := strings.TrimSuffix(p, "/")
	if clean == "" {
		clean = "/"
	}
	if hostMounts[clean] || clean == c.Home || strings.HasPrefix(clean, "/etc/") || strings.HasSuffix(clean, ".sock") {
		c.Tag(TagContainerEscape, "docker -v "+p)
	}
}

// hasCapAdmin reports whether --cap-add SYS_ADMIN/ALL was given.
func hasCapAdmin(c *Call) bool {
	for i, w := range c.Args {
		v := strings.ToUpper(w.Value)
		switch {
		case strings.HasPrefix(v, "--CAP-ADD="):
			v = v[len("--CAP-ADD="):]
		case v == "--CAP-ADD" && i+1 < len(c.Args):
			v = strings.ToUpper(c.Args[i+1].Value)
		default:
			continue
		}
		if strings.Contains(v, "SYS_ADMIN") || v == "ALL" {
			return true
		}
	}
	return false
}

// checkDockerExec: the command runs inside the container.
func checkDockerExec(c *Call) {
	if len(c.Positional) > 1 {
		c.Tag(TagRemoteExec, c.Name+" exec")
	}
}

// checkDockerCp: "docker cp SRC DST", one side is "container:path".
//
// Every host-side operand but the last is a source (read); the last, when
// there are several, is the destination (written). Operands are judged
// whatever their number: a malformed command is not taken as harmless.
func checkDockerCp(c *Call) { cpOperands(c, c.Positional) }

// cpOperands judges the operands of a copy between this machine and
// another ("ctr:/p", "vm:/p"): see checkDockerCp.
func cpOperands(c *Call, p []Word) {
	for i, w := range p {
		if containerRef(w) {
			continue
		}
		if i == len(p)-1 && i > 0 {
			c.Use(w, accW)
		} else {
			c.Use(w, accR)
		}
	}
}

// containerRef reports whether a cp operand names a path in a container
// or pod ("ctr:/p", "ns/pod:/p"). As for docker, a path starting with
// "/", "." or "~" is local even with a colon in it.
func containerRef(w Word) bool {
	v := w.Value
	if !w.Known {
		v = w.pattern()
	}
	if v == "" || strings.ContainsRune("/.~", rune(v[0])) {
		return false
	}
	i := strings.IndexByte(v, ':')
	return i > 0 && !strings.ContainsAny(v[:i], "*?[")
}

// checkDockerBuild: the Dockerfile (-f) is read, unless "-" (stdin);
// --secret src=PATH and --iidfile/--output dest=PATH name host files.
func checkDockerBuild(c *Call) {
	if w, ok := c.Flag("-f", "--file"); ok {
		c.Use(w, accR)
	}
	if w, ok := c.Flag("--iidfile"); ok {
		c.Use(w, accW)
	}
	for _, name := range [...]string{"--secret", "-o", "--output"} {
		w, ok := c.Flag(name)
		if !ok {
			continue
		}
		for _, kv := range strings.Split(w.Value, ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch {
			case k == "src" || k == "source":
				c.Use(Word{Value: v, Known: w.Known}, accR)
			case k == "dest" || k == "output" && name != "--secret":
				c.Use(Word{Value: v, Known: w.Known}, accW)
			case !strings.Contains(kv, "="):
				if name != "--secret" {
					c.Use(Word{Value: kv, Known: w.Known}, accW) // "-o ./out"
				}
			}
		}
	}
}

// checkPruneVolumes: docker system prune --volumes deletes data.
func checkPruneVolumes(c *Call) {
	if _, ok := c.Flag("--volumes"); ok {
		c.Tag(TagInfraTeardown, "docker system prune --volumes")
	}
}

// kubeBroad are resource kinds whose deletion tears infrastructure down.
var kubeBroad = map[string]bool{
	"namespace": true, "namespaces": true, "ns": true, "node": true, "nodes": true, "no": true,
	"pv": true, "persistentvolume": true, "persistentvolumes": true, "pvc": true,
	"persistentvolumeclaim": true, "persistentvolumeclaims": true, "all": true,
	"crd": true, "crds": true, "customresourcedefinition": true, "customresourcedefinitions": true,
	"statefulset": true, "statefulsets": true, "sts": true, "deployment": true, "deployments": true, "deploy": true,
	"clusterrole": true, "clusterrolebinding": true, "storageclass": true, "sc": true,
}

// checkKubectlDelete tags deletion of namespaces, nodes, volumes, all.
func checkKubectlDelete(c *Call) {
	if _, ok := c.Flag("--all", "-A", "--all-namespaces"); ok {
		c.Tag(TagInfraTeardown, "kubectl delete --all")
		return
	}
	if w, ok := pos(c, 0); ok {
		kind, _, _ := strings.Cut(strings.ToLower(w.Value), "/")
		for _, k := range strings.Split(kind, ",") {
			if kubeBroad[k] {
				c.Tag(TagInfraTeardown, "kubectl delete "+k)
				return
			}
		}
	}
	if _, ok := c.Flag("-f", "--filename"); ok {
		c.Tag(TagInfraTeardown, "kubectl delete -f")
	}
}

// checkKubectlExec: the command after the pod runs in it.
func checkKubectlExec(c *Call) {
	if len(c.Positional) > 1 {
		c.Tag(TagRemoteExec, "kubectl exec")
	}
}

// checkKubectlRun: privileged pods and host namespaces via --overrides.
func checkKubectlRun(c *Call) {
	if _, ok := c.Flag("--privileged"); ok {
		c.Tag(TagContainerEscape, "kubectl run --privileged")
	}
	if w, ok := c.Flag("--overrides"); ok && (strings.Contains(w.Value, "hostPID") || strings.Contains(w.Value, "privileged") ||
		strings.Contains(w.Value, "hostPath") || strings.Contains(w.Value, "hostNetwork")) {
		c.Tag(TagContainerEscape, "kubectl run --overrides")
	}
}

// checkKubectlScale: scaling to zero takes a service down.
func checkKubectlScale(c *Call) {
	if flagValIs(c, []string{"--replicas"}, "0") {
		c.Tag(TagInfraTeardown, "kubectl scale --replicas=0")
	}
}

// checkKubectlGetSecret: reading secrets out of the cluster.
func checkKubectlGetSecret(c *Call) {
	if w, ok := pos(c, 0); ok && strings.HasPrefix(strings.ToLower(w.Value), "secret") {
		if _, o := c.Flag("-o", "--output"); o {
			c.Tag(TagCredentialSearch, "kubectl get secret -o")
		}
	}
}

// checkKubectlDebug: node debugging mounts the host.
func checkKubectlDebug(c *Call) {
	if w, ok := pos(c, 0); ok && strings.HasPrefix(w.Value, "node/") {
		c.Tag(TagContainerEscape, "kubectl debug node")
	}
}

// checkNsenter: entering PID 1's namespaces is entering the host.
func checkNsenter(c *Call) {
	if flagValIs(c, []string{"-t", "--target"}, "1") {
		c.Tag(TagContainerEscape, "nsenter -t 1")
	}
}

// checkUnshare: -r maps the caller to root in a new user namespace.
func checkUnshare(c *Call) {
	if _, ok := c.Flag("-r", "--map-root-user"); ok {
		c.Tag(TagPrivilege, "unshare -r")
	}
}
