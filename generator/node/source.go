package node

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/idkit-go/idkit/generator"
)

// sourceFunc adapts a function to [generator.NodeSource].
type sourceFunc func(ctx context.Context) (int64, error)

func (f sourceFunc) NodeID(ctx context.Context) (int64, error) { return f(ctx) }

// FromEnv returns a source that parses the environment variable name as a
// non-negative decimal integer on each NodeID call; anything else gives an
// error wrapping [ErrNoNodeID].
func FromEnv(name string) generator.NodeSource {
	return sourceFunc(func(context.Context) (int64, error) {
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
