package bench

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"strconv"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

// netOrder is a model keyed by an ObjectID the plugin fills.
type netOrder struct {
	ID    types.ObjectID
	Item  string    `gorm:"size:32"`
	Lines []netLine `gorm:"foreignKey:OrderID"`
}

// BeforeCreate names an order that has no item, to show that a DryRun
// create runs the model's hooks.
func (o *netOrder) BeforeCreate(*gorm.DB) error {
	if o.Item == "" {
		o.Item = "unnamed"
	}
	return nil
}

type netLine struct {
	ID      types.ObjectID
	OrderID types.ObjectID
	Sku     string `gorm:"size:32"`
}

// netGORM opens GORM with gormplugin and TranslateError through a proxy to
// each test server, and returns the handle, the proxy and a table prefix of
// the test's own.
func netGORM(t *testing.T, server string) (*gorm.DB, *tcpproxy.Proxy) {
	t.Helper()
	var d gorm.Dialector
	switch server {
	case "PostgreSQL":
		cfg, err := pgx.ParseConfig(testdb.PostgresDSN())
		if err != nil {
			t.Fatal(err)
		}
		testdb.Postgres(t) // skips (or fails under CI) when the server is down
		p := tcpproxy.Start(t, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))))
		_, port, _ := net.SplitHostPort(p.Addr())
		n, _ := strconv.Atoi(port)
		cfg.Host, cfg.Port = "127.0.0.1", uint16(n)
		db := stdlib.OpenDB(*cfg)
		t.Cleanup(func() { db.Close() })
		d = postgres.New(postgres.Config{Conn: db})
		return openNetGORM(t, d), p
	default:
		cfg, err := gomysql.ParseDSN(testdb.MySQLDSN())
		if err != nil {
			t.Fatal(err)
		}
		testdb.MySQL(t)
		p := tcpproxy.Start(t, cfg.Addr)
		cfg.Addr = p.Addr()
		conn, err := gomysql.NewConnector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		db := sql.OpenDB(conn)
		t.Cleanup(func() { db.Close() })
		d = mysql.New(mysql.Config{Conn: db})
		return openNetGORM(t, d), p
	}
}

func openNetGORM(t *testing.T, d gorm.Dialector) *gorm.DB {
	t.Helper()
	db, err := gorm.Open(d, &gorm.Config{TranslateError: true, Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Use(gormplugin.New()); err != nil {
		t.Fatal(err)
	}
	return db
}

// netTables migrates netOrder and netLine into tables of the test's own
// and drops them when it ends.
func netTables(t *testing.T, db *gorm.DB) (orders, lines *gorm.DB) {
	t.Helper()
	o, l := testdb.Name("bench48_orders"), testdb.Name("bench48_lines")
	for _, m := range []struct {
		name  string
		model any
	}{{o, &netOrder{}}, {l, &netLine{}}} {
		if err := db.Table(m.name).AutoMigrate(m.model); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Migrator().DropTable(m.name) })
	}
	return db.Table(o), db.Table(l)
}

func countRows(t *testing.T, db *gorm.DB) int64 {
	t.Helper()
	var n int64
	if err := db.Session(&gorm.Session{NewDB: false}).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGORMRetryAfterLostReply loses the reply to a GORM create's COMMIT
// (the rows are in), then replays the create with the same slice, whose
// keys the plugin filled on the first attempt: with OnConflict DoNothing on
// the key the replay succeeds and adds nothing; without it, the replay
// fails with an error that errors.Is gorm.ErrDuplicatedKey (TranslateError)
// and adds nothing either.
func TestGORMRetryAfterLostReply(t *testing.T) {
	for _, server := range []string{"PostgreSQL", "MariaDB"} {
		t.Run(server, func(t *testing.T) {
			db, p := netGORM(t, server)
			orders, _ := netTables(t, db)
			lose := false
			if err := db.Callback().Create().Before("gorm:commit_or_rollback_transaction").Register("bench:lose_reply", func(tx *gorm.DB) {
				if lose && tx.Error == nil {
					lose = false
					p.DropNextReply()
				}
			}); err != nil {
				t.Fatal(err)
			}
			rows := []netOrder{{Item: "book"}, {Item: "pen"}, {Item: "ink"}}
			lose = true
			db = orders.Session(&gorm.Session{}) // every call from here starts on the table
			err := db.Create(&rows).Error
			if err == nil {
				t.Fatal("the COMMIT's reply was not lost")
			}
			if n := countRows(t, db); n != 3 {
				t.Fatalf("after the lost reply: %d rows, want 3 (the COMMIT went through)", n)
			}

			// The create a user writes to retry safely: the same rows, their
			// keys kept, nothing done for a key already in.
			err = db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoNothing: true}).Create(&rows).Error
			if err != nil {
				t.Fatalf("replay with OnConflict DoNothing: %v", err)
			}
			if n := countRows(t, db); n != 3 {
				t.Fatalf("after the replay: %d rows, want 3", n)
			}

			// Or the plain create, and the error that says the rows are in.
			if err := db.Create(&rows).Error; errors.Is(err, gorm.ErrDuplicatedKey) {
				t.Logf("plain replay: %v", err)
			} else {
				t.Fatalf("plain replay: %v, want gorm.ErrDuplicatedKey", err)
			}
			if n := countRows(t, db); n != 3 {
				t.Fatalf("after the plain replay: %d rows, want 3", n)
			}
		})
	}
}

// TestGORMFillThenCopy fills the keys of an order and its lines with the
// plugin's fill rules and GORM's hooks, writing nothing (a DryRun create),
// then sends the order and its lines in one pgx Batch and a slice of rows
// with COPY, through the *gorm.DB's own connection pool: the code
// docs/benchmarks.md shows GORM users.
func TestGORMFillThenCopy(t *testing.T) {
	db, _ := netGORM(t, "PostgreSQL")
	ordersDB, linesDB := netTables(t, db)
	table := ordersDB.Statement.Table
	db = ordersDB.Session(&gorm.Session{}) // every call from here starts on the table
	ctx := context.Background()

	// One order, its lines, one round trip.
	order := netOrder{Item: "book", Lines: []netLine{{Sku: "a"}, {Sku: "b"}}}
	if err := db.Session(&gorm.Session{DryRun: true}).Create(&order).Error; err != nil {
		t.Fatal(err)
	}
	if order.ID.IsZero() || order.Lines[1].ID.IsZero() || order.Lines[1].OrderID != order.ID {
		t.Fatalf("keys not filled: %+v", order)
	}

	// A slice of rows with COPY.
	orders := make([]netOrder, 1000)
	for i := range orders[1:] {
		orders[i+1].Item = "item-" + strconv.Itoa(i+1)
	}
	err := db.Session(&gorm.Session{DryRun: true}).Create(&orders).Error
	if err != nil {
		t.Fatal(err)
	}
	if orders[0].Item != "unnamed" || orders[999].ID.IsZero() {
		t.Fatalf("DryRun create: hook or keys not run: %+v, %+v", orders[0], orders[999])
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		_, err := pc.CopyFrom(ctx, pgx.Identifier{table}, []string{"id", "item"},
			pgx.CopyFromSlice(len(orders), func(i int) ([]any, error) {
				return []any{orders[i].ID, orders[i].Item}, nil
			}))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		var b pgx.Batch
		b.Queue("INSERT INTO "+table+" (id, item) VALUES ($1, $2)", order.ID, order.Item)
		for _, l := range order.Lines {
			b.Queue("INSERT INTO "+linesDB.Statement.Table+" (id, order_id, sku) VALUES ($1, $2, $3)", l.ID, l.OrderID, l.Sku)
		}
		return pc.SendBatch(ctx, &b).Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if n := countRows(t, db); n != 1001 {
		t.Fatalf("%d orders, want 1001", n)
	}
	if n := countRows(t, linesDB.Session(&gorm.Session{})); n != 2 {
		t.Fatalf("%d lines, want 2", n)
	}
	var got netOrder
	if err := db.Where("id = ?", orders[999].ID).Take(&got).Error; err != nil || got.Item != "item-999" {
		t.Fatalf("row by its key: %+v, %v", got, err)
	}
}
