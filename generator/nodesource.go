package generator

import "context"

// NodeSource yields a node ID for [NewSnowflake] (or a meteor generator):
// package [github.com/idkit-go/idkit/generator/node] has sources from a
// constant, the environment, a StatefulSet ordinal, the private IP and a
// database registry. It lives here, beside the generators that use it, so
// that code taking a source compiles no lease or SQL code. Implementations
// in idkit are safe for concurrent use.
type NodeSource interface {
	// NodeID returns a node ID, or an error explaining why there is none.
	NodeID(ctx context.Context) (int64, error)
}

// NodeSourceFunc adapts a function to [NodeSource].
type NodeSourceFunc func(ctx context.Context) (int64, error)

// NodeID calls f.
func (f NodeSourceFunc) NodeID(ctx context.Context) (int64, error) { return f(ctx) }
