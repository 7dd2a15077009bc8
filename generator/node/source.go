package node

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Source yields a node ID. Implementations in this package are safe for
// concurrent use.
type Source interface {
	// NodeID returns a node ID, or an error explaining why there is none.
	NodeID(ctx context.Context) (int64, error)
}

// SourceFunc adapts a function to [Source].
type SourceFunc func(ctx context.Context) (int64, error)

// NodeID calls f.
func (f SourceFunc) NodeID(ctx context.Context) (int64, error) { return f(ctx) }

// Static returns a [Source] that always yields id. A negative id gives an
// error wrapping [ErrNoNodeID]; range against a layout is checked by the
// generator (generator.ErrNodeOutOfRange).
func Static(id int64) Source {
	return SourceFunc(func(context.Context) (int64, error) {
		if id < 0 {
			return 0, fmt.Errorf("%w: negative static id %d", ErrNoNodeID, id)
		}
		return id, nil
	})
}

// FromEnv returns a [Source] that parses the environment variable name as a
// non-negative decimal integer each time NodeID is called. An unset, empty,
// unparsable or negative value gives an error wrapping [ErrNoNodeID].
func FromEnv(name string) Source {
	return SourceFunc(func(context.Context) (int64, error) {
		v, ok := os.LookupEnv(name)
		v = strings.TrimSpace(v)
		if !ok || v == "" {
			return 0, fmt.Errorf("%w: environment variable %s is not set", ErrNoNodeID, name)
		}
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id < 0 {
			return 0, fmt.Errorf("%w: %s=%q is not a non-negative integer", ErrNoNodeID, name, v)
		}
		return id, nil
	})
}
