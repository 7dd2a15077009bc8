package sqllease_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/testdb"
)

// docDDL returns the SQL block of docs/leases.md's section "The lease
// table in a migration" that follows the paragraph starting with intro,
// with the table and role renamed.
func docDDL(t *testing.T, intro, table, role string) string {
	t.Helper()
	b, err := os.ReadFile("../../../docs/leases.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "### The lease table in a migration")
	if i < 0 {
		t.Fatal("docs/leases.md has no section \"The lease table in a migration\"")
	}
	doc = doc[i:]
	j := strings.Index(doc, "\n"+intro)
	if j < 0 {
		t.Fatalf("the section has no paragraph %q", intro)
	}
	doc = doc[j:]
	start := strings.Index(doc, "```sql\n")
	end := strings.Index(doc[start+7:], "```")
	if start < 0 || end < 0 {
		t.Fatalf("no SQL block after %q", intro)
	}
	ddl := doc[start+7 : start+7+end]
	ddl = strings.ReplaceAll(ddl, "idkit_node_leases", table)
	return strings.ReplaceAll(ddl, " TO app;", " TO "+role+";")
}

// A team whose migrations own the schema creates the table with the
// documented DDL as a superuser and gives the application's role only the
// documented grants: the store claims, renews and releases with them.
// Before the grants, the error names the grant and says the table exists.
func TestMigratedTable(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		admin := testdb.Postgres(t)
		table, role := testdb.Name("leases"), testdb.Name("app")
		ddl := docDDL(t, "PostgreSQL", table, role)
		grant := ddl[strings.Index(ddl, "GRANT"):]
		ddl = ddl[:strings.Index(ddl, "GRANT")]
		if _, err := admin.Exec("CREATE ROLE " + role + " LOGIN"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			admin.Exec("DROP TABLE IF EXISTS " + table)
			admin.Exec("DROP ROLE IF EXISTS " + role)
		})
		if _, err := admin.Exec(ddl); err != nil {
			t.Fatalf("the documented DDL: %v\n%s", err, ddl)
		}
		dsn := testdb.PostgresDSN()
		if strings.Contains(dsn, "user=") {
			dsn = strings.Replace(dsn, "user=postgres", "user="+role, 1)
		} else {
			dsn += " user=" + role
		}
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), setupWait)
		defer cancel()
		_, err = node.NewLease(ctx, sqllease.NewStore(db, sqllease.StoreOptions{Table: table}), node.LeaseOptions{})
		switch {
		case err == nil:
			t.Fatal("a lease without grants on the table")
		case !errors.Is(err, generator.ErrInvalidConfig):
			t.Errorf("without grants: %v, want generator.ErrInvalidConfig", err)
		}
		for _, want := range []string{"exists", "GRANT SELECT, INSERT, UPDATE ON " + table + " TO " + role, "pg_monitor", "#the-lease-table-in-a-migration"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("without grants, the error does not say %q: %v", want, err)
			}
		}
		if strings.Contains(err.Error(), "create table") {
			t.Errorf("without grants, the error blames creating the table: %v", err)
		}
		if _, err := admin.Exec(grant); err != nil {
			t.Fatalf("the documented grant: %v\n%s", err, grant)
		}
		lifecycle(t, nil, db, table)
		noLoss(t, db, table)
	})
	t.Run("sqlite", func(t *testing.T) {
		db := testdb.SQLite(t)
		if _, err := db.Exec(docDDL(t, "SQLite", "idkit_node_leases", "")); err != nil {
			t.Fatal(err)
		}
		lifecycle(t, nil, db, "")
		noLoss(t, db, "idkit_node_leases")
	})
}

// noLoss fails t if a claim on table recorded a loss (a store-wide mark in
// the identity row): the documented identity row is the server's.
func noLoss(t *testing.T, db *sql.DB, table string) {
	t.Helper()
	var mark int64
	if err := db.QueryRow("SELECT hwm_ns FROM " + table + " WHERE node = -1").Scan(&mark); err != nil {
		t.Fatal(err)
	}
	if mark != 0 {
		t.Errorf("a claim on the migrated table recorded a loss (mark %v): the documented identity row is not the server's", time.Unix(0, mark))
	}
}
