package shell

import (
	"strings"
	"sync"
)

// The knowledge base of programs. Each kb_*.go file holds one static table
// (files, text, archives, network, dev tools, containers and clouds,
// system administration, interpreters and wrappers, misc). programs merges
// them once, on the first lookup (not at package initialisation: a process
// that never analyses a command does not pay for them), without init()
// functions.
//
// Conventions the tables rely on (the core implements them):
//   - Flag parsing stops at the first positional argument whose role is
//     RoleCommand or RoleScript, and at "--": what follows belongs to the
//     nested command or script.
//   - When a RoleCode or RoleShellCode flag is given (python -c, perl -e,
//     sh -c), a RoleScript positional is not a script: the words are the
//     code's arguments. Check functions add what those arguments mean.
//   - Check functions never reference programs or lookup (that would be an
//     initialisation cycle); they nest through Call.Run and Call.RunShell.

// kbTables lists the builders of the tables merged into programs. A name
// must appear in one table only (kb_test.go checks it).
var kbTables = []func() map[string]*Program{
	kbFilesTable, kbFileMetaTable, kbTextTable, kbFindTable, kbArchiveTable, kbNetTable, kbNet2Table,
	kbGitTable, kbDevTable, kbPkgTable, kbContainerTable, kbCloudTable, kbSystemTable, kbAdminTable,
	kbInterpTable, kbWrapTable, kbMiscTable,
}

// programs is the knowledge base: program base name → what it does with
// its arguments, built once on first use.
var programs = sync.OnceValue(func() map[string]*Program {
	tables := make([]map[string]*Program, len(kbTables))
	for i, build := range kbTables {
		tables[i] = build()
	}
	return merge(tables, kbAliases)
})

// lookup returns the knowledge base entry for a program base name, or
// nil. It is the default of Options.Lookup. The entries are shared by
// every analysis and never change once built, so no entry leaves the
// package: other packages ask ProgramLang and Networked.
func lookup(name string) *Program { return programs()[name] }

// ProgramLang reports whether the knowledge base describes the program
// with this base name, and the language of the code it runs ("" when
// its input is data, not code).
func ProgramLang(name string) (lang string, known bool) {
	p := lookup(name)
	if p == nil {
		return "", false
	}
	return p.Lang, true
}

// Networked reports whether the program with this base name talks to
// the network when run with args: the program itself, or one of its
// subcommands named among args. An unknown program reports false; the
// analysis tags those (TagUnknownProgram).
func Networked(name string, args []string) bool {
	p := lookup(name)
	if p == nil {
		return false
	}
	if p.Network {
		return true
	}
	for _, arg := range args {
		if sp := p.Sub[arg]; sp != nil && sp.Network {
			return true
		}
	}
	return false
}

// merge builds the knowledge base from the tables, then adds aliases
// (alias name → canonical name). The first table naming a program wins;
// kb_test.go reports duplicates and aliases to nothing.
func merge(tables []map[string]*Program, aliases map[string]string) map[string]*Program {
	n := len(aliases)
	for _, t := range tables {
		n += len(t)
	}
	out := make(map[string]*Program, n)
	for _, t := range tables {
		for name, p := range t {
			if _, dup := out[name]; !dup {
				out[name] = p
			}
		}
	}
	for alias, canon := range aliases {
		if p, ok := out[canon]; ok {
			if _, dup := out[alias]; !dup {
				out[alias] = p
			}
		}
	}
	return out
}

// Flag shorthands used by the tables.
var (
	fBool   = Flag{}
	fVal    = Flag{Value: true}
	fRead   = Flag{Value: true, Role: RoleRead}
	fWrite  = Flag{Value: true, Role: RoleWrite}
	fRW     = Flag{Value: true, Role: RoleReadWrite}
	fDir    = Flag{Value: true, Role: RoleDir}
	fURL    = Flag{Value: true, Role: RoleURL}
	fHost   = Flag{Value: true, Role: RoleHost}
	fCode   = Flag{Value: true, Role: RoleCode}
	fShell  = Flag{Value: true, Role: RoleShellCode}
	fScript = Flag{Value: true, Role: RoleScript}
)

// tagged returns f producing tags whenever it is present.
func tagged(f Flag, tags ...TagKind) Flag {
	f.Tags = tags
	return f
}

// kbBad collects malformed flags() calls; kb_test.go requires it empty.
var kbBad []string

// flags builds a flag map from pairs: a string of space-separated
// spellings, then the Flag they share.
//
//	flags("-o --output", fWrite, shorts("rfv")+" --force", fBool)
func flags(pairs ...any) map[string]Flag {
	m := make(map[string]Flag, len(pairs))
	for i := 0; i+1 < len(pairs); i += 2 {
		names, ok1 := pairs[i].(string)
		f, ok2 := pairs[i+1].(Flag)
		if !ok1 || !ok2 {
			kbBad = append(kbBad, "flags: bad pair")
			continue
		}
		for _, n := range strings.Fields(names) {
			m[n] = f
		}
	}
	if len(pairs)%2 != 0 {
		kbBad = append(kbBad, "flags: odd number of arguments")
	}
	return m
}

// shorts spells each letter as a short flag: shorts("rf") = "-r -f".
func shorts(letters string) string {
	var b strings.Builder
	for i, r := range letters {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('-')
		b.WriteRune(r)
	}
	return b.String()
}

// with returns a copy of m with the pairs added (the pairs win).
func with(m map[string]Flag, pairs ...any) map[string]Flag {
	out := flags(pairs...)
	for k, v := range m {
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	return out
}

// readAll is the entry of a program that only reads its operands.
func readAll(fl map[string]Flag) *Program { return &Program{Flags: fl, Rest: RoleRead} }

// readMeta is the entry of a program that reads every operand and prints
// only digests or metadata of it (Program.NoContent).
func readMeta(fl map[string]Flag) *Program {
	return &Program{Flags: fl, Rest: RoleRead, NoContent: true}
}

// plain is the entry of a program whose operands are plain values.
func plain(fl map[string]Flag) *Program { return &Program{Flags: fl} }
