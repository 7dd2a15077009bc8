// Package readmecheck holds the tests that keep README.md and docs/*.md
// true: every Go block compiles as it stands, the tables they include from
// generated files match those files, and their prose quotes no measured
// figure by hand.
//
// A Go block compiles when its code lines (blank and comment-only lines
// and trailing comments left out, runs of blanks made one) are, in order
// and with nothing between them, lines of one Go file of the repository,
// which CI builds and vets in its module: at the file's top level, or as
// the last lines of a function (so nothing after them can use a variable
// the block leaves unused), or anywhere when the block declares no
// variable. The function's parameters and the file's imports and types
// are what the block takes as given. Blocks that no example or test of
// their package holds are functions in snippets_test.go.
//
// A block meant as a fragment (a list of call forms with its variables
// left undeclared or unused, a few struct fields, a handler's middle) is
// marked by this HTML comment on the line before its fence:
//
//	<!-- readmecheck:fragment -->
//
// Each code line of a fragment must still be a line of a Go file of the
// repository. A reader does not see the marker, and README.md's length
// limit does not count it. It also checks the Go doc comments of the
// public packages: they quote no measured figure and link no repository
// path (see godoc_test.go).
package readmecheck
