//go:build go1.27

package bench

import "uuid"

// The standard library's uuid package arrived in Go 1.27; the module stays
// at go 1.26, so these rows appear only when the benchmarks are built with
// Go 1.27 or later (GOTOOLCHAIN=go1.27.4 in this module).
func init() {
	stdGenerators = append(stdGenerators, struct {
		name string
		next func() byte
	}{"UUIDv7/std", func() byte { return uuid.NewV7()[15] }})
}
