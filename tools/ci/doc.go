// Package ci holds the small programs that idkit's CI scripts in .ci/ run:
// modproxy (module zips served from a file:// proxy), licensecheck (the
// license detector pkg.go.dev uses) and vulnreport (govulncheck's JSON to a
// verdict). It is its own module so that idkit's go.mod never requires what
// they import; it is not published.
package ci
