// Command licensecheck runs github.com/google/licensecheck, the detector
// pkg.go.dev uses, on each file named and fails unless exactly one license,
// MIT, is found and it covers the file.
//
// Usage: licensecheck FILE...
package main

import (
	"fmt"
	"os"

	"github.com/google/licensecheck"
)

// minPercent is the share of the file the license must cover; pkg.go.dev
// accepts a license file whose text is mostly one license.
const minPercent = 90

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: licensecheck FILE...")
		os.Exit(2)
	}
	status := 0
	for _, name := range os.Args[1:] {
		text, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "licensecheck:", err)
			status = 1
			continue
		}
		cov := licensecheck.Scan(text)
		var ids []string
		for _, m := range cov.Match {
			ids = append(ids, m.ID)
		}
		if len(cov.Match) != 1 || cov.Match[0].ID != "MIT" || cov.Percent < minPercent {
			fmt.Fprintf(os.Stderr, "licensecheck: %s: want exactly one license, MIT, covering at least %d%%; found %v covering %.1f%%\n", name, minPercent, ids, cov.Percent)
			status = 1
			continue
		}
		fmt.Printf("licensecheck: %s: %s, %.1f%% of the file\n", name, ids[0], cov.Percent)
	}
	os.Exit(status)
}
