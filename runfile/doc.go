// Package runfile finds the code that project files run when a command
// runs them: the recipes of a Makefile's targets (and their
// prerequisites', transitively), the "scripts" of a package.json with
// their pre/post and lifecycle hooks, shell scripts, setup.py and
// conftest.py, git hooks, the program files of sed -f and awk -f (GNU
// sed's e and w commands, awk's system() and redirections, judged as the
// same program given inline), and the //go:generate lines of Go source
// files (run by go generate without a shell: a unit is the line's words,
// with -command aliases resolved and unknown $NAMEs left unknown), the
// recipes of a justfile (dependencies first, aliases resolved, literal
// variables expanded, backticks run whenever it is read) and the
// commands of a tox.ini's test environments. Build files whose code it
// cannot read (build.rs, Gradle scripts, CMake files, pom.xml, a
// pyproject.toml naming an in-tree backend) are found for the commands
// that run them (cargo, gradle/./gradlew, cmake, mvn, pip install .,
// python -m build) and said unknown; a write of one yields the commands
// its text spells out (Command::new, commandLine, execute_process
// COMMAND, exec-maven-plugin). Sources lists where a dependency manifest
// fetches code from when that is not the default registry. It reads nothing itself: the caller hands
// it the files' content (through FS, bounded), so that a gate can judge
// that code as part of the command that runs it.
//
// Defenses:
//   - What it cannot read is said, never dropped: an include of another
//     makefile, a file over the size bound, content that does not parse,
//     a bound on targets, expansion or units that was hit, an interpreter
//     it does not know: Units returns the reason as unknown, with the units
//     it did read.
//   - Make variables defined in the same file are expanded ($$ is $,
//     recipe prefixes @ - + dropped, $@ $< $^ bound per rule); a variable
//     it cannot expand stays a shell variable of the same name (an unknown
//     word to the analyser, never an empty one). $(shell ...) and !=
//     assignments run when the makefile is read: they are units of every
//     run.
//   - Bounded and linear: input size (MaxFileBytes), expansion output
//     (maxExpand), nesting (maxExpandDepth), targets followed (maxTargets)
//     and units (MaxUnits); an opaque file's statements (maxStatement,
//     maxScans), build files per command (maxBuildFiles), sources
//     (maxSources).
//
// Known limits: a command's working directory is the one the caller
// gives (cd sub && make is read at the caller's directory); conditionals
// are read with both branches; pattern rules are matched by their
// prefix and suffix only; a nested $(MAKE) -C sub is read when the
// caller follows the recipe's own commands; test files run by test
// runners (test_*.py, *_test.go) are not read, only conftest.py. tox
// commands run without a shell and are judged as shell code (an
// over-approximation), every test environment's (tox -e is not
// narrowed); tox settings in pyproject.toml or setup.cfg, justfile
// imports (said unknown), Gradle scripts applied from elsewhere, CMake
// includes outside the source directory and cmake/, the build scripts of
// Cargo path dependencies and proc-macro crates are not followed; an
// in-tree backend module is read as Python but a write of it is not
// recorded as the agent's.
package runfile
