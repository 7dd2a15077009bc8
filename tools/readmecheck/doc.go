// Package readmecheck holds the tests that keep README.md and docs/*.md
// true: every line of their Go code is a line of a Go file of the
// repository (which CI compiles in every module), the tables they include
// from generated files match those files, and their prose quotes no
// measured figure by hand. It also checks the Go doc comments of the
// public packages: they quote no measured figure and link no repository
// path (see godoc_test.go).
package readmecheck
