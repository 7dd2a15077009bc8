// Package graph is a small gqlgen GraphQL API over posts kept in memory,
// keyed by idkit IDs used as custom scalars. generated.go is written by
// gqlgen from schema.graphqls and ../gqlgen.yml; the rest is hand-written.
package graph

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// ErrNotFound is returned by resolvers for an ID that names no post.
var ErrNotFound = errors.New("graph: no such post")

// Resolver is the root resolver. It keeps posts in memory and makes their
// keys with an idkit ObjectID generator. It is safe for concurrent use.
type Resolver struct {
	ids   *generator.ObjectID
	mu    sync.Mutex
	posts []*Post // in creation order, so in ObjectID order
}

// NewResolver returns a Resolver holding no posts.
func NewResolver() (*Resolver, error) {
	g, err := generator.NewObjectID()
	if err != nil {
		return nil, err
	}
	return &Resolver{ids: g}, nil
}

// Query returns the Query resolver.
func (r *Resolver) Query() QueryResolver { return queryResolver{r} }

// Mutation returns the Mutation resolver.
func (r *Resolver) Mutation() MutationResolver { return mutationResolver{r} }

type queryResolver struct{ *Resolver }

type mutationResolver struct{ *Resolver }

// find returns a copy of the post keyed id, or nil. r.mu must be held.
func (r *Resolver) find(id types.ObjectID) *Post {
	for _, p := range r.posts {
		if p.ID == id {
			c := *p
			return &c
		}
	}
	return nil
}

func (r queryResolver) Post(_ context.Context, id types.ObjectID) (*Post, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.find(id), nil
}

func (r queryResolver) Posts(_ context.Context, ids []types.ObjectID) ([]*Post, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Post, 0, len(ids))
	for _, id := range ids {
		if p := r.find(id); p != nil {
			out = append(out, p)
		}
	}
	return out, nil
}

func (r queryResolver) PostsByAuthor(_ context.Context, author types.Snowflake) ([]*Post, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*Post
	for _, p := range r.posts {
		if p.AuthorID == author {
			c := *p
			out = append(out, &c)
		}
	}
	return out, nil
}

func (r mutationResolver) CreatePost(_ context.Context, in NewPost) (*Post, error) {
	if in.AuthorID.IsZero() {
		return nil, fmt.Errorf("%w: authorID must not be zero", types.ErrInvalidSnowflake)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if in.ParentID != nil && r.find(*in.ParentID) == nil {
		return nil, fmt.Errorf("%w: parent %s", ErrNotFound, in.ParentID)
	}
	p := &Post{ID: r.ids.Next(), AuthorID: in.AuthorID, ParentID: in.ParentID, EditorID: in.EditorID, Title: in.Title}
	r.posts = append(r.posts, p)
	c := *p
	return &c, nil
}

// SetEditor sets or, given null, clears a post's editor. A nullable
// argument arrives as a pointer (gqlgen's convention); the stored field is
// the Null form.
func (r mutationResolver) SetEditor(_ context.Context, id types.ObjectID, editor *types.Snowflake) (*Post, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.IndexFunc(r.posts, func(p *Post) bool { return p.ID == id })
	if i < 0 {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	r.posts[i].EditorID = types.NullSnowflake{}
	if editor != nil {
		r.posts[i].EditorID = types.NullSnowflake{ID: *editor, Valid: true}
	}
	c := *r.posts[i]
	return &c, nil
}
