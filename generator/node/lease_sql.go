package node

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/idkit-go/idkit/generator/internal/sqldialect"
	"github.com/idkit-go/idkit/internal/sqlcol"
)

// NewSQLLease claims a node ID in the lease table of db (created if
// missing) and returns the [Lease], renewed in the background until Close.
// The lowest node ID in [0, opts.Layout.MaxNode()] that has no row, or
// whose lease has expired by the database's clock, is claimed in one
// transaction: on PostgreSQL and MySQL/MariaDB a locking read (FOR UPDATE
// SKIP LOCKED, READ COMMITTED) then a conditional UPDATE or INSERT; on
// SQLite inside BEGIN IMMEDIATE. A claim that loses a race tries the next
// candidate.
//
// It returns an error wrapping [ErrInvalidConfig] for bad options, a nil db
// or an undetectable dialect, [ErrExhausted] when every node ID is held,
// and the database error (wrapped) when the table cannot be created or
// the claim fails.
func NewSQLLease(ctx context.Context, db *sql.DB, opts LeaseOptions) (*Lease, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if db == nil {
		return nil, fmt.Errorf("%w: nil *sql.DB", ErrInvalidConfig)
	}
	d, ok := sqldialect.Resolve(db, o.Dialect)
	if !ok {
		return nil, fmt.Errorf("%w: cannot tell the SQL dialect of driver %T; set Dialect", ErrInvalidConfig, db.Driver())
	}
	o.Dialect = d
	b := &sqlBackend{db: db, d: d, s: leaseStmts(d, o.Table)}
	if err := createTable(ctx, db, b.s.create, o.Table); err != nil {
		return nil, err
	}
	return startLease(ctx, b, o)
}

// createTable creates a table with sqldialect.CreateTable, naming it in
// the error.
func createTable(ctx context.Context, db *sql.DB, create, table string) error {
	if err := sqldialect.CreateTable(ctx, db, create, table); err != nil {
		return fmt.Errorf("node: create table %s: %w", table, err)
	}
	return nil
}

type sqlBackend struct {
	db *sql.DB
	d  sqlcol.Dialect
	s  sqlStmts
}

// errRace means a candidate was taken by a concurrent claimer: try again.
var errRace = errors.New("node: claim race")

func (b *sqlBackend) Claim(ctx context.Context, owner string, ttl time.Duration, maxNode, prefer, bound int64) (int64, int64, error) {
	_ = prefer // not yet used: the lowest free node is taken
	var last error
	for attempt := 0; attempt < 64; attempt++ {
		node, floor, err := b.claimOnce(ctx, owner, ttl, maxNode, bound)
		switch {
		case err == nil:
			return node, floor, nil
		case errors.Is(err, ErrExhausted), ctx.Err() != nil:
			return 0, 0, err
		case !errors.Is(err, errRace):
			// Deadlocks, serialization failures and busy databases are
			// worth a few retries; anything else too, briefly.
			last = err
			if attempt > 8 {
				return 0, 0, fmt.Errorf("node: claim: %w", err)
			}
		}
		time.Sleep(time.Duration(attempt+1) * time.Millisecond)
	}
	if last == nil {
		last = errRace
	}
	return 0, 0, fmt.Errorf("node: claim gave up after repeated conflicts: %w", last)
}

// querier is what a claim needs from a *sql.Tx or an *sql.Conn.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (b *sqlBackend) claimOnce(ctx context.Context, owner string, ttl time.Duration, maxNode, bound int64) (node, floor int64, err error) {
	var q querier
	var commit, rollback func() error
	if b.d == sqlcol.SQLite {
		conn, err := b.db.Conn(ctx)
		if err != nil {
			return 0, 0, err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			return 0, 0, err
		}
		q = conn
		commit = func() error { _, err := conn.ExecContext(ctx, "COMMIT"); return err }
		rollback = func() error { _, err := conn.ExecContext(context.Background(), "ROLLBACK"); return err }
	} else {
		tx, err := b.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
		if err != nil {
			return 0, 0, err
		}
		q, commit, rollback = tx, tx.Commit, tx.Rollback
	}
	done := false
	defer func() {
		if !done {
			_ = rollback()
		}
	}()
	var expNode, expHWM sql.NullInt64
	if err := q.QueryRowContext(ctx, b.s.expired, maxNode).Scan(&expNode, &expHWM); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, 0, err
	}
	var gap sql.NullInt64
	if err := q.QueryRowContext(ctx, b.s.gap, maxNode).Scan(&gap); err != nil {
		return 0, 0, err
	}
	ttlArg := b.s.ttlArg(ttl)
	var res sql.Result
	switch {
	case gap.Valid && (!expNode.Valid || gap.Int64 < expNode.Int64):
		node, floor = gap.Int64, 0
		res, err = q.ExecContext(ctx, b.s.insert, node, owner, ttlArg, bound)
	case expNode.Valid:
		node, floor = expNode.Int64, expHWM.Int64
		res, err = q.ExecContext(ctx, b.s.take, owner, ttlArg, bound, node)
	default:
		return 0, 0, fmt.Errorf("%w: all %d node ids are leased", ErrExhausted, maxNode+1)
	}
	if err != nil {
		return 0, 0, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return 0, 0, err
	} else if n != 1 {
		return 0, 0, errRace
	}
	done = true
	if err := commit(); err != nil {
		_ = rollback()
		return 0, 0, err
	}
	return node, floor, nil
}

func (b *sqlBackend) Renew(ctx context.Context, node int64, owner string, ttl time.Duration, bound int64) error {
	res, err := b.db.ExecContext(ctx, b.s.renew, b.s.ttlArg(ttl), bound, node, owner)
	if err != nil {
		return fmt.Errorf("node: renew node %d: %w", node, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("node: renew node %d: %w", node, err)
	} else if n != 1 {
		return fmt.Errorf("%w: node %d is no longer held by %s", ErrLeaseLost, node, owner)
	}
	return nil
}

func (b *sqlBackend) Release(ctx context.Context, node int64, owner string, hwm int64, exact bool) error {
	stmt := b.s.raise
	if exact {
		stmt = b.s.release
	}
	if _, err := b.db.ExecContext(ctx, stmt, hwm, node, owner); err != nil {
		return fmt.Errorf("node: release node %d: %w", node, err)
	}
	return nil
}
