package segment

import (
	"fmt"
	"time"

	"github.com/idkit-go/idkit/generator/internal/sqldialect"
	"github.com/idkit-go/idkit/sqltypes/dialect"
)

// Options configures [New]. Zero fields take the defaults shown.
type Options struct {
	// Table is the segment table, created if missing; a plain identifier.
	// Default "idkit_segments".
	Table string
	// Dialect of the database: [dialect.Postgres], [dialect.MySQL] (also
	// MariaDB) or [dialect.SQLite]; the zero value detects it from the
	// driver.
	Dialect dialect.Dialect
	// Step is the first and smallest segment size. Default 1000.
	Step int64
	// MaxStep is the largest segment size. Default 1,000,000 (at least Step).
	MaxStep int64
	// Start is max_id for a tag row that does not exist yet: its first ID is
	// Start+1. Default 0. Ignored when the row exists.
	Start int64
	// PrefetchAt is the fraction of the current segment consumed when the
	// next one is fetched in the background. Default 0.1; in (0, 1).
	PrefetchAt float64
	// Grow: a segment used up faster than this doubles the next step (up to
	// MaxStep). Default 15 minutes.
	Grow time.Duration
	// Shrink: a segment that lasted longer than this halves the next step
	// (down to Step). Default 30 minutes; at least Grow.
	Shrink time.Duration
	// Timeout bounds one fetch statement. Default 5 s.
	Timeout time.Duration
	// RetryAfter is how long a failed background fetch waits before the
	// next one is tried. Default 100 ms. Callers with no IDs left never
	// wait for it: they fetch at once.
	RetryAfter time.Duration
}

func (o Options) withDefaults() (Options, error) {
	if o.Table == "" {
		o.Table = "idkit_segments"
	}
	if o.Step == 0 {
		o.Step = 1000
	}
	if o.MaxStep == 0 {
		o.MaxStep = max(1_000_000, o.Step)
	}
	if o.PrefetchAt == 0 {
		o.PrefetchAt = 0.1
	}
	if o.Grow == 0 {
		o.Grow = 15 * time.Minute
	}
	if o.Shrink == 0 {
		o.Shrink = max(30*time.Minute, o.Grow)
	}
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Second
	}
	if o.RetryAfter == 0 {
		o.RetryAfter = 100 * time.Millisecond
	}
	switch {
	case !sqldialect.ValidIdent(o.Table):
		return o, fmt.Errorf("%w: table name %q is not a plain identifier", ErrInvalidConfig, o.Table)
	case o.Step < 1 || o.MaxStep < o.Step || o.MaxStep > 1<<31-1:
		return o, fmt.Errorf("%w: need 1 <= step %d <= max step %d < 2^31", ErrInvalidConfig, o.Step, o.MaxStep)
	case o.Start < 0:
		return o, fmt.Errorf("%w: negative start %d", ErrInvalidConfig, o.Start)
	case o.PrefetchAt <= 0 || o.PrefetchAt >= 1:
		return o, fmt.Errorf("%w: prefetch fraction %v not in (0, 1)", ErrInvalidConfig, o.PrefetchAt)
	case o.Grow < 0 || o.Shrink < o.Grow || o.Timeout < 0 || o.RetryAfter < 0:
		return o, fmt.Errorf("%w: negative duration, or shrink below grow", ErrInvalidConfig)
	}
	return o, nil
}
