package gormplugin

import (
	"fmt"

	"github.com/idkit-go/idkit/generator"
)

// Option configures a [Plugin]; see [New]. An option that cannot be used
// makes db.Use fail with an error wrapping [generator.ErrInvalidConfig].
type Option struct {
	apply func(*Plugin) error
}

// WithSnowflake makes the plugin fill Snowflake keys from g, for example a
// leased generator from node.NewSnowflake. A nil g means the default: no
// Snowflake generator.
func WithSnowflake(g *generator.Snowflake) Option {
	return Option{func(p *Plugin) error {
		p.snowflake = g
		return nil
	}}
}

// WithNode makes the plugin fill Snowflake keys from a new generator for
// node, made by [generator.NewSnowflake] with opts. Its errors (such as
// [generator.ErrNodeOutOfRange]) are returned by db.Use, wrapped in
// [generator.ErrInvalidConfig]. To take the node from a [generator.NodeSource], call
// its NodeID method and pass the result.
func WithNode(node int64, opts ...generator.SnowflakeOption) Option {
	return Option{func(p *Plugin) error {
		g, err := generator.NewSnowflake(node, opts...)
		if err != nil {
			return fmt.Errorf("%w: %w", generator.ErrInvalidConfig, err)
		}
		p.snowflake = g
		return nil
	}}
}

// WithObjectID makes the plugin fill ObjectID keys from g instead of
// [generator.DefaultObjectID]. A nil g means the default.
func WithObjectID(g *generator.ObjectID) Option {
	return Option{func(p *Plugin) error {
		p.objectID = g
		return nil
	}}
}
