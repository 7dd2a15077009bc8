// Package idrange turns a time range into the primary-key range of the IDs
// created in it. It is the one implementation behind sqltypes'
// NewObjectIDRange and NewSnowflakeRange and the idkit command's range.
package idrange

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// ErrObjectIDTime is wrapped when a time is outside what an ObjectID's
// 32-bit seconds hold: 1970-01-01T00:00:00Z to 2106-02-07T06:28:15Z.
var ErrObjectIDTime = errors.New("outside the ObjectID time range 1970-01-01T00:00:00Z to 2106-02-07T06:28:15Z")

// ObjectIDs returns the half-open range [lo, hi) of the ObjectIDs created
// in [from, to): lo is ObjectIDFromTime(from), hi ObjectIDFromTime(to).
// ObjectIDs carry whole seconds, so both are rounded down to the second. A
// to at or before from gives the empty range (hi == lo). It returns an
// error wrapping [ErrObjectIDTime] when from or to is outside what an
// ObjectID holds.
func ObjectIDs(from, to time.Time) (lo, hi types.ObjectID, err error) {
	if !to.After(from) {
		to = from
	}
	for _, t := range []time.Time{from, to} {
		if s := t.Unix(); s < 0 || s > math.MaxUint32 {
			return lo, hi, fmt.Errorf("%s is %w", t.UTC().Format(time.RFC3339Nano), ErrObjectIDTime)
		}
	}
	return types.ObjectIDFromTime(from), types.ObjectIDFromTime(to), nil
}

// Snowflakes returns the half-open range [lo, hi) of the IDs that layout's
// generators issue in [from, to): lo is MinID(from), hi MinID(to). Times
// are rounded down to the layout's tick. A from before the layout's epoch
// is moved to the epoch (no ID is older); a to at or before from gives the
// empty range. It returns layout's error (wrapping
// [generator.ErrTimeOverflow]) when from or to is at or after the layout's
// end, and an error wrapping [generator.ErrInvalidLayout] for the zero
// Layout.
func Snowflakes(layout generator.Layout, from, to time.Time) (lo, hi types.Snowflake, err error) {
	if layout.IsZero() {
		return 0, 0, fmt.Errorf("the zero layout: %w", generator.ErrInvalidLayout)
	}
	if from.Before(layout.Spec().Epoch) {
		from = layout.Spec().Epoch
	}
	if !to.After(from) {
		to = from
	}
	if lo, err = layout.MinID(from); err != nil {
		return 0, 0, err
	}
	if hi, err = layout.MinID(to); err != nil {
		return 0, 0, err
	}
	return lo, hi, nil
}
