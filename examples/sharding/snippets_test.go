//lint:file-ignore U1000 the docs' snippets are compiled here, never called

package sharding_test

import (
	"gorm.io/gorm"
	"gorm.io/sharding"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/gormplugin"
)

// The configuration docs/integrations.md shows, compiled here so the docs
// stay true (sharding_test.go runs the same on real servers).

func shardSnip(db *gorm.DB, n int64, byUser func(any) (string, error), suffixes func() []string) {
	node := n
	g, _ := generator.NewSnowflake(node)
	db.Use(gormplugin.New(gormplugin.WithSnowflake(g)))
	db.Use(sharding.Register(sharding.Config{
		ShardingKey:           "user_id",
		NumberOfShards:        4,
		ShardingAlgorithm:     byUser,   // func(any) (string, error): "_0" .. "_3"
		ShardingSuffixs:       suffixes, // func() []string: "_0" .. "_3"
		PrimaryKeyGenerator:   sharding.PKCustom,
		PrimaryKeyGeneratorFn: func(int64) int64 { return int64(g.MustNext()) },
	}, "orders"))
}
