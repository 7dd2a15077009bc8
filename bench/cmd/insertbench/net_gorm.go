package main

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/idkit-go/idkit/types"
)

// gOrder and gLine are the orders scenario's GORM models, keyed by K as a
// user declares them: the plugin fills zero keys of idkit's types (and
// google/uuid's with WithKeyFunc), GORM sets each line's OrderID from its
// order.
type (
	gOrder[K any] struct {
		ID       K `gorm:"primaryKey"`
		Customer string
		Total    int64
		Lines    []gLine[K] `gorm:"foreignKey:OrderID"`
	}
	gLine[K any] struct {
		ID      K `gorm:"primaryKey"`
		OrderID K
		Sku     string
		Qty     int32
	}
)

// kindName names the key kind of key type K, as the tables do.
func kindName[K any]() string {
	switch any(*new(K)).(type) {
	case uint64:
		return "seq"
	case types.Snowflake:
		return "snowflake"
	case types.ObjectID:
		return "objectid"
	case types.UUID:
		return "uuidv7"
	case uuid.UUID:
		return "uuidv4"
	}
	return "unknown"
}

func (gOrder[K]) TableName() string { return "bench48_orders_" + kindName[K]() }
func (gLine[K]) TableName() string  { return "bench48_lines_" + kindName[K]() }

// gormOrders inserts every order with its lines through GORM's own
// association create, db.Create(&order) with the default transaction, as
// users write it.
func gormOrders(ctx context.Context, c *netConn, k keyKind, cfg netConfig) (netRun, error) {
	switch k.name {
	case "seq":
		return gormOrdersOf[uint64](ctx, c, k, cfg)
	case "snowflake":
		return gormOrdersOf[types.Snowflake](ctx, c, k, cfg)
	case "objectid":
		return gormOrdersOf[types.ObjectID](ctx, c, k, cfg)
	case "uuidv7":
		return gormOrdersOf[types.UUID](ctx, c, k, cfg)
	case "uuidv4":
		return gormOrdersOf[uuid.UUID](ctx, c, k, cfg)
	}
	return netRun{}, fmt.Errorf("no GORM order model for %s", k.name)
}

func gormOrdersOf[K comparable](ctx context.Context, c *netConn, k keyKind, cfg netConfig) (netRun, error) {
	var res netRun
	_, _, drop, err := c.tables(ctx, "orders", k)
	if err != nil {
		return res, err
	}
	defer drop()
	gdb, closeDB, err := c.gorm(k, false)
	if err != nil {
		return res, err
	}
	defer closeDB()
	if res.MeasuredRTT, err = medianRTT(func() error { return gdb.WithContext(ctx).Exec("SELECT 1").Error }); err != nil {
		return res, err
	}
	var zero K
	res.Units = cfg.orders
	res.Secs, err = timed(func() error {
		for o := range cfg.orders {
			customer, total, sku, qty := orderArgs(o, cfg.lines)
			order := gOrder[K]{Customer: customer, Total: total, Lines: make([]gLine[K], cfg.lines)}
			for l := range order.Lines {
				order.Lines[l] = gLine[K]{Sku: sku[l], Qty: qty[l]}
			}
			if err := gdb.WithContext(ctx).Create(&order).Error; err != nil {
				return err
			}
			if order.ID == zero || order.Lines[cfg.lines-1].ID == zero || order.Lines[0].OrderID != order.ID {
				return fmt.Errorf("order %d: keys not set: %+v", o, order)
			}
		}
		return nil
	})
	return res, err
}

// gormBulk inserts the rows through GORM's CreateInBatches in INSERTs of
// cfg.batch rows with SkipDefaultTransaction (each INSERT committed on its
// own), cfg.copyBatch rows per call; GORM sets every key in the structs.
func gormBulk(ctx context.Context, c *netConn, k keyKind, cfg netConfig) (netRun, error) {
	var res netRun
	table, _, drop, err := c.tables(ctx, "bulk", k)
	if err != nil {
		return res, err
	}
	defer drop()
	gdb, closeDB, err := c.gorm(k, true)
	if err != nil {
		return res, err
	}
	defer closeDB()
	if res.MeasuredRTT, err = medianRTT(func() error { return gdb.WithContext(ctx).Exec("SELECT 1").Error }); err != nil {
		return res, err
	}
	ins := k.gorm()
	res.Units = cfg.rows
	res.Secs, err = timed(func() error {
		for done := 0; done < cfg.rows; done += cfg.copyBatch {
			n := min(cfg.copyBatch, cfg.rows-done)
			if err := ins(gdb.WithContext(ctx).Table(table), cfg.payloads[:n], cfg.batch); err != nil {
				return err
			}
		}
		return nil
	})
	return res, err
}
