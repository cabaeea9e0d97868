package convention

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// SharedTables walks the Go sources under root (tests, testdata and
// hidden directories aside) and returns every exported package-level
// variable that is not an error sentinel, every exported function that
// returns a package-level variable itself, and every write to a
// package-level variable from a function other than a sync.Once's (see
// writers).
func SharedTables(root string) ([]Finding, error) {
	pkgs := map[string][]*ast.File{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return fmt.Errorf("parse %s: %w", p, err)
		}
		if ast.IsGenerated(f) {
			return nil // protoc's output: its tables are the generator's, not ours to shape
		}
		dir := filepath.Dir(p)
		pkgs[dir] = append(pkgs[dir], f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, files := range pkgs {
		out = append(out, checkPackage(fset, files)...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pos < out[j].Pos })
	return out, nil
}

// checkPackage checks one package's files.
func checkPackage(fset *token.FileSet, files []*ast.File) []Finding {
	var out []Finding
	vars := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					vars[n.Name] = true
					if n.IsExported() && !sentinel(vs, i) {
						out = append(out, Finding{fset.Position(n.Pos()).String(),
							"exported variable " + n.Name + ": a table any importer can change; unexport it behind a function"})
					}
				}
			}
		}
	}
	out = append(out, writes(fset, files, vars)...)
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() || fn.Body == nil || !sharesResult(fn.Type) {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return false
				case *ast.ReturnStmt:
					for _, r := range n.Results {
						if v := packageVar(r, vars); v != "" {
							out = append(out, Finding{fset.Position(r.Pos()).String(),
								"func " + fn.Name.Name + " returns package variable " + v + " itself; return a copy"})
						}
					}
				}
				return true
			})
		}
	}
	return out
}

// sentinel reports whether the i-th name of vs is an error sentinel: a
// name starting with Err given errors.New, fmt.Errorf or another
// package's sentinel.
func sentinel(vs *ast.ValueSpec, i int) bool {
	if !strings.HasPrefix(vs.Names[i].Name, "Err") || i >= len(vs.Values) {
		return false
	}
	switch v := vs.Values[i].(type) {
	case *ast.CallExpr:
		sel, ok := v.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		return ok && (pkg.Name == "errors" && sel.Sel.Name == "New" || pkg.Name == "fmt" && sel.Sel.Name == "Errorf")
	case *ast.SelectorExpr:
		return strings.HasPrefix(v.Sel.Name, "Err")
	}
	return false
}

// sharesResult reports whether a function type returns something a
// caller could change in place: a slice, a map or a pointer.
func sharesResult(t *ast.FuncType) bool {
	if t.Results == nil {
		return false
	}
	for _, r := range t.Results.List {
		switch x := r.Type.(type) {
		case *ast.MapType, *ast.StarExpr:
			return true
		case *ast.ArrayType:
			if x.Len == nil {
				return true
			}
		}
	}
	return false
}

// packageVar names the package-level variable e hands out itself: the
// variable, the value of a variable holding a function (sync.OnceValue),
// an element of either, or a slice of either. It is "" otherwise.
func packageVar(e ast.Expr, vars map[string]bool) string {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.SliceExpr:
			e = x.X
		case *ast.UnaryExpr:
			if x.Op != token.AND {
				return ""
			}
			e = x.X
		case *ast.CallExpr:
			if len(x.Args) != 0 {
				return ""
			}
			e = x.Fun
		case *ast.Ident:
			if vars[x.Name] {
				return x.Name
			}
			return ""
		default:
			return ""
		}
	}
}

// writers are the package-level variables that functions may change
// outside a sync.Once, by package and name, with the reason.
var writers = map[string]string{
	"shell.kbBad":           "collects malformed flags() calls while the knowledge base is built; a test requires it empty",
	"shield.unrecordedByWS": "process state behind unrecordedMu (the sessions whose taint is not recorded yet), not a table",
}

// writes returns every assignment, increment, delete or clear of a
// package-level variable (or of an element or field of one) inside a
// function, unless it is in a function literal given to a Do method (a
// sync.Once building the table once) or the variable is in writers.
func writes(fset *token.FileSet, files []*ast.File, vars map[string]bool) []Finding {
	top := map[*ast.ValueSpec]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, s := range g.Specs {
					top[s.(*ast.ValueSpec)] = true
				}
			}
		}
	}
	var out []Finding
	for _, f := range files {
		pkg := f.Name.Name
		target := func(e ast.Expr) string {
			v := rootIdent(e)
			if v == nil || v.Name == "_" || !vars[v.Name] || writers[pkg+"."+v.Name] != "" {
				return ""
			}
			if v.Obj == nil { // declared in another file of the package
				return v.Name
			}
			if vs, ok := v.Obj.Decl.(*ast.ValueSpec); ok && top[vs] {
				return v.Name
			}
			return ""
		}
		report := func(n ast.Node, v, how string) {
			out = append(out, Finding{fset.Position(n.Pos()).String(),
				how + " package variable " + v + " after start; build it once (sync.Once, sync.OnceValue) or keep it unchanged"})
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			var once []*ast.FuncLit // function literals given to a Do method
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.CallExpr:
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Do" {
						for _, a := range x.Args {
							if lit, ok := a.(*ast.FuncLit); ok {
								once = append(once, lit)
							}
						}
					}
					if id, ok := x.Fun.(*ast.Ident); ok && (id.Name == "delete" || id.Name == "clear") && len(x.Args) > 0 && !inside(x, once) {
						if v := target(x.Args[0]); v != "" {
							report(x, v, id.Name+" of")
						}
					}
				case *ast.AssignStmt:
					if x.Tok == token.DEFINE || inside(x, once) {
						return true
					}
					for _, l := range x.Lhs {
						if v := target(l); v != "" {
							report(l, v, "write to")
						}
					}
				case *ast.IncDecStmt:
					if v := target(x.X); v != "" && !inside(x, once) {
						report(x, v, "write to")
					}
				}
				return true
			})
		}
	}
	return out
}

// rootIdent is the variable an assignment target starts from: m in
// m[k], s.f, *p, (x).
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.IndexExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x
		default:
			return nil
		}
	}
}

// inside reports whether n lies within one of the function literals.
func inside(n ast.Node, lits []*ast.FuncLit) bool {
	for _, l := range lits {
		if l.Pos() <= n.Pos() && n.End() <= l.End() {
			return true
		}
	}
	return false
}
