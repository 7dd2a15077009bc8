// Package readmecheck holds the tests that keep README.md's Go code true:
// every code line of the README outside its GORM section (which package
// gormplugin checks) is a line of snippets_test.go, which compiles.
package readmecheck
