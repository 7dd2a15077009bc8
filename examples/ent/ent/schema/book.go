package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// BookIDs makes the keys of new books. It is a generator on node 0; an
// application running several processes replaces it once at startup, before
// any create, with a generator on a node of its own (for example a leased
// one), so no two processes share a node.
var BookIDs = mustSnowflake(generator.NewSnowflake(0))

func mustSnowflake(g *generator.Snowflake, err error) *generator.Snowflake {
	if err != nil {
		panic(err)
	}
	return g
}

func nextBookID() types.Snowflake { return BookIDs.MustNext() }

// Book is keyed by a Snowflake (a BIGINT, no sequence) and belongs to an
// author through author_id, an ObjectID column.
type Book struct {
	ent.Schema
}

// Fields of Book.
func (Book) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id").
			GoType(types.Snowflake(0)).
			DefaultFunc(nextBookID).
			Positive().
			Immutable(),
		field.Other("author_id", types.ObjectID{}).
			SchemaType(objectIDColumn),
		field.Other("editor_id", types.NullObjectID{}).
			SchemaType(objectIDColumn).
			Optional(),
		field.String("title"),
	}
}

// Edges of Book.
func (Book) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("author", Author.Type).
			Ref("books").
			Field("author_id").
			Unique().
			Required(),
	}
}
