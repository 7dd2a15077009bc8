package bun_test

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// The models of docs/bun.md, tagged for PostgreSQL; the type tags matter
// only to CreateTable (see createtable_test.go for the other databases).

var (
	objectIDs  *generator.ObjectID
	snowflakes *generator.Snowflake
)

func init() {
	var err error
	if objectIDs, err = generator.NewObjectID(); err != nil {
		panic(err)
	}
	if snowflakes, err = generator.NewSnowflake(1); err != nil {
		panic(err)
	}
}

type Customer struct {
	bun.BaseModel `bun:"table:customers"`

	ID   types.ObjectID `bun:"id,pk"`
	Name string         `bun:"name"`
}

// BeforeAppendModel fills a zero key before bun writes an INSERT, as the
// GORM plugin does.
func (c *Customer) BeforeAppendModel(_ context.Context, q bun.Query) error {
	if _, ok := q.(*bun.InsertQuery); ok && c.ID.IsZero() {
		c.ID = objectIDs.Next()
	}
	return nil
}

type Order struct {
	bun.BaseModel `bun:"table:orders"`

	ID       types.Snowflake     `bun:"id,pk"`
	Customer types.ObjectID      `bun:"customer_id,notnull"`
	Coupon   types.NullObjectID  `bun:"coupon_id,type:bytea"`
	Parent   types.NullSnowflake `bun:"parent_id,type:bigint"`
}

// BeforeAppendModel fills a zero key, and refuses a zero reference with
// an error wrapping types.ErrZeroID, before bun writes an INSERT.
func (o *Order) BeforeAppendModel(_ context.Context, q bun.Query) error {
	if _, ok := q.(*bun.InsertQuery); !ok {
		return nil
	}
	if o.ID.IsZero() {
		id, err := snowflakes.Next()
		if err != nil {
			return err
		}
		o.ID = id
	}
	_, err := o.Customer.Value()
	return err
}

type Event struct {
	bun.BaseModel `bun:"table:events"`

	ID    types.UUID     `bun:"id,pk"`
	Cause types.NullUUID `bun:"cause_id,type:bytea"`
}

func (e *Event) BeforeAppendModel(_ context.Context, q bun.Query) error {
	if _, ok := q.(*bun.InsertQuery); ok && e.ID.IsZero() {
		e.ID = types.NewUUIDv7()
	}
	return nil
}

type Legacy struct {
	bun.BaseModel `bun:"table:legacy"`

	ID   sqltypes.HexObjectID     `bun:"id,pk,type:char(24)"`
	Copy sqltypes.NullHexObjectID `bun:"copy_of,type:char(24)"`
}

func (l *Legacy) BeforeAppendModel(_ context.Context, q bun.Query) error {
	if _, ok := q.(*bun.InsertQuery); ok && l.ID.IsZero() {
		l.ID = sqltypes.HexObjectID(objectIDs.Next())
	}
	return nil
}
