package segment

import (
	"fmt"
	"time"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/generator/internal/sqldialect"
)

// Options configures [New]. Zero fields take the defaults shown.
type Options struct {
	// Table is the segment table, a plain identifier. Default
	// "idkit_segments".
	Table string
	// Dialect is [dialect.Postgres], [dialect.MySQL] or [dialect.SQLite];
	// the zero value detects it from the driver.
	Dialect dialect.Dialect
	// Step is the first and smallest segment size (default 1000); MaxStep
	// the largest (default 1,000,000, at least Step).
	Step, MaxStep int64
	// Start is max_id of a new tag row: its first ID is Start+1. Default 0.
	Start int64
	// PrefetchAt is the fraction of a segment used when the next is
	// fetched. Default 0.1; in (0, 1).
	PrefetchAt float64
	// A segment used up in less than Grow doubles the next step; one that
	// lasted more than Shrink halves it. Defaults 15 and 30 minutes.
	Grow, Shrink time.Duration
	// Timeout bounds one fetch (default 5 s); RetryAfter spaces background
	// fetches after a failure (default 100 ms).
	Timeout, RetryAfter time.Duration
	// AllowSplitBrain, if true, makes fetches on a primary with replicas
	// return without their acknowledgement, and lets New use a primary
	// whose replicas cannot acknowledge (MySQL and MariaDB without
	// semi-synchronous replication, a PostgreSQL role that cannot read
	// the replicas' flush_lsn). A failover to a replica that missed
	// fetches, or a replica promoted while the old primary still serves,
	// then hands out segments twice; it is named as
	// sqllease.StoreOptions.AllowSplitBrain is:
	// https://github.com/idkit-go/idkit/blob/main/docs/generators.md#store-faults
	AllowSplitBrain bool
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
