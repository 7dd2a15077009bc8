package graph

import "github.com/idkit-go/idkit/types"

// Post is the GraphQL type Post, bound in gqlgen.yml. Its keys are idkit
// types: gqlgen calls their MarshalGQL and UnmarshalGQL methods directly.
type Post struct {
	ID       types.ObjectID      // ObjectID!
	AuthorID types.Snowflake     // Snowflake!
	ParentID *types.ObjectID     // ObjectID, nullable: nil is null
	EditorID types.NullSnowflake // Snowflake, nullable: Valid false is null
	Title    string
}

// NewPost is the GraphQL input NewPost, bound in gqlgen.yml.
type NewPost struct {
	Title    string
	AuthorID types.Snowflake
	ParentID *types.ObjectID
	EditorID types.NullSnowflake
}
