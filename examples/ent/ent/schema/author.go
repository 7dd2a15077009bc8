// Package schema holds the ent schemas of the example: authors keyed by an
// ObjectID and books keyed by a Snowflake, each made by an idkit generator
// when the create does not set one.
package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"github.com/idkit-go/idkit/types"
)

// objectIDColumn is the column type of an ObjectID on each dialect: its 12
// raw bytes, as types.ObjectID's Value writes them.
var objectIDColumn = map[string]string{
	dialect.Postgres: "bytea",
	dialect.MySQL:    "binary(12)",
	dialect.SQLite:   "blob",
}

// Author is keyed by an ObjectID.
type Author struct {
	ent.Schema
}

// Fields of Author.
func (Author) Fields() []ent.Field {
	return []ent.Field{
		field.Other("id", types.ObjectID{}).
			SchemaType(objectIDColumn).
			Default(types.NewObjectID).
			Immutable(),
		field.String("name"),
	}
}

// Edges of Author.
func (Author) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("books", Book.Type),
	}
}
