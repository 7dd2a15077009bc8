// Package sharding_test shows gorm.io/sharding keyed by idkit: the gormplugin
// fills each row's Snowflake key before the INSERT, sharding routes the row
// to a shard table by a hash of its user_id, and INSERTs written by hand
// without a key get one from the same idkit generator through sharding's
// PrimaryKeyGeneratorFn instead of its built-in Snowflake.
package sharding_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/sharding"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/internal/testgorm"
	"github.com/idkit-go/idkit/types"
)

// Order is stored in one of shards tables, chosen by UserID.
type Order struct {
	ID     types.Snowflake // filled by the gormplugin
	UserID types.Snowflake
	Amount int64
}

const shards = 4

// shardOf returns the shard of a user ID: a mix of all its bits, not
// id % shards. The low bits of a Snowflake are its sequence, which is 0 for
// nearly every ID made at low traffic, so id % shards would put almost every
// row on shard 0.
func shardOf(id int64) int {
	x := uint64(id) // splitmix64's finalizer
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return int(x % shards)
}

// shardConfig is the sharding configuration: user_id as the sharding key,
// routed by shardOf, and the idkit generator g for INSERTs without an id.
func shardConfig(g *generator.Snowflake) sharding.Config {
	return sharding.Config{
		ShardingKey:    "user_id",
		NumberOfShards: shards,
		ShardingAlgorithm: func(v any) (string, error) {
			var id int64
			switch x := v.(type) {
			case types.Snowflake: // from GORM
				id = int64(x)
			case int64: // from db.Exec with an int64 argument
				id = x
			default:
				return "", fmt.Errorf("user_id: unexpected %T", v)
			}
			return fmt.Sprintf("_%d", shardOf(id)), nil
		},
		ShardingSuffixs: func() []string {
			s := make([]string, shards)
			for i := range s {
				s[i] = fmt.Sprintf("_%d", i)
			}
			return s
		},
		PrimaryKeyGenerator:   sharding.PKCustom,
		PrimaryKeyGeneratorFn: func(int64) int64 { return int64(g.MustNext()) },
	}
}

func TestSharding(t *testing.T) {
	for _, d := range testgorm.Dialects {
		if d.Name == "sqlite" {
			continue // gorm.io/sharding supports PostgreSQL and MySQL/MariaDB
		}
		t.Run(d.Name, func(t *testing.T) { testSharding(t, testgorm.Open(t, d)) })
	}
}

func testSharding(t *testing.T, db *gorm.DB) {
	// The user IDs are made at low traffic (one every 100 ms: sequence 0),
	// the case where id % shards fails.
	clock := generatortest.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	users, err := generator.NewSnowflake(1, generator.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	g, err := generator.NewSnowflake(2)
	if err != nil {
		t.Fatal(err)
	}
	stmt := &gorm.Statement{DB: db}
	if err := stmt.Parse(&Order{}); err != nil {
		t.Fatal(err)
	}
	table := stmt.Schema.Table
	for i := range shards {
		if err := db.Table(fmt.Sprintf("%s_%d", table, i)).AutoMigrate(&Order{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Use(gormplugin.New(gormplugin.WithSnowflake(g))); err != nil {
		t.Fatal(err)
	}
	if err := db.Use(sharding.Register(shardConfig(g), table)); err != nil {
		t.Fatal(err)
	}

	// 40 users, 2 orders each: one by db.Create, one by a raw INSERT
	// without an id.
	var made []Order
	var userIDs []types.Snowflake
	for i := range 40 {
		clock.Add(100 * time.Millisecond)
		uid := users.MustNext()
		userIDs = append(userIDs, uid)
		o := Order{UserID: uid, Amount: int64(i)}
		if err := db.Create(&o).Error; err != nil {
			t.Fatalf("create order %d: %v", i, err)
		}
		if o.ID == 0 {
			t.Fatalf("order %d has no key after Create", i)
		}
		made = append(made, o)
		if err := db.Exec("INSERT INTO "+table+" (user_id, amount) VALUES (?, ?)", int64(uid), 1000+i).Error; err != nil {
			t.Fatalf("raw insert %d: %v", i, err)
		}
	}
	t.Logf("id %% %d would put %d of %d users on shard 0", shards, countLowBits(userIDs), len(userIDs))

	// Every row is in its user's shard table, every shard holds rows, and
	// no key repeats across shards.
	seen := map[types.Snowflake]bool{}
	total := 0
	for i := range shards {
		var rows []Order
		if err := db.Table(fmt.Sprintf("%s_%d", table, i)).Set(sharding.ShardingIgnoreStoreKey, true).Find(&rows).Error; err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 {
			t.Errorf("shard %d is empty", i)
		}
		for _, r := range rows {
			if s := shardOf(int64(r.UserID)); s != i {
				t.Errorf("order %v of user %v is in shard %d, want %d", r.ID, r.UserID, i, s)
			}
			if r.ID <= 0 || seen[r.ID] {
				t.Errorf("key %v in shard %d is zero or repeated", r.ID, i)
			}
			seen[r.ID] = true
			if parts, err := g.Layout().Decompose(r.ID); err != nil || parts.Node != g.Node() {
				t.Errorf("key %v is not from the idkit generator on node %d: %+v, %v", r.ID, g.Node(), parts, err)
			}
		}
		total += len(rows)
	}
	if total != 2*len(made) {
		t.Errorf("%d rows stored, want %d", total, 2*len(made))
	}
	for _, o := range made {
		if !seen[o.ID] {
			t.Errorf("order %v (the key Create left in the struct) is not stored", o.ID)
		}
	}

	// Reads through sharding find a user's two orders by user_id.
	for _, o := range made[:5] {
		var got []Order
		if err := db.Where("user_id = ?", o.UserID).Order("amount").Find(&got).Error; err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0] != o || got[1].Amount != 1000+o.Amount {
			t.Errorf("orders of user %v = %+v, want %+v and a raw one", o.UserID, got, o)
		}
	}

	// A batch spanning two shards is refused and stores nothing.
	var a, b types.Snowflake
	for a = users.MustNext(); ; {
		if b = users.MustNext(); shardOf(int64(b)) != shardOf(int64(a)) {
			break
		}
	}
	batch := []Order{{UserID: a}, {UserID: b}}
	if err := db.Create(&batch).Error; !errors.Is(err, sharding.ErrInsertDiffSuffix) {
		t.Errorf("batch across shards: err = %v, want ErrInsertDiffSuffix", err)
	}
	var n int64
	if err := db.Model(&Order{}).Where("user_id = ?", a).Count(&n).Error; err != nil || n != 0 {
		t.Errorf("after the refused batch user %v has %d orders, %v", a, n, err)
	}
	// A batch within one shard is stored there.
	batch = []Order{{UserID: a, Amount: 1}, {UserID: a, Amount: 2}}
	if err := db.Create(&batch).Error; err != nil {
		t.Fatal(err)
	}
	if batch[0].ID == 0 || batch[1].ID <= batch[0].ID {
		t.Errorf("batch keys %v, %v", batch[0].ID, batch[1].ID)
	}
	if err := db.Model(&Order{}).Where("user_id = ?", a).Count(&n).Error; err != nil || n != 2 {
		t.Errorf("user %v has %d orders after a batch of 2, %v", a, n, err)
	}
}

// countLowBits counts the IDs that id % shards would put on shard 0.
func countLowBits(ids []types.Snowflake) int {
	return len(slices.DeleteFunc(slices.Clone(ids), func(id types.Snowflake) bool { return id%shards != 0 }))
}
