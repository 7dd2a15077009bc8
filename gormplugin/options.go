package gormplugin

import (
	"fmt"

	"github.com/idkit-go/idkit/generator"
)

// Option configures a [Plugin]; see [New].
type Option func(*Plugin) error

// WithSnowflake makes the plugin fill Snowflake keys from g, for example a
// leased generator from node.NewSnowflake, which keeps the lease's fence and
// floor. A nil g is an [ErrInvalidConfig]
// error at db.Use.
func WithSnowflake(g *generator.Snowflake) Option {
	return func(p *Plugin) error {
		if g == nil {
			return fmt.Errorf("%w: nil snowflake generator", ErrInvalidConfig)
		}
		p.snowflake = g
		return nil
	}
}

// WithNode makes the plugin fill Snowflake keys from a new generator for
// node, made by [generator.NewSnowflake] with opts (for example
// [generator.WithLayout]). Its errors (such as
// [generator.ErrNodeOutOfRange]) are returned by db.Use, wrapped in
// [ErrInvalidConfig].
func WithNode(node int64, opts ...generator.SnowflakeOption) Option {
	return func(p *Plugin) error {
		g, err := generator.NewSnowflake(node, opts...)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
		}
		p.snowflake = g
		return nil
	}
}

// WithObjectID makes the plugin fill ObjectID keys from g instead of the
// process default ([generator.DefaultObjectID]). A nil g is an
// [ErrInvalidConfig] error at db.Use.
func WithObjectID(g *generator.ObjectID) Option {
	return func(p *Plugin) error {
		if g == nil {
			return fmt.Errorf("%w: nil objectid generator", ErrInvalidConfig)
		}
		p.objectID = g
		return nil
	}
}

// WithNodeSource makes db.Use ask src for the node ID (with the context of
// the *gorm.DB being registered) and fill Snowflake keys from a new
// generator for it, made by [generator.NewSnowflake] with opts. If src
// fails, db.Use returns an error wrapping [ErrNoSnowflakeGenerator] and the
// source's error (for the sources in package node,
// [github.com/idkit-go/idkit/generator/node.ErrNoNodeID]); a node the layout cannot hold wraps
// [ErrInvalidConfig]. A plugin registered on several *gorm.DB asks src once.
func WithNodeSource(src generator.NodeSource, opts ...generator.SnowflakeOption) Option {
	return func(p *Plugin) error {
		if src == nil {
			return fmt.Errorf("%w: nil node source", ErrInvalidConfig)
		}
		p.nodeSource, p.nodeOpts = src, opts
		return nil
	}
}
