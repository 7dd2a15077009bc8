package sqltypes

import (
	"fmt"
	"math"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// SnowflakeRange is the half-open primary-key range [From, To) of the
// Snowflake IDs created in a time range; see [NewSnowflakeRange]. From == To
// is the empty range.
type SnowflakeRange struct {
	From, To types.Snowflake
}

// NewSnowflakeRange returns the range of IDs that layout's generators issue
// in [from, to): MinID(from) <= id < MinID(to). IDs carry time only to the
// layout's unit (a millisecond for [generator.Twitter]), so from and to are
// rounded down to a tick: the range is exact for times on tick boundaries. A
// from before the layout's epoch is moved to the epoch; a to at or before
// from gives the empty range.
//
// It returns an error wrapping [ErrInvalidRange] and
// [generator.ErrTimeOverflow] when to (or from) is at or after the layout's
// end, and [generator.ErrInvalidLayout] for the zero Layout.
func NewSnowflakeRange(layout generator.Layout, from, to time.Time) (SnowflakeRange, error) {
	if layout.IsZero() {
		return SnowflakeRange{}, fmt.Errorf("%w: the zero layout: %w", ErrInvalidRange, generator.ErrInvalidLayout)
	}
	if epoch := layout.Spec().Epoch; from.Before(epoch) {
		from = epoch // no ID is older
	}
	if !to.After(from) {
		to = from
	}
	lo, err := layout.MinID(from)
	if err != nil {
		return SnowflakeRange{}, fmt.Errorf("%w: %w", ErrInvalidRange, err)
	}
	hi, err := layout.MinID(to)
	if err != nil {
		return SnowflakeRange{}, fmt.Errorf("%w: %w", ErrInvalidRange, err)
	}
	return SnowflakeRange{From: lo, To: hi}, nil
}

// Contains reports whether id is in r.
func (r SnowflakeRange) Contains(id types.Snowflake) bool { return id >= r.From && id < r.To }

// Args returns r's bounds as SQL arguments, From then To, for a condition
// such as "id >= $1 AND id < $2" (PostgreSQL) or "id >= ? AND id < ?".
func (r SnowflakeRange) Args() []any { return []any{r.From, r.To} }

// Scope returns a GORM scope adding "column >= From AND column < To" to a
// query; an empty column means the model's primary key. Use it as
// db.Scopes(r.Scope("")).Find(&rows).
func (r SnowflakeRange) Scope(column string) func(*gorm.DB) *gorm.DB {
	return rangeScope(column, r.From, r.To)
}

// ObjectIDRange is the half-open primary-key range [From, To) of the
// ObjectIDs created in a time range; see [NewObjectIDRange]. From == To is
// the empty range.
type ObjectIDRange struct {
	From, To types.ObjectID
}

// NewObjectIDRange returns the range of ObjectIDs created in [from, to):
// ObjectIDFromTime(from) <= id < ObjectIDFromTime(to). ObjectIDs carry whole
// seconds, so from and to are rounded down to the second: the range is exact
// for whole-second times. A to at or before from gives the empty range.
//
// It returns an error wrapping [ErrInvalidRange] when from is before 1970 or
// to is after the last second an ObjectID can hold (2106-02-07T06:28:15Z).
func NewObjectIDRange(from, to time.Time) (ObjectIDRange, error) {
	if !to.After(from) {
		to = from
	}
	for _, t := range []time.Time{from, to} {
		if s := t.Unix(); s < 0 || s > math.MaxUint32 {
			return ObjectIDRange{}, fmt.Errorf("%w: %s is outside the ObjectID time range 1970-01-01T00:00:00Z to 2106-02-07T06:28:15Z",
				ErrInvalidRange, t.UTC().Format(time.RFC3339Nano))
		}
	}
	return ObjectIDRange{From: types.ObjectIDFromTime(from), To: types.ObjectIDFromTime(to)}, nil
}

// Contains reports whether id is in r.
func (r ObjectIDRange) Contains(id types.ObjectID) bool {
	return id.Compare(r.From) >= 0 && id.Compare(r.To) < 0
}

// Args returns r's bounds as SQL arguments, From then To, for a condition
// such as "id >= $1 AND id < $2" on a raw 12-byte column. Raw bytes compare
// as the IDs do in PostgreSQL (bytea), MySQL/MariaDB (binary) and SQLite
// (blob). For a hex-text column use [ObjectIDRange.HexArgs].
func (r ObjectIDRange) Args() []any { return []any{r.From, r.To} }

// HexArgs returns r's bounds as 24-digit lower-case hex strings, for a
// [HexObjectID] column: hex text of equal length sorts as the bytes do,
// given a binary or C collation and lower-case stored values.
func (r ObjectIDRange) HexArgs() []any { return []any{r.From.Hex(), r.To.Hex()} }

// Scope returns a GORM scope adding "column >= From AND column < To" for a
// raw 12-byte column; an empty column means the model's primary key.
func (r ObjectIDRange) Scope(column string) func(*gorm.DB) *gorm.DB {
	return rangeScope(column, r.From, r.To)
}

// HexScope is [ObjectIDRange.Scope] for a [HexObjectID] column.
func (r ObjectIDRange) HexScope(column string) func(*gorm.DB) *gorm.DB {
	return rangeScope(column, r.From.Hex(), r.To.Hex())
}

func rangeScope(column string, from, to any) func(*gorm.DB) *gorm.DB {
	col := clause.Column{Table: clause.CurrentTable, Name: clause.PrimaryKey}
	if column != "" {
		col = clause.Column{Name: column}
	}
	return func(db *gorm.DB) *gorm.DB {
		return db.Where(clause.Gte{Column: col, Value: from}).Where(clause.Lt{Column: col, Value: to})
	}
}
