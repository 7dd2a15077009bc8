package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/idkit-go/idkit/types"
)

// server runs the example's real handler behind HTTP. Every error a resolver
// or scalar returns is kept (before gqlgen turns it into JSON) so tests can
// check it with errors.Is; a panic anywhere fails the test.
type server struct {
	t    *testing.T
	url  string
	mu   sync.Mutex
	errs []error
}

func newServer(t *testing.T) *server {
	t.Helper()
	h, err := newHandler()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t}
	h.SetErrorPresenter(func(ctx context.Context, err error) *gqlerror.Error {
		s.mu.Lock()
		s.errs = append(s.errs, err)
		s.mu.Unlock()
		return graphql.DefaultErrorPresenter(ctx, err)
	})
	h.SetRecoverFunc(func(_ context.Context, p any) error {
		t.Errorf("panic in the GraphQL handler: %v", p)
		return errors.New("internal system error")
	})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	s.url = ts.URL
	return s
}

// reply is a GraphQL response: data kept raw so tests see the exact JSON
// each scalar wrote.
type reply struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message string `json:"message"`
		Path    []any  `json:"path"`
	} `json:"errors"`
	raw string
}

// do POSTs a query with variables (a JSON object, or "") and decodes the
// reply; it fails the test on transport errors only.
func (s *server) do(query, variables string) reply {
	s.t.Helper()
	body := map[string]json.RawMessage{"query": mustJSON(s.t, query)}
	if variables != "" {
		body["variables"] = json.RawMessage(variables)
	}
	resp, err := http.Post(s.url, "application/json", bytes.NewReader(mustJSON(s.t, body)))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		s.t.Fatal(err)
	}
	var r reply
	if err := json.Unmarshal(buf.Bytes(), &r); err != nil {
		s.t.Fatalf("status %d, body %s: %v", resp.StatusCode, buf.String(), err)
	}
	r.raw = buf.String()
	return r
}

// ok is do for a request that must succeed.
func (s *server) ok(query, variables string) reply {
	s.t.Helper()
	r := s.do(query, variables)
	if len(r.Errors) > 0 {
		s.t.Fatalf("errors: %s", r.raw)
	}
	return r
}

// takeErrs returns the Go errors seen since the last call.
func (s *server) takeErrs() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.errs
	s.errs = nil
	return e
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type post struct {
	ID       types.ObjectID
	AuthorID types.Snowflake
	ParentID *types.ObjectID
	EditorID types.NullSnowflake
	Title    string
}

// field decodes data.<name> of r into v with the idkit types' own JSON
// decoding.
func field(t *testing.T, r reply, name string, v any) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r.Data, &m); err != nil {
		t.Fatalf("data %s: %v", r.Data, err)
	}
	if err := json.Unmarshal(m[name], v); err != nil {
		t.Fatalf("data.%s %s: %v", name, m[name], err)
	}
}

const fields = `{ id authorID parentID editorID title }`

// big is above 2^53, where a float64 (a JavaScript number) loses digits.
const big = types.Snowflake(1541815603606036481)

func TestGraphQL(t *testing.T) {
	s := newServer(t)

	// Arguments as literals in the query: the Snowflake as a number literal.
	r := s.ok(`mutation { createPost(input: {title: "first", authorID: 1541815603606036481}) `+fields+` }`, "")
	var first post
	field(t, r, "createPost", &first)
	if first.ID.IsZero() || first.AuthorID != big || first.ParentID != nil || first.EditorID.Valid || first.Title != "first" {
		t.Fatalf("created %+v from %s", first, r.raw)
	}
	// In results an ObjectID is 24 hex digits and a Snowflake a string.
	want := fmt.Sprintf(`{"createPost":{"id":"%s","authorID":"1541815603606036481","parentID":null,"editorID":null,"title":"first"}}`, first.ID)
	if string(r.Data) != want {
		t.Fatalf("data\n got %s\nwant %s", r.Data, want)
	}

	// Arguments as variables: the author as a decimal string, the parent
	// an ObjectID, the editor a JSON number (gqlgen reads variables with
	// json.Number, so no digit is lost above 2^53).
	r = s.ok(`mutation($in: NewPost!) { createPost(input: $in) `+fields+` }`,
		fmt.Sprintf(`{"in": {"title": "reply", "authorID": "1541815603606036481", "parentID": %q, "editorID": 9007199254740993}}`, first.ID))
	var second post
	field(t, r, "createPost", &second)
	if second.ID.Compare(first.ID) <= 0 || second.AuthorID != big || second.ParentID == nil || *second.ParentID != first.ID ||
		second.EditorID != (types.NullSnowflake{ID: 9007199254740993, Valid: true}) {
		t.Fatalf("created %+v from %s", second, r.raw)
	}
	if !strings.Contains(string(r.Data), `"editorID":"9007199254740993"`) {
		t.Fatalf("editorID not the exact decimal string: %s", r.Data)
	}

	// A third post by another author, the author a string literal.
	r = s.ok(`mutation { createPost(input: {title: "other", authorID: "7", editorID: null}) `+fields+` }`, "")
	var third post
	field(t, r, "createPost", &third)
	if third.AuthorID != 7 || third.EditorID.Valid {
		t.Fatalf("created %+v", third)
	}

	// Lookups by ObjectID: literal, variable, list variable.
	for _, c := range []struct{ query, vars string }{
		{fmt.Sprintf(`{ post(id: %q) `+fields+` }`, second.ID), ""},
		{`query($id: ObjectID!) { post(id: $id) ` + fields + ` }`, fmt.Sprintf(`{"id": %q}`, second.ID)},
	} {
		var got post
		field(t, s.ok(c.query, c.vars), "post", &got)
		if got.ID != second.ID || got.AuthorID != second.AuthorID || got.ParentID == nil || *got.ParentID != first.ID ||
			got.EditorID != second.EditorID || got.Title != second.Title {
			t.Errorf("%s: got %+v, want %+v", c.query, got, second)
		}
	}
	var list []post
	field(t, s.ok(`query($ids: [ObjectID!]!) { posts(ids: $ids) { id } }`,
		fmt.Sprintf(`{"ids": [%q, %q, "000000000000000000000000"]}`, third.ID, first.ID)), "posts", &list)
	if len(list) != 2 || list[0].ID != third.ID || list[1].ID != first.ID {
		t.Errorf("posts: %+v", list)
	}
	var none *post
	field(t, s.ok(`{ post(id: "ffffffffffffffffffffffff") { id } }`, ""), "post", &none)
	if none != nil {
		t.Errorf("unknown ID found %+v", none)
	}

	// Lookups by Snowflake, in every form a client sends one.
	for _, c := range []struct{ query, vars string }{
		{`{ postsByAuthor(authorID: 1541815603606036481) { id } }`, ""},
		{`{ postsByAuthor(authorID: "1541815603606036481") { id } }`, ""},
		{`query($a: Snowflake!) { postsByAuthor(authorID: $a) { id } }`, `{"a": "1541815603606036481"}`},
		{`query($a: Snowflake!) { postsByAuthor(authorID: $a) { id } }`, `{"a": 1541815603606036481}`},
	} {
		var got []post
		field(t, s.ok(c.query, c.vars), "postsByAuthor", &got)
		if len(got) != 2 || got[0].ID != first.ID || got[1].ID != second.ID {
			t.Errorf("%s %s: got %+v", c.query, c.vars, got)
		}
	}

	// A nullable argument: set, then clear with null.
	var edited post
	field(t, s.ok(fmt.Sprintf(`mutation { setEditor(id: %q, editorID: "12") `+fields+` }`, first.ID), ""), "setEditor", &edited)
	if edited.EditorID != (types.NullSnowflake{ID: 12, Valid: true}) {
		t.Errorf("setEditor 12: %+v", edited)
	}
	field(t, s.ok(`mutation($id: ObjectID!) { setEditor(id: $id, editorID: null) `+fields+` }`,
		fmt.Sprintf(`{"id": %q}`, first.ID)), "setEditor", &edited)
	if edited.EditorID.Valid {
		t.Errorf("setEditor null: %+v", edited)
	}
	if errs := s.takeErrs(); len(errs) > 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
}

// Bad IDs, as literals and as variables, give a GraphQL error that names
// the input and wraps the type's sentinel; nothing panics and nothing is
// stored.
func TestGraphQLBadIDs(t *testing.T) {
	s := newServer(t)
	for _, c := range []struct {
		name, query, vars string
		sentinel          error
		mention           string // must appear in the error message
	}{
		{"ObjectID not hex", `{ post(id: "zzzzzzzzzzzzzzzzzzzzzzzz") { id } }`, "", types.ErrInvalidObjectID, "zzzzzzzzzzzzzzzzzzzzzzzz"},
		{"ObjectID short", `{ post(id: "abc123") { id } }`, "", types.ErrInvalidObjectID, "abc123"},
		{"ObjectID number", `{ post(id: 123456) { id } }`, "", types.ErrInvalidObjectID, "123456"},
		{"ObjectID variable", `query($id: ObjectID!) { post(id: $id) { id } }`, `{"id": "632c6d93d65f74baeb22a2cX"}`, types.ErrInvalidObjectID, "632c6d93d65f74baeb22a2cX"},
		{"ObjectID in list", `query($ids: [ObjectID!]!) { posts(ids: $ids) { id } }`, `{"ids": ["632c6d93d65f74baeb22a2c9", "nope"]}`, types.ErrInvalidObjectID, "nope"},
		{"Snowflake not decimal", `{ postsByAuthor(authorID: "12ab") { id } }`, "", types.ErrInvalidSnowflake, "12ab"},
		{"Snowflake negative", `{ postsByAuthor(authorID: -5) { id } }`, "", types.ErrInvalidSnowflake, "-5"},
		{"Snowflake negative string", `query($a: Snowflake!) { postsByAuthor(authorID: $a) { id } }`, `{"a": "-5"}`, types.ErrInvalidSnowflake, "-5"},
		{"Snowflake overflow", `query($a: Snowflake!) { postsByAuthor(authorID: $a) { id } }`, `{"a": 9223372036854775808}`, types.ErrInvalidSnowflake, "9223372036854775808"},
		{"Snowflake fraction", `query($a: Snowflake!) { postsByAuthor(authorID: $a) { id } }`, `{"a": 1.5}`, types.ErrInvalidSnowflake, "1.5"},
		{"Snowflake bool", `{ postsByAuthor(authorID: true) { id } }`, "", types.ErrInvalidSnowflake, "true"},
		{"Snowflake in input", `mutation { createPost(input: {title: "x", authorID: "x1"}) { id } }`, "", types.ErrInvalidSnowflake, "x1"},
		{"ObjectID in input", `mutation($in: NewPost!) { createPost(input: $in) { id } }`, `{"in": {"title": "x", "authorID": "1", "parentID": "0123"}}`, types.ErrInvalidObjectID, "0123"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.t = t
			r := s.do(c.query, c.vars)
			if len(r.Errors) == 0 {
				t.Fatalf("no error: %s", r.raw)
			}
			msg := r.Errors[0].Message
			if !strings.Contains(msg, c.mention) {
				t.Errorf("message %q does not mention the input %q", msg, c.mention)
			}
			errs := s.takeErrs()
			found := false
			for _, err := range errs {
				found = found || errors.Is(err, c.sentinel)
			}
			if !found {
				t.Errorf("no error wraps %v: %v (reply %s)", c.sentinel, errs, r.raw)
			}
		})
	}
	s.t = t
	// Nothing was stored by the failed mutations.
	r := s.ok(`{ postsByAuthor(authorID: 1) { id } }`, "")
	if string(r.Data) != `{"postsByAuthor":[]}` {
		t.Errorf("a failed mutation stored a post: %s", r.Data)
	}
}

var hex24 = regexp.MustCompile(`^[0-9a-f]{24}$`)

// An empty string is not an ID. Given for a nullable argument, which
// gqlgen passes as a pointer, it must give an error or null, never a valid
// zero ID that a resolver then stores as a key.
func TestGraphQLEmptyStringIsNotAnID(t *testing.T) {
	s := newServer(t)
	var p post
	field(t, s.ok(`mutation { createPost(input: {title: "a", authorID: 1}) `+fields+` }`, ""), "createPost", &p)
	if !hex24.MatchString(p.ID.String()) {
		t.Fatalf("id %q", p.ID)
	}
	r := s.do(fmt.Sprintf(`mutation { setEditor(id: %q, editorID: "") { editorID } }`, p.ID), "")
	if len(r.Errors) == 0 && r.raw != `{"data":{"setEditor":{"editorID":null}}}` {
		t.Errorf(`editorID: "" stored a key: %s`, r.raw)
	}
	r = s.do(`{ post(id: "") { id } }`, "")
	if len(r.Errors) == 0 {
		t.Errorf(`post(id: "") read as the zero ObjectID with no error: %s`, r.raw)
	}
}
