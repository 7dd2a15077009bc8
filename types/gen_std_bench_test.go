//go:build go1.27

package types_test

import "uuid"

// The standard library's uuid package arrived in Go 1.27; the module stays
// at go 1.26, so this row appears only when the tests are built with Go
// 1.27 or later (GOTOOLCHAIN=go1.27.4).
func init() {
	genPeers = append(genPeers, struct {
		name string
		next func() byte
	}{"UUIDv7/std", func() byte { return uuid.NewV7()[15] }})
}
