//lint:file-ignore U1000 the docs' snippets are compiled here, never called

package main

import (
	"entgo.io/ent/dialect"
	"entgo.io/ent/schema/field"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// The ent fields the README and docs/integrations.md show (the schema in
// ent/schema declares the same), compiled here so the docs stay true.

var bookIDs *generator.Snowflake

func entSnip() {
	_ = []any{
		field.Other("id", types.ObjectID{}).
			SchemaType(map[string]string{dialect.Postgres: "bytea", dialect.MySQL: "binary(12)", dialect.SQLite: "blob"}).
			Default(types.NewObjectID).
			Immutable(),

		field.Int64("id").
			GoType(types.Snowflake(0)).
			DefaultFunc(func() types.Snowflake { return bookIDs.MustNext() }). // a *generator.Snowflake
			Positive().
			Immutable(),
	}
}
