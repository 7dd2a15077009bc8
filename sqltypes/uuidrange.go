package sqltypes

import (
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/idkit-go/idkit/types"
)

// UUIDRange is the half-open primary-key range [From, To) of the version 7
// UUIDs created in a time range; see [NewUUIDRange]. From == To is the
// empty range.
type UUIDRange struct {
	From, To types.UUID
}

// lastUUIDv7Milli is the last Unix millisecond a version 7 UUID can hold.
const lastUUIDv7Milli = 1<<48 - 1

// NewUUIDRange returns the range of version 7 UUIDs made in [from, to):
// UUIDv7FromTime(from) <= id < UUIDv7FromTime(to). Version 7 UUIDs carry
// milliseconds, so from and to are rounded down to the millisecond. A to at
// or before from gives the empty range.
//
// It returns an error wrapping [ErrInvalidRange] when from is before 1970
// or to is after the last millisecond a version 7 UUID can hold (in the
// year 10889).
func NewUUIDRange(from, to time.Time) (UUIDRange, error) {
	if !to.After(from) {
		to = from
	}
	for _, t := range []time.Time{from, to} {
		if ms := t.UnixMilli(); t.Before(time.Unix(0, 0)) || ms > lastUUIDv7Milli {
			return UUIDRange{}, fmt.Errorf("%w: %s is outside the version 7 UUID time range 1970-01-01T00:00:00Z to %s",
				ErrInvalidRange, t.UTC().Format(time.RFC3339Nano), time.UnixMilli(lastUUIDv7Milli).UTC().Format(time.RFC3339Nano))
		}
	}
	return UUIDRange{From: types.UUIDv7FromTime(from), To: types.UUIDv7FromTime(to)}, nil
}

// Contains reports whether id is in r.
func (r UUIDRange) Contains(id types.UUID) bool {
	return id.Compare(r.From) >= 0 && id.Compare(r.To) < 0
}

// Args returns r's bounds as SQL arguments, From then To, for a condition
// such as "id >= $1 AND id < $2" on a uuid (PostgreSQL), BINARY(16) or BLOB
// column, which compare as the bytes do. For a CHAR(36) column of
// lower-case canonical text pass From.String() and To.String().
func (r UUIDRange) Args() []any { return []any{r.From, r.To} }

// Scope returns a GORM scope adding "column >= From AND column < To" for a
// uuid, BINARY(16) or BLOB column; an empty column means the model's
// primary key.
func (r UUIDRange) Scope(column string) func(*gorm.DB) *gorm.DB {
	return rangeScope(column, r.From, r.To)
}
