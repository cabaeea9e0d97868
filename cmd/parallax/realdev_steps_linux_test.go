package main

import "strconv"

// The calls of TestRealDeveloperSession, turn by turn.

func goSteps() []devStep {
	return []devStep{
		ok(proposeWrite("go.mod", "module example.com/app\n\ngo 1.22\n"), "go.mod"),
		ok(proposeWrite("main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/app/greet\"\n\t\"example.com/dep\"\n)\n\n"+
			"// TODO: read the name from the command line.\nfunc main() {\n\tfmt.Println(greet.Hello(\"world\"), dep.Version())\n}\n"), "main.go"),
		// Not gofmt'ed: gofmt -l finds it below.
		ok(proposeWrite("greet/greet.go", "package greet\n\n// Hello greets name.\nfunc Hello(name string) string {\nreturn \"Hello, \" + name\n}\n"), "greet.go"),
		ok(proposeWrite("greet/greet_test.go", "package greet\n\nimport \"testing\"\n\nfunc TestHello(t *testing.T) {\n"+
			"\tif got := Hello(\"world\"); got != \"Hello, world\" {\n\t\tt.Fatalf(\"got %q\", got)\n\t}\n}\n"), "greet_test.go"),
		ok(slow("go get example.com/dep@v1.0.0"), "example.com/dep v1.0.0"),
		ok(slow("go mod tidy"), ""),
		ok(slow("go build -o bin/app ."), ""),
		ok(propose("./bin/app"), "Hello, world dep v1.0.0"),
		ok(slow("go vet ./..."), ""),
		ok(slow("go test ./..."), "ok  \texample.com/app/greet"),
		ok(propose("gofmt -l ."), "greet/greet.go"),
		ok(propose("gofmt -w ."), ""),
		ok(propose("gofmt -l . | wc -l"), "0"),
		ok(propose("grep -rn TODO ."), "main.go:10:"),
		ok(propose("grep -rln --include='*.go' 'package ' . | sort"), "./greet/greet_test.go"),
		ok(propose("find . -name '*.go' | xargs wc -l"), "total"),
		ok(slow(`f=$(mktemp) && go list ./... > "$f" && wc -l < "$f"`), "2"),
		ok(propose(`for d in */; do echo "dir: $d"; done`), "dir: greet/"),
		ok(propose(`echo scratch > "$TMPDIR/notes.txt" && cat "$TMPDIR/notes.txt"`), "scratch"),
		ok(proposeRead("main.go"), "TODO"),
		ok(step{tool: "search_files", args: map[string]any{"path": ".", "pattern": "Hello"}}, "greet.go"),
		ok(step{tool: "list_directory", args: map[string]any{"path": "."}}, "go.mod"),
	}
}

func goChangeSteps() []devStep {
	return []devStep{
		ok(proposeEdit("greet/greet.go", `"Hello, "`, `"Hi, "`), ""),
		// The test still expects the old greeting.
		fails(slow("go test ./greet/"), "exit status 1"),
		ok(proposeEdit("greet/greet_test.go", `"Hello, world"`, `"Hi, world"`), ""),
		ok(slow("go test ./..."), "ok"),
		ok(slow("go doc ./greet Hello"), "Hello greets name"),
		ok(proposeWrite("Makefile", ".PHONY: release\nrelease:\n\tsleep 35\n\tgo build -o bin/app .\n\t@echo release built\n"), "Makefile"),
		// Past the default 30 s: the call asks for more.
		ok(within("make release", 300), "release built"),
		// Without asking: the timeout names its limit and the parameter.
		fails(propose("sleep 45"), "timed out after 30 s"),
	}
}

func npmSteps() []devStep {
	return []devStep{
		ok(proposeWrite("package.json", `{"name": "web", "version": "1.0.0", "scripts": {"test": "node test.js"}}`+"\n"), "package.json"),
		ok(proposeWrite("index.js", "const tiny = require('tinypkg');\nmodule.exports = () => 'web ' + tiny();\n"), "index.js"),
		ok(proposeWrite("test.js", "const assert = require('assert');\nassert.strictEqual(require('./index.js')(), 'web tiny');\nconsole.log('tests passed');\n"), "test.js"),
		ok(slow("npm install tinypkg"), "added 1 package"),
		ok(slow("npm test"), "tests passed"),
		ok(propose("npm ls tinypkg"), "tinypkg@1.0.0"),
		ok(propose(`node -e "console.log(require('./index.js')())"`), "web tiny"),
		fails(propose("npm run lint"), "exit status 1"),
		// package.json as npm install rewrote it, edited by the agent.
		ok(proposeWrite("build.js", "console.log('built web');\n"), "build.js"),
		ok(proposeEdit("package.json", `"node test.js"`, `"node test.js","build":"node build.js"`), ""),
		ok(propose("npm run build"), "built web"),
		ok(propose(`grep -rn '"tinypkg"' package.json`), "tinypkg"),
	}
}

func pythonSteps() []devStep {
	return []devStep{
		ok(proposeWrite("calc.py", "import tinypkg\n\n\ndef add(a, b):\n    return a + b\n\n\ndef version():\n    return tinypkg.V\n"), "calc.py"),
		ok(proposeWrite("test_calc.py", "import unittest\n\nimport calc\n\n\nclass TestCalc(unittest.TestCase):\n"+
			"    def test_add(self):\n        self.assertEqual(calc.add(1, 2), 3)\n\n    def test_version(self):\n        self.assertEqual(calc.version(), 1)\n\n\n"+
			"if __name__ == '__main__':\n    unittest.main()\n"), "test_calc.py"),
		ok(slow("python3 -m venv .venv"), ""),
		ok(slow(". .venv/bin/activate && pip install tinypkg"), "Successfully installed tinypkg-1.0.0"),
		ok(slow(". .venv/bin/activate && python -m unittest -v"), "OK"),
		ok(propose(".venv/bin/python -c 'import tinypkg; print(tinypkg.V)'"), "1"),
		ok(propose(".venv/bin/pip list 2>/dev/null | grep tinypkg"), "tinypkg"),
		ok(proposeWrite("test_broken.py", "import unittest\n\n\nclass TestBroken(unittest.TestCase):\n    def test_wrong(self):\n        self.assertEqual(1 + 1, 3)\n"), "test_broken.py"),
		fails(propose(".venv/bin/python -m unittest test_broken"), "exit status 1"),
		ok(propose("rm test_broken.py"), ""),
		ok(propose("find . -path ./.venv -prune -o -path ./node_modules -prune -o -name '*.py' -print"), "./calc.py"),
	}
}

func gitSteps(remote string) []devStep {
	return []devStep{
		ok(proposeWrite(".gitignore", "bin/\nnode_modules/\n.venv/\n__pycache__/\n"), ".gitignore"),
		// A new repository's identity and remote are set as it is made:
		// its config is read-only to later commands.
		ok(propose("git init -q -b main && git config user.name Dev && git config user.email dev@example.com && git remote add origin "+remote), ""),
		ok(propose("git add -A && git status --short"), "A  go.mod"),
		ok(propose("git commit -qm 'app, web and calc'"), ""),
		// Pushed; the upstream it cannot record is said.
		ok(propose("git push -u origin main"), "read-only to commands"),
		ok(proposeEdit("calc.py", "def version():", "def sub(a, b):\n    return a - b\n\n\ndef version():"), ""),
		ok(propose("git diff"), "+def sub(a, b):"),
		ok(propose("git commit -qam 'calc: sub'"), ""),
		ok(propose("git push origin main"), ""),
		ok(propose("git log --oneline origin/main"), "calc: sub"),
		ok(propose("git status --short --branch"), "## main"),
		fails(propose("git config pull.rebase false"), "read-only to commands"),
	}
}

func choreSteps(registry string) []devStep {
	return []devStep{
		ok(propose("git checkout -q -b feature"), ""),
		ok(propose("sed -i 's/Hi, /Hey, /' greet/greet.go greet/greet_test.go"), ""),
		ok(slow("cd greet && go test ."), "ok"),
		ok(propose("git commit -qam 'greet: hey'"), ""),
		// Checking out another commit writes content the gate cannot see,
		// agent instructions among it: it needs a human, and run has none.
		fails(propose("git checkout -q main && git merge -q --no-edit feature"), "guard_tree"),
		ok(propose("git push -q origin feature && git log --oneline -1 origin/feature"), "greet: hey"),
		ok(propose("cat > notes.md <<'EOF'\n# Notes\n- ship it\nEOF\nwc -l notes.md"), "2 notes.md"),
		ok(slow("printf 'tinypkg==1.0.0\\n' > requirements.txt && .venv/bin/pip install -r requirements.txt"), "already satisfied"),
		ok(slow("npm ci"), "added 1 package"),
		ok(propose(`ls greet | while read f; do echo "file $f"; done`), "file greet.go"),
		ok(propose("tar czf dist.tgz bin/app && tar tzf dist.tgz"), "bin/app"),
		ok(propose(`export APP_ENV=dev && echo "env=$APP_ENV"`), "env=dev"),
		ok(propose("diff -u greet/greet.go greet/greet.go && echo same"), "same"),
		ok(propose("go env GOMODCACHE"), "/go/pkg/mod"),
		ok(propose("curl -sS "+registry+"/npm/tinypkg"), `"dist-tags"`),
		ok(propose("python3 -m json.tool package.json"), `"tinypkg": "^1.0.0"`),
		ok(propose("make -n release"), "go build -o bin/app ."),
		ok(slow("rm -rf node_modules && npm install"), "added 1 package"),
		ok(propose("chmod 600 notes.md && ls -l notes.md"), "-rw-------"),
		ok(propose("git log -p -1 | head -20"), "greet: hey"),
	}
}

func refusalSteps(sinkPort int) []devStep {
	return []devStep{
		fails(propose("cat ~/.ssh/id_rsa"), ".ssh"),
		fails(proposeRead("~/.ssh/id_rsa"), ".ssh"),
		fails(propose("curl -sS -d @go.mod http://127.0.0.1:"+strconv.Itoa(sinkPort)+"/upload"), "127.0.0.1"),
		fails(propose("sh scripts/bootstrap.sh"), "Parallax ran this command in its sandbox"),
		fails(proposeWrite("~/.bashrc", "alias app=./bin/app\n"), ".bashrc"),
	}
}
