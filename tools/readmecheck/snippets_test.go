//lint:file-ignore U1000 each snippet is a function that is compiled, never called
//lint:file-ignore SA4006 the snippets keep the values and error checks as the docs show them
//lint:file-ignore SA5001 the snippets keep the values and error checks as the docs show them

package readmecheck_test

import (
	"context"
	"database/sql"
	"log"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/meteor"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/mongocompat"
	"github.com/idkit-go/idkit/mongocompat/mongov2"
	"github.com/idkit-go/idkit/pgxtypes"
	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// Go snippets of the README and docs/ that no example or test of their
// package runs, each in a function that declares what the snippet takes as
// given. They are compiled, not run: TestSnippetsCompile checks that every
// line of a Go block in the docs is a line of a Go file of the repository.

type Order struct {
	ID   types.Snowflake `bson:"_id"`
	Item string
}
type Customer struct{ ID types.Snowflake }

// firstScreen is the README's first GORM snippet (gormplugin's examples
// run the Snowflake ones).
func firstScreen(db *gorm.DB) {
	type Order struct {
		ID   types.ObjectID // BYTEA / BINARY(12) / BLOB
		Item string
	}

	db.Use(gormplugin.New()) // fills zero keys on every create path
	db.AutoMigrate(&Order{})
	order := Order{Item: "book"}
	db.Create(&order)          // order.ID is set before the INSERT
	db.First(&order, order.ID) // look the row up by its key
}

// firstModel is the README's and docs/gorm.md's first model (gormplugin's
// tests run it as Customer and Purchase).
func firstModel(db *gorm.DB) {
	plugin := gormplugin.New(gormplugin.WithNode(7)) // or WithSnowflake(g)
	if err := db.Use(plugin); err != nil {
		log.Fatal(err) // a bad option, such as a node the layout cannot hold
	}

	type Purchase struct {
		ID         types.ObjectID      // bytea / BINARY(12) / BLOB
		CustomerID types.NullSnowflake // set by GORM from the customer's key; NULL after Association Delete/Clear
		Item       string
		Coupon     types.NullSnowflake // optional reference: NULL unless set
		Ref        string              `gorm:"size:24" idkit:"objectid"` // plain types opt in with a tag
	}

	type Customer struct {
		ID        types.Snowflake // no tag needed: AutoMigrate makes a plain BIGINT, no sequence
		Email     string          `gorm:"size:64;uniqueIndex"`
		Name      string
		Purchases []Purchase
	}
}

// clearedReference is docs/gorm-errors.md's model of a reference GORM may
// clear (gormplugin's tests run it).
func clearedReference() {
	type Purchase struct {
		ID         types.ObjectID
		CustomerID types.NullSnowflake // NULL after Association Delete/Clear
	}
}

func quick() {
	id := types.NewObjectID()                        // 6b0268de83cd1eebc0d73dca
	g, err := generator.NewSnowflake(1)              // node 1, Twitter layout
	sid, err := g.Next()                             // 2124352295926763520
	parts, err := generator.Twitter().Decompose(sid) // time, node, sequence
	_, _, _ = id, parts, err
}

func rng(db *gorm.DB, from, to time.Time, customers []Customer) {
	r, _ := sqltypes.NewSnowflakeRange(generator.Twitter(), from, to)
	db.Scopes(r.Scope("")).Find(&customers) // or r.Args() for plain SQL
}

func mongoSnip(ctx context.Context, coll *mongo.Collection, orders []Order) {
	sf, _ := generator.NewSnowflake(1)
	f := mongocompat.NewFiller(mongocompat.WithSnowflake(sf))
	order := &Order{Item: "book"}                        // ID types.Snowflake `bson:"_id"`
	_, err := mongov2.InsertOne(ctx, f, coll, order)     // order.ID is set before the insert
	res, err := mongov2.InsertMany(ctx, f, coll, orders) // []Order filled in place
	ids := res.InsertedIDs                               // types.Snowflake values
	_, _ = ids, err
}

func lease1(ctx context.Context, db *sql.DB) {
	store := sqllease.NewStore(db, sqllease.StoreOptions{}) // or redislease, etcdlease, kubelease
	lease, err := node.NewLease(ctx, store, node.LeaseOptions{MaxOutage: time.Minute})
	defer lease.Close(ctx)                  // stop issuing, record the last time, release
	g, err := node.NewSnowflake(ctx, lease) // a *generator.Snowflake: fenced, floored, tracked
	id, err := g.Next()                     // fails with generator.ErrFenced once the lease is not safe
	_, _ = id, err
}

func leaseGen(ctx context.Context, db *sql.DB) {
	lease, err := node.NewLease(ctx, sqllease.NewStore(db, sqllease.StoreOptions{}), node.LeaseOptions{}, generator.WithLayout(generator.Sonyflake()), generator.WithBorrowAhead(time.Second))
	_, _ = lease, err
}

func lease2(ctx context.Context, gormDB *gorm.DB, orders []Order) {
	sqlDB, err := gormDB.DB()
	lease, err := node.NewLease(ctx, sqllease.NewStore(sqlDB, sqllease.StoreOptions{}), node.LeaseOptions{})
	defer lease.Close(ctx)
	g, err := node.NewSnowflake(ctx, lease)
	err = gormDB.Use(gormplugin.New(gormplugin.WithSnowflake(g)))
	err = gormDB.Create(&orders).Error // keys made on the leased node; fails if the lease lapsed
	_ = err
}

func lease3(ctx context.Context, redisClient *redis.Client) {
	store := redislease.NewStore(redisClient, redislease.StoreOptions{})
	lease, err := node.NewLease(ctx, store, node.LeaseOptions{TTL: 10 * time.Second})
	_, _ = lease, err
	store = redislease.NewStore(redisClient, redislease.StoreOptions{Key: "myapp:node_leases"})
	lease, err = node.NewLease(ctx, store, node.LeaseOptions{})
	_, _ = lease, err
}

func sts(ctx context.Context) {
	src := node.FromStatefulSet(node.StatefulSetOptions{IndexEnv: "POD_INDEX", Offset: 32, Size: 32}) // this set: IDs 32..63
	id, err := src.NodeID(ctx)                                                                        // errors wrap node.ErrNoNodeID (for example a hostname without "-N")
	g, err := generator.NewSnowflake(id)
	_, _ = g, err
}

func meteorSnip(ctx context.Context, db *sql.DB) {
	id, err := node.Disposable(db, node.DisposableOptions{MaxNode: meteor.Default().MaxNode()}).NodeID(ctx)
	g, err := meteor.New(id, meteor.Default())
	_, _ = g, err
}

func pgxSnip(ctx context.Context, dsn string, a, b types.ObjectID) {
	cfg, _ := pgxpool.ParseConfig(dsn)
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		pgxtypes.Register(c.TypeMap())
		return nil
	}
	pool, _ := pgxpool.NewWithConfig(ctx, cfg)
	rows, _ := pool.Query(ctx, "SELECT id, name FROM users WHERE id = ANY($1)", []types.ObjectID{a, b})
	defer rows.Close()
}

// scatterForms is docs/distributed-sql.md's snippet of the forms.
func scatterForms(node int64, id types.Snowflake) {
	g, err := generator.NewSnowflake(node, generator.WithForm(types.ShardBits(4)))
	key, err := types.ShardBits(4).Snowflake(id)
	id, err = types.ShardBits(4).OrderedSnowflake(key)
	_, _, _ = g, id, err
}
