package gormplugin_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

// Shipment is keyed by a Snowflake made on a leased node.
type Shipment struct {
	ID   types.Snowflake
	Item string
}

// leaseExample names the example's tables; the test gives it names of its
// own so that runs against a shared server do not meet.
var leaseExample = struct{ leases, shipments string }{"idkit_node_leases", "shipments"}

func (Shipment) TableName() string { return leaseExample.shipments }

// The plugin on a leased node: the lease hands this process a worker ID in
// PostgreSQL, node.NewSnowflake makes a generator fenced and floored by the
// lease, and the plugin fills keys from it. Run by
// TestExampleWithSnowflakeLease when PostgreSQL is reachable; it prints:
//
//	node 0
//	book stored, key made on node 0
//	pen stored, key made on node 0
//	ink stored, key made on node 0
func ExampleWithSnowflake_lease() {
	ctx := context.Background()
	dsn := "host=127.0.0.1 port=5432 user=postgres dbname=test sslmode=disable"
	if v := os.Getenv("IDKIT_POSTGRES_DSN"); v != "" {
		dsn = v
	}
	db, err := gorm.Open(postgres.Open(dsn), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		panic(err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		panic(err)
	}

	// Claim a worker ID in the application's own database.
	store := sqllease.NewStore(sqlDB, sqllease.StoreOptions{Table: leaseExample.leases})
	lease, err := node.NewLease(ctx, store, node.LeaseOptions{})
	if err != nil {
		panic(err)
	}
	defer lease.Close(ctx) // stop issuing, record the last time, release the ID
	fmt.Println("node", lease.Node())

	// A generator fenced by the lease: it fails rather than issue an ID once
	// the lease cannot be trusted.
	g, err := node.NewSnowflake(ctx, lease)
	if err != nil {
		panic(err)
	}
	if err := db.Use(gormplugin.New(gormplugin.WithSnowflake(g))); err != nil {
		panic(err)
	}
	if err := db.AutoMigrate(&Shipment{}); err != nil {
		panic(err)
	}

	if err := db.Create(&[]Shipment{{Item: "book"}, {Item: "pen"}, {Item: "ink"}}).Error; err != nil {
		panic(err)
	}
	var stored []Shipment
	if err := db.Order("id").Find(&stored).Error; err != nil {
		panic(err)
	}
	for _, s := range stored {
		parts, _ := g.Layout().Decompose(s.ID)
		fmt.Println(s.Item, "stored, key made on node", parts.Node)
	}
}

// TestExampleWithSnowflakeLease runs [ExampleWithSnowflake_lease] on
// PostgreSQL (skipped without a server, failed under CI) and checks what it
// prints.
func TestExampleWithSnowflakeLease(t *testing.T) {
	sqlDB := testdb.Postgres(t)
	leaseExample.leases, leaseExample.shipments = testdb.Name("leases"), testdb.Name("shipments")
	t.Cleanup(func() {
		_, _ = sqlDB.Exec("DROP TABLE IF EXISTS " + leaseExample.leases)
		_, _ = sqlDB.Exec("DROP TABLE IF EXISTS " + leaseExample.shipments)
	})
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout := os.Stdout
	os.Stdout = w
	func() {
		defer func() { os.Stdout = stdout; w.Close() }()
		ExampleWithSnowflake_lease()
	}()
	var out bytes.Buffer
	_, err = io.Copy(&out, r)
	require.NoError(t, err)
	require.Equal(t, "node 0\n"+
		"book stored, key made on node 0\n"+
		"pen stored, key made on node 0\n"+
		"ink stored, key made on node 0\n", out.String())

	// The rows carry keys from the leased node, and the lease was released
	// with its mark recorded.
	var n int
	require.NoError(t, sqlDB.QueryRow("SELECT count(*) FROM "+leaseExample.shipments+" WHERE id > 0").Scan(&n))
	require.Equal(t, 3, n)
	var owner string
	var hwm int64
	require.NoError(t, sqlDB.QueryRow("SELECT owner, hwm_ns FROM "+leaseExample.leases+" WHERE node = 0").Scan(&owner, &hwm))
	require.Empty(t, owner, "Close released the node")
	require.Positive(t, hwm)
}
