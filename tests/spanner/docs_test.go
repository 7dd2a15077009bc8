package spanner_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// docsSpannerDDL returns the statements of the sql blocks in the Spanner
// section of docs/distributed-sql.md, as written there.
func docsSpannerDDL(t *testing.T) []string {
	b, err := os.ReadFile("../../docs/distributed-sql.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n### Spanner\n")
	if !ok {
		t.Fatal("docs/distributed-sql.md has no ### Spanner section")
	}
	if i := regexp.MustCompile(`\n#{1,3} `).FindStringIndex(section); i != nil {
		section = section[:i[0]]
	}
	var stmts []string
	for _, m := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(section, -1) {
		var lines []string
		for _, l := range strings.Split(m[1], "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				lines = append(lines, l)
			}
		}
		for _, s := range strings.Split(strings.Join(lines, "\n"), ";") {
			if s = strings.TrimSpace(s); s != "" {
				stmts = append(stmts, s)
			}
		}
	}
	if len(stmts) == 0 {
		t.Fatal("the Spanner section of docs/distributed-sql.md has no sql block")
	}
	return stmts
}

// TestDocsSpannerDDL runs the Spanner DDL of docs/distributed-sql.md as
// written, then inserts the keys it says go in each table: a bit-reversed
// Snowflake beside the sequence, shard:8 ObjectID and UUID keys.
func TestDocsSpannerDDL(t *testing.T) {
	stmts := docsSpannerDDL(t)
	c := newDB(t)
	ctx := context.Background()
	for _, s := range stmts {
		if err := updateDDL(ctx, c, s); err != nil {
			t.Fatalf("docs/distributed-sql.md's Spanner DDL: %v\n%s", err, s)
		}
	}
	g, err := generator.NewSnowflake(1, generator.WithForm(types.BitReversed()))
	if err != nil {
		t.Fatal(err)
	}
	key, err := g.Next()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := types.ShardBits(8).ObjectID(types.NewObjectID())
	if err != nil {
		t.Fatal(err)
	}
	session, err := types.ShardBits(8).UUID(types.NewUUIDv7())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Apply(ctx, []*spanner.Mutation{
		spanner.Insert("orders", []string{"id", "body"}, []any{key, "an order"}),
		spanner.Insert("documents", []string{"id", "body"}, []any{doc, "a document"}),
		spanner.Insert("sessions", []string{"id", "body"}, []any{session, "a session"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	row, err := c.Single().ReadRow(ctx, "orders", spanner.Key{key}, []string{"id", "seq_id"})
	if err != nil {
		t.Fatal(err)
	}
	var id types.Snowflake
	var seq spanner.NullInt64
	if err := row.Columns(&id, &seq); err != nil {
		t.Fatal(err)
	}
	if id != key || !seq.Valid || seq.Int64 <= 0 {
		t.Errorf("orders row: id %d, seq_id %v; want %d and a positive sequence value", id, seq, key)
	}
	for _, r := range []struct {
		table string
		key   any
	}{{"documents", doc}, {"sessions", session}} {
		if _, err := c.Single().ReadRow(ctx, r.table, spanner.Key{r.key}, []string{"id"}); err != nil {
			t.Errorf("%s: %v", r.table, err)
		}
	}
}
