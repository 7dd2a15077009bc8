package pgxtypes_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/pgxtypes"
	"github.com/idkit-go/idkit/types"
)

// openGORM is docs/sql.md's recipe: GORM over pgx's database/sql driver,
// with the ID types registered on every connection.
func openGORM(dsn string) (*gorm.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	sqlDB := stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(func(_ context.Context, c *pgx.Conn) error {
		pgxtypes.Register(c.TypeMap())
		return nil
	}))
	return gorm.Open(postgres.New(postgres.Config{Conn: sqlDB}), &gorm.Config{})
}

// gormTicket is keyed by a types.UUID, with an ObjectID and a Snowflake
// beside it.
type gormTicket struct {
	ID     types.UUID
	Ref    types.ObjectID
	Seq    types.Snowflake
	Parent types.NullUUID
}

// TestRegisterUnderGORM runs docs/sql.md's recipe on PostgreSQL in pgx's
// simple protocol (PgBouncer's transaction pooling), where pgx alone sends
// a UUID as bytea text that a uuid column refuses: GORM's creates, lookups
// by key and updates work, and the rows hold what was written. Without
// the recipe the same create fails.
func TestRegisterUnderGORM(t *testing.T) {
	testdb.SkipIfDown(t, "PostgreSQL")
	dsn := testdb.PostgresDSN() + " default_query_exec_mode=simple_protocol"
	table := testdb.Name("idkit_pgx_gorm")
	open := func(register bool) *gorm.DB {
		var db *gorm.DB
		var err error
		if register {
			db, err = openGORM(dsn)
		} else {
			db, err = gorm.Open(postgres.Open(dsn), &gorm.Config{})
		}
		if err != nil {
			testdb.Unavailable(t, "PostgreSQL", err)
		}
		db.Logger = logger.Discard
		if err := db.Use(gormplugin.New(gormplugin.WithNode(1))); err != nil {
			t.Fatal(err)
		}
		sqlDB, _ := db.DB()
		t.Cleanup(func() { sqlDB.Close() })
		return db.Table(table).Session(&gorm.Session{})
	}
	db := open(true)
	if err := db.Exec(`CREATE TABLE ` + table + ` (id uuid PRIMARY KEY, ref bytea NOT NULL, seq bigint NOT NULL, parent uuid NULL)`).Error; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec("DROP TABLE IF EXISTS " + table) })

	a := gormTicket{Ref: types.NewObjectID(), Seq: 42}
	if err := db.Create(&a).Error; err != nil {
		t.Fatalf("create: %v", err)
	}
	b := gormTicket{Ref: types.NewObjectID(), Seq: 43, Parent: types.NullUUID{ID: a.ID, Valid: true}}
	if err := db.Create(&b).Error; err != nil {
		t.Fatalf("create: %v", err)
	}
	var got gormTicket
	if err := db.First(&got, b.ID).Error; err != nil || got != b {
		t.Fatalf("First by key: %v, got %+v, want %+v", err, got, b)
	}
	if err := db.Model(&gormTicket{}).Where("id = ?", a.ID).Update("seq", 44).Error; err != nil {
		t.Fatalf("update: %v", err)
	}
	var text string
	var seq int64
	if err := db.Raw("SELECT id::text, seq FROM "+table+" WHERE parent IS NULL").Row().Scan(&text, &seq); err != nil {
		t.Fatal(err)
	}
	if text != a.ID.String() || seq != 44 {
		t.Fatalf("stored row: id %s seq %d, want %s 44", text, seq, a.ID)
	}
	if err := db.Raw("SELECT parent::text FROM "+table+" WHERE id::text = ?", b.ID.String()).Row().Scan(&text); err != nil || text != a.ID.String() {
		t.Fatalf("stored parent: %v %s, want %s", err, text, a.ID)
	}

	err := open(false).Create(&gormTicket{Ref: types.NewObjectID(), Seq: 45}).Error
	if err == nil || !strings.Contains(err.Error(), "uuid") {
		t.Fatalf("create without Register in the simple protocol: %v, want PostgreSQL refusing the uuid", err)
	}
	t.Logf("without Register: %v", err)
	var n int64
	if err := db.Raw("SELECT COUNT(*) FROM " + table).Row().Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows: %d (%v), want 2", n, err)
	}
}
