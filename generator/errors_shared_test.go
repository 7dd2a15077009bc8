package generator_test

import (
	"errors"
	"testing"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/segment"
)

// Every idkit package's ErrInvalidConfig is one value, so a caller may test
// a configuration error from any constructor against any package's name.
func TestErrInvalidConfigIsShared(t *testing.T) {
	_, err := generator.NewSnowflake(0, generator.WithBackwardTolerance(-1))
	for name, target := range map[string]error{
		"generator": generator.ErrInvalidConfig,
		"node":      node.ErrInvalidConfig,
		"segment":   segment.ErrInvalidConfig,
	} {
		if !errors.Is(err, target) {
			t.Errorf("errors.Is(%v, %s.ErrInvalidConfig) = false", err, name)
		}
	}
}
