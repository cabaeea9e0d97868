package shell

import "strings"

// Package managers: installs run other people's code (TagPackageInstall);
// a registry, index or repository other than the default one is
// TagPackageSource.

// withSub is a program with subcommands and a plain default.
func withSub(sub map[string]*Program) *Program { return &Program{Sub: sub, SubDefault: &Program{}} }

// kbPkgTable builds the kbPkg table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbPkgTable() map[string]*Program {
	var (
		kPipInstall = &Program{Flags: flags(
			shorts("qvUeI")+" --user --upgrade --force-reinstall --no-deps --no-cache-dir --pre --quiet --verbose"+
				" --break-system-packages --no-build-isolation --ignore-installed --dry-run --require-hashes --editable", fBool,
			"-r --requirement -c --constraint", fRead,
			"-t --target --prefix --root --src", fWrite,
			"-i --index-url --extra-index-url -f --find-links --trusted-host --index --default-index", fVal,
			"--platform --python-version --only-binary --no-binary --progress-bar --proxy --timeout --retries --cert --client-cert", fVal,
		), Rest: RoleOperand, Network: true, Tags: []TagKind{TagPackageInstall}, Check: checkPipInstallRun}
		kPip = &Program{Flags: flags("-q -v --quiet --verbose --isolated --no-cache-dir --disable-pip-version-check", fBool,
			"--proxy --timeout --cache-dir", fVal), SubDefault: &Program{}, Sub: map[string]*Program{
			"install":   kPipInstall,
			"download":  {Flags: kPipInstall.Flags, Rest: RoleOperand, Network: true, Check: checkPipInstall},
			"wheel":     {Flags: kPipInstall.Flags, Rest: RoleOperand, Network: true, Check: checkPipInstall},
			"uninstall": {Flags: flags("-y --yes", fBool, "-r", fRead)},
			"config":    {Check: checkPipConfig},
		}}
		kNpmInstall = &Program{Flags: flags(
			shorts("gDSEOPBfy")+" --global --save --save-dev --save-exact --save-optional --no-save --force --legacy-peer-deps"+
				" --ignore-scripts --production --no-audit --no-fund --dry-run --prefer-offline --yes", fBool,
			"--registry", fVal,
			"--prefix -C --cache --tag --omit --include --workspace -w", fVal,
		), Rest: RoleOperand, Network: true, Tags: []TagKind{TagPackageInstall}, Check: checkNpmInstallRun}
		kNpmX = &Program{Args: []Role{RoleCommand}, Network: true, Tags: []TagKind{TagPackageInstall},
			Flags: flags("-y --yes --no", fBool, "-p --package -c --call --registry", fVal), Check: checkNpxRun}
		kNpmConfig = &Program{Check: checkNpmConfig}
		kNpm       = &Program{Flags: flags("-g --global -s --silent -q --quiet -d -dd --verbose -y --yes", fBool,
			"--prefix -C --userconfig --workspace -w", fVal, "--registry", fVal),
			SubDefault: &Program{},
			Sub: map[string]*Program{
				"install": kNpmInstall, "i": kNpmInstall, "add": kNpmInstall, "ci": kNpmInstall, "isntall": kNpmInstall,
				"update": kNpmInstall, "up": kNpmInstall, "upgrade": kNpmInstall, "link": kNpmInstall,
				"exec": kNpmX, "x": kNpmX, "config": kNpmConfig, "set": kNpmConfig,
				"publish": {Network: true, Upload: true, Flags: flags("--registry", fVal, "--access --tag --otp", fVal), Rest: RoleOperand},
				"login":   {Network: true}, "adduser": {Network: true},
				"token": {Network: true, Tags: []TagKind{TagCredentialSearch}},
				"audit": {Network: true}, "outdated": {Network: true}, "view": {Network: true, Rest: RoleOperand}, "info": {Network: true, Rest: RoleOperand},
			}}
		kYarn = &Program{Flags: flags("--silent -s --frozen-lockfile --immutable --offline --prefer-offline", fBool,
			"--cwd", fDir, "--registry", fVal), SubDefault: &Program{}, Sub: map[string]*Program{
			"add": kNpmInstall, "install": kNpmInstall, "upgrade": kNpmInstall, "up": kNpmInstall, "global": kNpmInstall,
			"dlx": kNpmX, "config": kNpmConfig, "publish": {Network: true, Upload: true, Rest: RoleOperand}, "npm": {Network: true},
		}}
		kAptInstall = &Program{Flags: flags(
			shorts("yqdfmsuV")+" --yes --assume-yes --quiet --no-install-recommends --install-suggests --fix-broken"+
				" --allow-downgrades --reinstall --download-only --simulate --dry-run", fBool,
			"--allow-unauthenticated", tagged(fBool, TagPackageSource),
			"-o --option -t --target-release -c --config-file", fVal,
		), Rest: RoleOperand, Network: true, Tags: []TagKind{TagPackageInstall}, Check: checkAptInstall}
		kSysChange = &Program{Tags: []TagKind{TagSystemChange}}
		kApt       = &Program{Flags: kAptInstall.Flags, SubDefault: &Program{}, Sub: map[string]*Program{
			"install": kAptInstall, "reinstall": kAptInstall, "upgrade": kAptInstall, "full-upgrade": kAptInstall,
			"dist-upgrade": kAptInstall, "build-dep": kAptInstall, "source": {Network: true},
			"remove": kSysChange, "purge": kSysChange, "autoremove": kSysChange, "update": {Network: true},
			"edit-sources": {Tags: []TagKind{TagPackageSource}},
		}}
		kRpmInstall = &Program{Flags: flags(shorts("yqCv")+" --assumeyes --best --allowerasing --refresh", fBool,
			"--nogpgcheck", tagged(fBool, TagPackageSource),
			"--enablerepo --disablerepo --setopt --installroot --releasever -c --config", fVal,
			"--repofrompath", tagged(fVal, TagPackageSource)), Network: true, Tags: []TagKind{TagPackageInstall}, Check: checkRpmInstall}
		kYum = &Program{Flags: kRpmInstall.Flags, SubDefault: &Program{Network: true}, Sub: map[string]*Program{
			"install": kRpmInstall, "localinstall": kRpmInstall, "reinstall": kRpmInstall, "update": kRpmInstall,
			"upgrade": kRpmInstall, "groupinstall": kRpmInstall,
			"remove": kSysChange, "erase": kSysChange,
			"config-manager": {Tags: []TagKind{TagPackageSource}},
		}}
		kInstallOnly  = &Program{Network: true, Tags: []TagKind{TagPackageInstall}}
		kSourceOnly   = &Program{Network: true, Tags: []TagKind{TagPackageSource}}
		kCondaInstall = &Program{Flags: flags("-y --yes -q --quiet --force", fBool, "-n --name -p --prefix --file -c --channel", fVal),
			Network: true, Tags: []TagKind{TagPackageInstall}, Check: checkCondaInstall}
		kGemInstall = &Program{Flags: flags("--user-install --no-document -N --force -f --pre", fBool, "-v --version -i --install-dir -n --bindir", fVal,
			"-s --source --clear-sources", tagged(fVal, TagPackageSource)), Network: true, Tags: []TagKind{TagPackageInstall}}
		kBrewInstall = &Program{Flags: flags("--cask -f --force -v -q --HEAD --build-from-source -s", fBool), Rest: RoleOperand, Network: true,
			Tags: []TagKind{TagPackageInstall}, Check: checkBrewInstall}
	)

	var kbPkg = map[string]*Program{
		"pip": kPip, "pip3": kPip, "pip2": kPip,
		"pipx": withSub(map[string]*Program{
			"install": {Flags: with(kPipInstall.Flags, "--pip-args --python", fVal), Network: true, Tags: []TagKind{TagPackageInstall}, Check: checkPipInstallRun},
			"run":     {Flags: flags("--spec --index-url", fVal), Args: []Role{RoleCommand}, Network: true, Tags: []TagKind{TagPackageInstall}, Check: checkRunnerFetch},
			"inject":  kPipInstall,
		}),
		"poetry": {Flags: flags("-C --directory", fDir), SubDefault: &Program{}, Sub: map[string]*Program{
			"install": kInstallOnly, "update": kInstallOnly, "self": kInstallOnly,
			"add":     {Network: true, Tags: []TagKind{TagPackageInstall}, Flags: flags("--source", tagged(fVal, TagPackageSource), "-G --group", fVal), Check: checkPipInstall},
			"run":     {Args: []Role{RoleCommand}},
			"publish": {Network: true, Upload: true, Flags: flags("-r --repository", tagged(fVal, TagPackageSource), "-u -p --username --password", fVal), Rest: RoleOperand},
			"source":  {Tags: []TagKind{TagPackageSource}},
			"config":  {Check: checkPipConfig},
		}},
		"uv": {Flags: flags("-q -v --offline --no-cache", fBool, "--directory --project", fDir,
			"--index-url --extra-index-url --index --default-index", tagged(fVal, TagPackageSource)),
			SubDefault: &Program{},
			Sub: map[string]*Program{
				"pip":  kPip,
				"add":  kPipInstall,
				"sync": {Flags: kPipInstall.Flags, Network: true, Tags: []TagKind{TagPackageInstall}},
				"lock": {Network: true},
				"run": {Flags: flags("--with --python --package --extra --group", fVal, "--index-url --extra-index-url", tagged(fVal, TagPackageSource)),
					Args: []Role{RoleCommand}, Check: checkRunnerWith},
				"tool": withSub(map[string]*Program{
					"install": kPipInstall,
					"run":     {Flags: flags("--from --with", fVal), Args: []Role{RoleCommand}, Network: true, Tags: []TagKind{TagPackageInstall}, Check: checkRunnerFetch},
				}),
				"venv": {Args: []Role{RoleWrite}}, "init": {Args: []Role{RoleWrite}},
				"publish": {Network: true, Upload: true, Rest: RoleOperand},
			}},
		"uvx":          {Flags: flags("--from --with --python", fVal), Args: []Role{RoleCommand}, Network: true, Tags: []TagKind{TagPackageInstall}, Check: checkRunnerFetch},
		"conda":        withSub(map[string]*Program{"install": kCondaInstall, "create": kCondaInstall, "update": kCondaInstall, "config": {Check: checkCondaConfig}, "run": {Flags: flags("-n --name -p --prefix", fVal), Args: []Role{RoleCommand}}}),
		"mamba":        withSub(map[string]*Program{"install": kCondaInstall, "create": kCondaInstall, "update": kCondaInstall}),
		"easy_install": kInstallOnly,
		"twine":        {Network: true, Upload: true, Flags: flags("-r --repository --repository-url", tagged(fVal, TagPackageSource), "-u -p", fVal), Rest: RoleRead},
		"npm":          kNpm,
		"npx":          kNpmX,
		"yarn":         kYarn,
		"pnpm": {Flags: flags("-g --global -r --recursive -D -P --frozen-lockfile", fBool, "-C --dir", fDir, "--filter -F", fVal, "--registry", fVal),
			SubDefault: &Program{}, Sub: map[string]*Program{
				"add": kNpmInstall, "install": kNpmInstall, "i": kNpmInstall, "update": kNpmInstall, "up": kNpmInstall,
				"dlx": kNpmX, "exec": {Args: []Role{RoleCommand}}, "config": kNpmConfig, "publish": {Network: true, Upload: true, Rest: RoleOperand},
			}},
		"corepack": {Network: true},
		"nvm":      {Network: true},
		"apt":      kApt, "apt-get": kApt, "aptitude": kApt,
		"apt-cache": plain(nil),
		"apt-mark":  kSysChange,
		"apt-key": withSub(map[string]*Program{
			"add": {Args: []Role{RoleRead}, Tags: []TagKind{TagPackageSource}},
			"adv": kSourceOnly, "del": {Tags: []TagKind{TagPackageSource}},
		}),
		"add-apt-repository": {Flags: flags("-y --yes -r --remove -s -n -u", fBool), Network: true, Tags: []TagKind{TagPackageSource}},
		"apt-add-repository": {Flags: flags("-y --yes -r --remove", fBool), Network: true, Tags: []TagKind{TagPackageSource}},
		"dpkg": {Flags: flags("-l --list -L --listfiles -s --status -S --search -c --contents -I --info --get-selections --print-architecture", fBool,
			"-i --install --unpack", Flag{Value: true, Role: RoleRead, Tags: []TagKind{TagPackageInstall}},
			"-r --remove -P --purge", tagged(fVal, TagSystemChange),
			"-x --extract -X --vextract", fRead,
			"--root --admindir --instdir --force", fVal), Rest: RoleRead},
		"dpkg-query":       plain(flags("-W -l -s -L -S", fBool, "-f --showformat", fVal)),
		"dpkg-reconfigure": kSysChange,
		"yum":              kYum, "dnf": kYum, "microdnf": kYum, "tdnf": kYum,
		"zypper": withSub(map[string]*Program{"install": kRpmInstall, "in": kRpmInstall, "update": kRpmInstall, "up": kRpmInstall,
			"addrepo": {Tags: []TagKind{TagPackageSource}}, "ar": {Tags: []TagKind{TagPackageSource}}}),
		"rpm": {Flags: flags(shorts("qalfcdsvh")+" --query --all --nodeps --force --test --verify -qa -qi -ql -qf", fBool,
			"-i --install -U --upgrade -F --freshen -ivh -Uvh", Flag{Value: true, Role: RoleRead, Tags: []TagKind{TagPackageInstall}},
			"-e --erase", tagged(fVal, TagSystemChange),
			"--import", tagged(fRead, TagPackageSource),
			"--root --dbpath", fVal), Rest: RoleRead},
		"pacman": {Flags: flags("-Q -Qi -Ql -Qs -Ss -Si --noconfirm --needed -y -u -v -q", fBool,
			"-S -Sy -Syu -Syyu -U --sync --upgrade", tagged(fBool, TagPackageInstall),
			"-R -Rs -Rns -Rdd --remove", tagged(fBool, TagSystemChange),
			"--config --root --dbpath", fVal), Network: true},
		"yay":  {Network: true, Flags: flags("-S -Syu -Sy", tagged(fBool, TagPackageInstall))},
		"paru": {Network: true, Flags: flags("-S -Syu -Sy", tagged(fBool, TagPackageInstall))},
		"apk": {Flags: flags("--no-cache --update -U -q -v", fBool, "--allow-untrusted", tagged(fBool, TagPackageSource),
			"-X --repository", tagged(fVal, TagPackageSource), "--root -p", fVal), SubDefault: &Program{},
			Sub: map[string]*Program{
				"add": {Network: true, Tags: []TagKind{TagPackageInstall}, Flags: flags("--no-cache --update -U --virtual -t", fBool,
					"--allow-untrusted", tagged(fBool, TagPackageSource), "-X --repository", tagged(fVal, TagPackageSource))},
				"del": kSysChange, "update": {Network: true}, "upgrade": kInstallOnly,
			}},
		"snap":    withSub(map[string]*Program{"install": {Network: true, Tags: []TagKind{TagPackageInstall}, Flags: flags("--classic --devmode --dangerous --edge --beta", fBool, "--channel", fVal)}, "remove": kSysChange, "refresh": kInstallOnly}),
		"flatpak": withSub(map[string]*Program{"install": kInstallOnly, "remote-add": kSourceOnly}),
		"nix-env": {Flags: flags("-i --install -iA", tagged(fBool, TagPackageInstall), "-f --file", fRead), Network: true},
		"nix":     {Network: true, Sub: map[string]*Program{"profile": kInstallOnly, "run": kInstallOnly}, SubDefault: &Program{Network: true}},
		"brew": {Flags: flags("-v -q -d --verbose --quiet --debug", fBool), SubDefault: &Program{}, Sub: map[string]*Program{
			"install": kBrewInstall, "reinstall": kBrewInstall, "upgrade": kBrewInstall,
			"tap":      {Network: true, Tags: []TagKind{TagPackageSource}},
			"services": withSub(map[string]*Program{"start": {Tags: []TagKind{TagPersistence}}}),
			"update":   {Network: true},
		}},
		"port":     withSub(map[string]*Program{"install": kInstallOnly, "selfupdate": kInstallOnly}),
		"gem":      withSub(map[string]*Program{"install": kGemInstall, "update": kGemInstall, "sources": {Check: checkGemSources}, "push": {Network: true, Upload: true, Rest: RoleOperand}}),
		"bundle":   withSub(map[string]*Program{"install": kInstallOnly, "update": kInstallOnly, "add": kInstallOnly, "exec": {Args: []Role{RoleCommand}}, "config": {Check: checkBundleConfig}}),
		"bundler":  withSub(map[string]*Program{"install": kInstallOnly, "exec": {Args: []Role{RoleCommand}}}),
		"composer": withSub(map[string]*Program{"install": kInstallOnly, "require": kInstallOnly, "update": kInstallOnly, "global": kInstallOnly, "config": {Check: checkComposerConfig}, "exec": {Args: []Role{RoleCommand}}}),
		"cpan":     kInstallOnly, "cpanm": kInstallOnly,
		"luarocks":            withSub(map[string]*Program{"install": {Network: true, Tags: []TagKind{TagPackageInstall}, Flags: flags("--server --only-server", tagged(fVal, TagPackageSource))}}),
		"opam":                withSub(map[string]*Program{"install": kInstallOnly, "repo": {Tags: []TagKind{TagPackageSource}}}),
		"krew":                kInstallOnly,
		"asdf":                withSub(map[string]*Program{"install": kInstallOnly, "plugin": kSourceOnly}),
		"sdk":                 withSub(map[string]*Program{"install": kInstallOnly}),
		"update-alternatives": kSysChange,
		"alternatives":        kSysChange,
	}
	return kbPkg
}

// Default registries; anything else named as an index is a package source.
var (
	pypiHosts = []string{"pypi.org", "files.pythonhosted.org", "pypi.python.org"}
	npmHosts  = []string{"registry.npmjs.org", "registry.yarnpkg.com", "registry.npmjs.com"}
)

// hostIn reports whether a URL or host names one of hosts.
func hostIn(u string, hosts []string) bool {
	h := u
	if i := strings.Index(h, "://"); i >= 0 {
		h = h[i+3:]
	}
	if i := strings.IndexAny(h, "/:?"); i >= 0 {
		h = h[:i]
	}
	if i := strings.LastIndexByte(h, '@'); i >= 0 {
		h = h[i+1:]
	}
	h = strings.ToLower(h)
	for _, x := range hosts {
		if h == x {
			return true
		}
	}
	return false
}

// isRemoteSpec reports whether a package spec names a URL or a VCS
// instead of a registry package.
func isRemoteSpec(s string) bool {
	return strings.Contains(s, "://") || strings.HasPrefix(s, "git+") || strings.HasPrefix(s, "git@") ||
		strings.HasPrefix(s, "github:") || strings.HasPrefix(s, "gitlab:") || strings.HasPrefix(s, "bitbucket:") ||
		strings.Contains(s, " @ ") || strings.HasPrefix(s, "hg+") || strings.HasPrefix(s, "svn+") || strings.HasPrefix(s, "bzr+")
}

// checkPipInstall tags indexes other than PyPI and URL/VCS requirements.
func checkPipInstall(c *Call) {
	for _, n := range []string{"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--trusted-host", "--index", "--default-index", "--source"} {
		if w, ok := c.Flags[n]; ok && !hostIn(w.Value, pypiHosts) {
			c.Tag(TagPackageSource, c.Name+" "+n+" "+w.Value)
		}
	}
	for _, w := range c.Positional {
		if isRemoteSpec(w.Value) {
			c.Tag(TagPackageSource, c.Name+" install "+w.Value)
			if i := strings.Index(w.Value, "://"); i >= 0 {
				u := w.Value
				if j := strings.IndexByte(u, '+'); j >= 0 && j < i {
					u = u[j+1:]
				}
				c.URL(Word{Value: u, Known: w.Known}, false)
			}
		}
	}
}

// checkPipConfig: "pip config set global.index-url URL".
func checkPipConfig(c *Call) {
	if posIs(c, 0, "set") && len(c.Positional) > 2 && strings.Contains(c.Positional[1].Value, "index") &&
		!hostIn(c.Positional[2].Value, pypiHosts) {
		c.Tag(TagPackageSource, c.Name+" config set "+c.Positional[1].Value)
	}
}

// checkNpmInstall tags registries other than npmjs and URL, git and
// tarball specs.
func checkNpmInstall(c *Call) {
	if w, ok := c.Flag("--registry"); ok && !hostIn(w.Value, npmHosts) {
		c.Tag(TagPackageSource, c.Name+" --registry "+w.Value)
	}
	for _, w := range c.Positional {
		if isRemoteSpec(w.Value) || strings.HasSuffix(w.Value, ".tgz") && strings.Contains(w.Value, "/") {
			c.Tag(TagPackageSource, c.Name+" install "+w.Value)
		}
	}
}

// checkNpmConfig: "npm config set registry URL" and friends.
func checkNpmConfig(c *Call) {
	for i, w := range c.Positional {
		k := strings.ToLower(w.Value)
		if !strings.Contains(k, "registry") {
			continue
		}
		if key, val, ok := strings.Cut(k, "="); ok && strings.Contains(key, "registry") {
			if !hostIn(val, npmHosts) {
				c.Tag(TagPackageSource, c.Name+" config registry")
			}
			continue
		}
		if i+1 < len(c.Positional) && !hostIn(c.Positional[i+1].Value, npmHosts) {
			c.Tag(TagPackageSource, c.Name+" config registry")
		}
	}
}

// checkNpx tags remote package specs and registries.
func checkNpx(c *Call) {
	if w, ok := c.Flag("-p", "--package"); ok && isRemoteSpec(w.Value) {
		c.Tag(TagPackageSource, c.Name+" -p "+w.Value)
	}
	if w, ok := c.Flag("--registry"); ok && !hostIn(w.Value, npmHosts) {
		c.Tag(TagPackageSource, c.Name+" --registry")
	}
}

// checkAptInstall: local .deb files; -o options that set hooks or sources.
func checkAptInstall(c *Call) {
	for _, w := range c.Positional {
		if strings.HasSuffix(w.Value, ".deb") {
			c.Use(w, accR)
		}
	}
	if w, ok := c.Flag("-o", "--option"); ok {
		v := strings.ToLower(w.Value)
		if strings.Contains(v, "pre-invoke") || strings.Contains(v, "post-invoke") || strings.Contains(v, "pre-install-pkgs") {
			c.Tag(TagCodeEscape, "apt -o "+w.Value)
		}
		if strings.Contains(v, "sourcelist") || strings.Contains(v, "allowunauthenticated") || strings.Contains(v, "allow-insecure") {
			c.Tag(TagPackageSource, "apt -o")
		}
	}
}

// checkRpmInstall: packages by URL and local packages.
func checkRpmInstall(c *Call) {
	for _, w := range c.Positional {
		if strings.Contains(w.Value, "://") {
			c.Tag(TagPackageSource, c.Name+" install "+w.Value)
			c.URL(w, false)
		} else if strings.HasSuffix(w.Value, ".rpm") {
			c.Use(w, accR)
		}
	}
}

// checkBrewInstall: formulae given by URL or from a third-party tap.
func checkBrewInstall(c *Call) {
	for _, w := range c.Positional {
		if strings.Contains(w.Value, "://") || strings.Count(w.Value, "/") == 2 && !strings.HasPrefix(w.Value, "homebrew/") {
			c.Tag(TagPackageSource, "brew install "+w.Value)
		}
	}
}

// checkGemSources: "gem sources --add URL".
func checkGemSources(c *Call) {
	if hasArg(c, "-a", "--add") {
		c.Tag(TagPackageSource, "gem sources --add")
	}
}

// checkBundleConfig: mirrors.
func checkBundleConfig(c *Call) {
	for _, w := range c.Positional {
		if strings.HasPrefix(w.Value, "mirror.") {
			c.Tag(TagPackageSource, "bundle config mirror")
		}
	}
}

// checkComposerConfig: repositories.
func checkComposerConfig(c *Call) {
	for _, w := range c.Positional {
		if strings.HasPrefix(w.Value, "repositories") || strings.HasPrefix(w.Value, "repo.") {
			c.Tag(TagPackageSource, "composer config repositories")
		}
	}
}

// checkCondaInstall: channels other than the usual ones.
func checkCondaInstall(c *Call) {
	if w, ok := c.Flag("-c", "--channel"); ok && w.Value != "conda-forge" && w.Value != "defaults" && w.Value != "bioconda" {
		c.Tag(TagPackageSource, "conda -c "+w.Value)
	}
}

// checkCondaConfig: "conda config --add channels X".
func checkCondaConfig(c *Call) {
	if hasArg(c, "channels") {
		c.Tag(TagPackageSource, "conda config channels")
	}
}
