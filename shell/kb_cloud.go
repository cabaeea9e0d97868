package shell

import "strings"

// Infrastructure and cloud CLIs: teardown is TagInfraTeardown; the rest
// is network traffic to the provider.

// kbCloudTable builds the kbCloud table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbCloudTable() map[string]*Program {
	var (
		kTfFlags = flags("-auto-approve -no-color -refresh-only -json -compact-warnings -upgrade -reconfigure -migrate-state", fBool,
			"-var -target -parallelism -lock-timeout -replace -backend-config", fVal, "-var-file -state", fRead, "-out -state-out", fWrite, "-chdir", fDir)
		kTerraform = &Program{Flags: kTfFlags, Network: true, SubDefault: &Program{Flags: kTfFlags, Network: true},
			Sub: map[string]*Program{
				"destroy": {Flags: kTfFlags, Network: true, Tags: []TagKind{TagInfraTeardown}},
				"apply":   {Flags: with(kTfFlags, "-destroy", tagged(fBool, TagInfraTeardown)), Network: true, Args: []Role{RoleRead}},
				"plan":    {Flags: with(kTfFlags, "-destroy", fBool), Network: true},
				"state":   {Flags: kTfFlags, Network: true, Check: checkTfState},
				"taint":   {Flags: kTfFlags, Network: true},
			}}
	)

	var kTeardownNet = &Program{Network: true, Tags: []TagKind{TagInfraTeardown}}

	var kbCloud = map[string]*Program{
		"terraform": kTerraform, "tofu": kTerraform, "terragrunt": kTerraform,
		"pulumi": {Network: true, SubDefault: &Program{Network: true}, Sub: map[string]*Program{
			"destroy": {Network: true, Tags: []TagKind{TagInfraTeardown}},
			"stack":   {Network: true, Check: checkPulumiStack},
		}},
		"aws":      {Flags: flags("--debug --no-verify-ssl --no-paginate --no-cli-pager", fBool, "--region --profile --output --endpoint-url --query", fVal), Network: true, Upload: true, Check: checkAWS},
		"gcloud":   {Flags: flags("-q --quiet", fBool, "--project --region --zone --format --account --configuration", fVal), Network: true, Check: checkGcloud},
		"gsutil":   {Flags: flags("-m -q", fBool, "-o -h", fVal), Network: true, Upload: true, Check: checkGsutil},
		"az":       {Rest: RoleOperand, Flags: flags("-y --yes --no-wait --debug --only-show-errors", fBool, "-g --resource-group -n --name --subscription -o --output --query", fVal), Network: true, Check: checkCloudDelete},
		"doctl":    {Rest: RoleOperand, Network: true, Check: checkCloudDelete},
		"heroku":   {Rest: RoleOperand, Network: true, Check: checkCloudDelete},
		"flyctl":   {Rest: RoleOperand, Network: true, Check: checkCloudDelete},
		"fly":      {Rest: RoleOperand, Network: true, Check: checkCloudDelete},
		"vercel":   {Rest: RoleOperand, Network: true, Upload: true, Check: checkCloudDelete},
		"netlify":  {Rest: RoleOperand, Network: true, Upload: true},
		"firebase": {Rest: RoleOperand, Network: true, Upload: true},
		"wrangler": {Rest: RoleOperand, Network: true, Upload: true},
		"eksctl":   {Rest: RoleOperand, Network: true, Check: checkCloudDelete},
		"s3cmd":    {Rest: RoleOperand, Network: true, Upload: true, Check: checkS3cmd},
		"rclone":   {Rest: RoleOperand, Network: true, Upload: true, Check: checkRclone},
		"ansible": {Flags: flags("-b --become -K --ask-become-pass -k -v -vv -vvv --check -C", fBool,
			"-i --inventory -u --user -e --extra-vars -f --forks -l --limit --become-user -c --connection -M", fVal,
			"-m --module-name -a --args", fVal), Network: true, Check: checkAnsible},
		"ansible-playbook": {Flags: flags("-b --become -K -k -v -vv -vvv --check -C --diff", fBool,
			"-i --inventory -u --user -e --extra-vars -f --forks -l --limit -t --tags --become-user -c --connection --vault-password-file", fVal),
			Rest: RoleRead, Network: true, Tags: []TagKind{TagRemoteExec}},
		"ansible-galaxy": {Network: true, SubDefault: &Program{Network: true, Tags: []TagKind{TagPackageInstall}}},
		"salt":           {Network: true, Tags: []TagKind{TagRemoteExec}},
		"gh": {Flags: flags("-R --repo", fVal), Network: true, SubDefault: &Program{Network: true}, Sub: map[string]*Program{
			"gist":      {Network: true, Upload: true, Sub: map[string]*Program{"create": {Network: true, Upload: true, Flags: flags("-p --public -w --web", fBool, "-d --desc -f --filename", fVal), Rest: RoleRead}}, SubDefault: &Program{Network: true}},
			"auth":      {Network: true, Sub: map[string]*Program{"token": {Tags: []TagKind{TagCredentialSearch}}}, SubDefault: &Program{Network: true}},
			"repo":      {Network: true, Sub: map[string]*Program{"delete": kTeardownNet, "clone": {Network: true, Args: []Role{RoleNone, RoleWrite}}, "archive": kTeardownNet}, SubDefault: &Program{Network: true}},
			"secret":    {Network: true, Upload: true},
			"api":       {Network: true, Upload: true, Flags: flags("-X --method -H --header -f --raw-field -F --field -q --jq", fVal, "--input", fRead), Check: checkGhAPI},
			"release":   {Network: true, Sub: map[string]*Program{"delete": kTeardownNet, "upload": {Network: true, Upload: true, Rest: RoleRead}}, SubDefault: &Program{Network: true}},
			"ssh-key":   {Network: true, Sub: map[string]*Program{"add": {Network: true, Upload: true, Args: []Role{RoleRead}, Tags: []TagKind{TagPersistence}}}, SubDefault: &Program{Network: true}},
			"extension": {Network: true, Sub: map[string]*Program{"install": {Network: true, Tags: []TagKind{TagPackageInstall, TagPackageSource}}}, SubDefault: &Program{Network: true}},
		}},
		"glab": {Network: true},
		"hub":  {Network: true},
	}
	return kbCloud
}

// checkTfState: "terraform state rm" forgets resources.
func checkTfState(c *Call) {
	if posIs(c, 0, "rm", "replace-provider", "push") {
		c.Tag(TagInfraTeardown, "terraform state "+c.Positional[0].Value)
	}
}

// checkPulumiStack: "pulumi stack rm".
func checkPulumiStack(c *Call) {
	if posIs(c, 0, "rm") {
		c.Tag(TagInfraTeardown, "pulumi stack rm")
	}
}

// awsTeardown are aws operations (service, verb prefix) that destroy.
var awsDestroyVerbs = []string{"delete-", "terminate-", "deregister-", "remove-", "purge-", "disable-", "stop-", "detach-", "revoke-", "cancel-", "destroy-"}

// checkAWS: s3 rb / rm --recursive, and delete-* / terminate-* operations.
func checkAWS(c *Call) {
	awsFileArgs(c)
	p := c.Positional
	if len(p) < 2 {
		return
	}
	svc, op := p[0].Value, p[1].Value
	if svc == "s3" {
		switch op {
		case "rb":
			c.Tag(TagInfraTeardown, "aws s3 rb")
		case "rm":
			if hasArg(c, "--recursive") {
				c.Tag(TagInfraTeardown, "aws s3 rm --recursive")
			}
		case "sync":
			if hasArg(c, "--delete") {
				c.Tag(TagInfraTeardown, "aws s3 sync --delete")
			}
		}
		s3Transfer(c, p[2:])
		return
	}
	for _, v := range awsDestroyVerbs {
		if strings.HasPrefix(op, v) && (v == "delete-" || v == "terminate-" || v == "destroy-" || v == "purge-" || v == "deregister-") {
			c.Tag(TagInfraTeardown, "aws "+svc+" "+op)
			return
		}
	}
	if svc == "iam" && (strings.HasPrefix(op, "create-access-key") || strings.HasPrefix(op, "attach-") || strings.HasPrefix(op, "put-user-policy")) {
		c.Tag(TagPrivilege, "aws iam "+op)
	}
	if svc == "secretsmanager" && op == "get-secret-value" || svc == "ssm" && op == "get-parameter" && hasArg(c, "--with-decryption") {
		c.Tag(TagCredentialSearch, "aws "+svc+" "+op)
	}
	if svc == "cloudtrail" && (op == "stop-logging" || op == "delete-trail") || svc == "guardduty" && strings.HasPrefix(op, "delete-") {
		c.Tag(TagSecurityOff, "aws "+svc+" "+op)
	}
}

// s3Transfer records local paths of "aws s3 cp/sync/mv" operands.
func s3Transfer(c *Call, ops []Word) { bucketTransfer(c, ops, "s3://") }

// bucketTransfer records the operands of a copy between local paths and
// URLs of scheme: local sources are read, a local last operand written.
func bucketTransfer(c *Call, ops []Word, scheme string) {
	var local []Word
	for _, w := range ops {
		if strings.HasPrefix(w.Value, "-") {
			continue
		}
		if strings.HasPrefix(w.Value, scheme) {
			c.URL(w, len(local) > 0)
			continue
		}
		local = append(local, w)
	}
	for i, w := range local {
		if i == len(local)-1 && len(local) < len(ops) && !strings.HasPrefix(ops[len(ops)-1].Value, scheme) {
			c.Use(w, accW)
			continue
		}
		c.Use(w, accR)
	}
}

// checkCloudDelete: any "delete"/"destroy" verb among the operands of
// gcloud, az, doctl... tears something down.
func checkCloudDelete(c *Call) {
	for _, w := range c.Positional {
		switch w.Value {
		case "delete", "destroy", "remove", "purge", "terminate", "rm", "apps:destroy", "destroy-cluster":
			c.Tag(TagInfraTeardown, c.Name+" "+w.Value)
			return
		}
	}
	if c.Name == "gcloud" && hasPos(c, "print-access-token", "print-identity-token") ||
		c.Name == "az" && hasPos(c, "get-access-token") {
		c.Tag(TagCredentialSearch, c.Name+" access token")
	}
}

// checkGsutil: rm -r / rb.
//
// cp, mv and rsync copy between local paths and gs:// URLs; the operands
// of the other commands are undescribed (RoleOperand).
func checkGsutil(c *Call) {
	if posIs(c, 0, "rb") || posIs(c, 0, "rm") && hasArg(c, "-r", "-R", "-a") {
		c.Tag(TagInfraTeardown, "gsutil "+c.Positional[0].Value)
	}
	if len(c.Positional) < 2 {
		return
	}
	if posIs(c, 0, "cp", "mv", "rsync") {
		bucketTransfer(c, c.Positional[1:], "gs://")
		return
	}
	for _, w := range c.Positional[1:] {
		c.an.operand(c, w)
	}
}

// checkS3cmd: rb / del --recursive.
func checkS3cmd(c *Call) {
	if posIs(c, 0, "rb") || posIs(c, 0, "del", "rm") && hasArg(c, "--recursive", "-r") {
		c.Tag(TagInfraTeardown, "s3cmd "+c.Positional[0].Value)
	}
}

// checkRclone: purge / delete / sync (deletes at the destination).
func checkRclone(c *Call) {
	if posIs(c, 0, "purge", "delete", "rmdirs", "deletefile") {
		c.Tag(TagInfraTeardown, "rclone "+c.Positional[0].Value)
	}
	if posIs(c, 0, "copy", "sync", "move") && len(c.Positional) == 3 {
		if !strings.Contains(c.Positional[1].Value, ":") {
			c.Use(c.Positional[1], accR)
		}
		if !strings.Contains(c.Positional[2].Value, ":") {
			c.Use(c.Positional[2], accW)
		}
	}
}

// checkAnsible: ad-hoc modules that run commands on the hosts.
func checkAnsible(c *Call) {
	if w, ok := c.Flag("-m", "--module-name"); ok {
		switch w.Value {
		case "shell", "command", "raw", "script", "ansible.builtin.shell", "ansible.builtin.command", "ansible.builtin.raw":
			c.Tag(TagRemoteExec, "ansible -m "+w.Value)
		}
	} else if _, ok := c.Flag("-a", "--args"); ok {
		c.Tag(TagRemoteExec, "ansible -a")
	}
}

// checkGhAPI: DELETE requests tear down.
//
// A field "-F key=@PATH" sends the content of PATH (and "@-" stdin).
func checkGhAPI(c *Call) {
	if flagValIs(c, []string{"-X", "--method"}, "DELETE") {
		c.Tag(TagInfraTeardown, "gh api -X DELETE")
	}
	for i, w := range c.Args {
		var v string
		switch {
		case (w.Value == "-F" || w.Value == "--field") && i+1 < len(c.Args):
			w = c.Args[i+1]
			v = w.Value
		case strings.HasPrefix(w.Value, "--field="):
			v = strings.TrimPrefix(w.Value, "--field=")
		default:
			continue
		}
		if _, p, ok := strings.Cut(v, "=@"); ok {
			c.Use(Word{Value: p, Known: w.Known}, accR)
		}
	}
}

// awsFileArgs: a parameter value "file://PATH" or "fileb://PATH" is the
// content of PATH (aws lambda update-function-code --zip-file fileb://x).
func awsFileArgs(c *Call) {
	for _, w := range c.Args {
		v := w.Value
		if strings.HasPrefix(v, "--") {
			_, v, _ = strings.Cut(v, "=")
		}
		for _, scheme := range [...]string{"file://", "fileb://"} {
			if strings.HasPrefix(v, scheme) {
				c.Use(Word{Value: v[len(scheme):], Known: w.Known}, accR)
			}
		}
	}
}

// checkGcloud: storage cp/mv/rsync copy between local paths and gs://
// URLs, compute scp between local paths and VM:PATH; the operands of the
// other commands are undescribed (RoleOperand).
func checkGcloud(c *Call) {
	checkCloudDelete(c)
	p := c.Positional
	switch {
	case len(p) > 2 && p[0].Value == "storage" && (p[1].Value == "cp" || p[1].Value == "mv" || p[1].Value == "rsync"):
		bucketTransfer(c, p[2:], "gs://")
	case len(p) > 2 && p[0].Value == "compute" && p[1].Value == "scp":
		cpOperands(c, p[2:])
	default:
		for _, w := range p {
			c.an.operand(c, w)
		}
	}
}
