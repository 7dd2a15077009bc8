package generator_test

import (
	"errors"
	"testing"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/segment"
)

// generator.ErrInvalidConfig is also named by the two packages that do not
// import generator (segment, which must compile no GORM, and publicid): one
// value, so a caller may test a configuration error from any constructor
// against any of these names.
func TestErrInvalidConfigIsShared(t *testing.T) {
	_, err := generator.NewSnowflake(0, generator.WithBackwardTolerance(-1))
	for name, target := range map[string]error{
		"generator": generator.ErrInvalidConfig,
		"segment":   segment.ErrInvalidConfig,
	} {
		if !errors.Is(err, target) {
			t.Errorf("errors.Is(%v, %s.ErrInvalidConfig) = false", err, name)
		}
	}
}
