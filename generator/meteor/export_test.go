package meteor

import "github.com/idkit-go/idkit/generator"

// NewSeeded is New with the key of the random low bits fixed, for
// reproducible tests.
func NewSeeded(nodeID int64, l Layout, seed uint64, opts ...generator.SharedOption) (*Generator, error) {
	return newGenerator(nodeID, l, &seed, opts)
}
