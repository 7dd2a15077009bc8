// Command apicount prints, for each public idkit package, how many exported
// declarations `go doc -all` shows for it (the packages are those
// repo.PublicPackages lists in every published module, as .ci/modules
// lists them): every exported package-level
// constant, variable, function and type (each name in a grouped const or var
// declaration counts once), plus every exported method of an exported type,
// including methods go doc lists as promoted from an unexported embedded
// field. Struct fields and interface methods are counted separately, in the
// fields column; they are not declarations. Test files, main packages and
// internal packages are skipped: they are not API.
//
// For each package it also prints the lines `go doc -all` prints and those
// lines per declaration (the doc column divided by the decls column), and
// the same over all the packages together.
//
// It is in the tools module: run it with go run ./apicount in tools/ (or
// go -C tools run ./apicount, or .ci/api-count, from the root).
package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	pathpkg "path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/idkit-go/idkit/tools/internal/repo"
)

const module = repo.Module

type count struct{ consts, vars, funcs, types, methods, fields, doc int }

func (c count) decls() int { return c.consts + c.vars + c.funcs + c.types + c.methods }

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "apicount:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	if err := os.Chdir(root); err != nil {
		return err
	}
	paths, err := publishedPackages(root)
	if err != nil {
		return err
	}
	counts := map[string]count{}
	for _, p := range paths {
		c, _, err := countDir(p)
		if err != nil {
			return err
		}
		if c.doc, err = docLines(p); err != nil {
			return err
		}
		counts[p] = c
	}
	var total count
	fmt.Println("| package | decls | const | var | func | type | method | fields | doc lines | doc lines/decl |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, p := range paths {
		c := counts[p]
		fmt.Printf("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n", p, c.decls(), c.consts, c.vars, c.funcs, c.types, c.methods, c.fields, c.doc, perDecl(c))
		total.consts += c.consts
		total.vars += c.vars
		total.funcs += c.funcs
		total.types += c.types
		total.methods += c.methods
		total.fields += c.fields
		total.doc += c.doc
	}
	fmt.Printf("| total (%d packages) | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n", len(paths), total.decls(),
		total.consts, total.vars, total.funcs, total.types, total.methods, total.fields, total.doc, perDecl(total))
	return nil
}

// perDecl formats c's doc lines per declaration with two decimals.
func perDecl(c count) string {
	if c.decls() == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(c.doc)/float64(c.decls()))
}

// publishedPackages returns the public packages (see repo.PublicPackages) of
// every published module: the root and the nested modules outside
// examples/, tests/, bench/ and tools/ (as .ci/modules lists them), as
// directories relative to root, sorted.
func publishedPackages(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch name := d.Name(); {
		case rel == ".":
		case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" ||
			rel == "examples" || rel == "tests" || rel == "bench" || rel == "tools":
			return filepath.SkipDir
		default:
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err != nil {
				return nil // a package of the module being walked
			}
		}
		pkgs, err := repo.PublicPackages(path)
		if err != nil {
			return err
		}
		for _, p := range pkgs {
			dirs = append(dirs, pathpkg.Join(rel, p))
		}
		return nil
	})
	sort.Strings(dirs)
	return dirs, err
}

// moduleDir returns the directory of the module that holds dir, both
// relative to the working directory (the root module's directory).
func moduleDir(dir string) string {
	for d := dir; d != "." && d != "/"; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
	}
	return "."
}

// docLines returns the number of lines `go doc -all` prints for the package
// in dir, a directory relative to the root module's directory (the working
// directory), run in the module that holds dir.
func docLines(dir string) (int, error) {
	mod := moduleDir(dir)
	rel, err := filepath.Rel(mod, dir)
	if err != nil {
		return 0, err
	}
	cmd := exec.Command("go", "doc", "-all", "./"+filepath.ToSlash(rel))
	cmd.Dir = mod
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("go doc -all ./%s: %w", filepath.ToSlash(dir), err)
	}
	return strings.Count(string(out), "\n"), nil
}

// countDir counts the exported declarations of the non-main package in dir,
// in the files that build for the host (go/build's default context); ok is
// false when dir holds no such package.
func countDir(dir string) (c count, ok bool, err error) {
	bp, err := build.ImportDir(dir, 0)
	var noGo *build.NoGoError
	if errors.As(err, &noGo) {
		return c, false, nil
	}
	if err != nil {
		return c, false, err
	}
	if bp.Name == "main" {
		return c, false, nil
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range append(bp.GoFiles, bp.CgoFiles...) {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return c, false, err
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, module+"/"+filepath.ToSlash(dir))
	if err != nil {
		return c, false, err
	}
	ok = true
	values := func(vs []*doc.Value) (n int) {
		for _, v := range vs {
			for _, s := range v.Decl.Specs {
				for _, id := range s.(*ast.ValueSpec).Names {
					if id.IsExported() {
						n++
					}
				}
			}
		}
		return n
	}
	c.consts += values(p.Consts)
	c.vars += values(p.Vars)
	c.funcs += len(p.Funcs)
	for _, t := range p.Types {
		c.types++
		c.consts += values(t.Consts)
		c.vars += values(t.Vars)
		c.funcs += len(t.Funcs)
		c.methods += len(t.Methods)
		for _, s := range t.Decl.Specs {
			switch tt := s.(*ast.TypeSpec).Type.(type) {
			case *ast.StructType:
				c.fields += exportedFields(tt.Fields)
			case *ast.InterfaceType:
				c.fields += exportedFields(tt.Methods)
			}
		}
	}
	return c, ok, nil
}

func exportedFields(fl *ast.FieldList) (n int) {
	for _, f := range fl.List {
		if len(f.Names) == 0 { // embedded
			n++
			continue
		}
		for _, id := range f.Names {
			if id.IsExported() {
				n++
			}
		}
	}
	return n
}
