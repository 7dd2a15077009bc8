// Command leaseworker is the process the multi-process lease test runs many
// copies of (see generator/node/multiprocess_test.go, which builds it). It
// repeatedly claims a node ID from a PostgreSQL lease table, generates
// Snowflake IDs under it and inserts them in batches into a table whose
// primary key catches any duplicate, until SIGTERM.
//
// Exit status: 0 after a clean stop, 2 on an insert or setup error (the
// test counts these as failures), 1 on bad flags. Lines on stdout record
// claims, fences and releases for the test's log.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/internal/testclock"
	"github.com/idkit-go/idkit/generator/node/sqllease"
)

type config struct {
	dsn, leases, ids, holders, seq string
	bits                           uint
	ttl, offset, churn, pause      time.Duration
	batch                          int
	heal                           bool
}

func main() {
	var c config
	flag.StringVar(&c.dsn, "dsn", "", "PostgreSQL DSN")
	flag.StringVar(&c.leases, "leases", "", "lease table")
	flag.StringVar(&c.ids, "ids", "", "table of issued ids (id BIGINT PRIMARY KEY, holder BIGINT)")
	flag.StringVar(&c.holders, "holders", "", "table of holders (seq, node, owner, pid, offset_ms)")
	flag.StringVar(&c.seq, "seq", "", "sequence giving the global claim order")
	flag.UintVar(&c.bits, "bits", 3, "node bits of the layout")
	flag.DurationVar(&c.ttl, "ttl", 2*time.Second, "lease TTL")
	flag.DurationVar(&c.offset, "offset", 0, "clock offset of this process (negative: behind)")
	flag.DurationVar(&c.churn, "churn", 0, "release the lease after a random hold of up to this long (0: never)")
	flag.IntVar(&c.batch, "batch", 500, "ids per insert")
	flag.DurationVar(&c.pause, "pause", 0, "pause after each insert")
	flag.BoolVar(&c.heal, "heal", false, "on a fence keep calling Next on the same generator until the lease heals")
	flag.Parse()
	if c.dsn == "" || c.leases == "" || c.ids == "" || c.holders == "" || c.seq == "" {
		fmt.Fprintln(os.Stderr, "leaseworker: missing flags")
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "leaseworker: FATAL:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, c config) error {
	db, err := sql.Open("pgx", c.dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	spec := generator.Twitter().Spec()
	spec.NodeBits, spec.Name = uint8(c.bits), "multiproc"
	layout, err := generator.NewLayout(spec)
	if err != nil {
		return err
	}
	opts := node.LeaseOptions{TTL: c.ttl, RenewEvery: c.ttl / 5, Margin: c.ttl / 4}
	gen := []generator.SnowflakeOption{generator.WithLayout(layout), generator.WithClock(testclock.Offset{D: c.offset})}
	store := sqllease.NewStore(db, sqllease.StoreOptions{Table: c.leases})
	for ctx.Err() == nil {
		lease, err := node.NewLease(ctx, store, opts, gen...)
		if errors.Is(err, node.ErrExhausted) {
			sleep(ctx, 50*time.Millisecond)
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("claim: %w", err)
		}
		if err := hold(ctx, c, db, lease); err != nil {
			return err
		}
		if c.churn > 0 { // let a waiting process take a turn
			sleep(ctx, time.Duration(rand.Int64N(int64(300*time.Millisecond))))
		}
	}
	return nil
}

// hold generates under one lease until it is fenced, churned or stopped.
func hold(ctx context.Context, c config, db *sql.DB, lease *node.Lease) error {
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := lease.Close(cctx); err == nil {
			fmt.Printf("released node=%d\n", lease.Node())
		}
	}()
	var holder int64
	err := db.QueryRowContext(ctx, fmt.Sprintf(
		`INSERT INTO %s (seq, node, owner, pid, offset_ms) VALUES (nextval('%s'), $1, $2, $3, $4) RETURNING seq`,
		c.holders, c.seq), lease.Node(), lease.Stats().Owner, os.Getpid(), c.offset.Milliseconds()).Scan(&holder)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("record holder: %w", err)
	}
	fmt.Printf("claimed node=%d holder=%d\n", lease.Node(), holder)
	g, err := node.NewSnowflake(ctx, lease)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	var until <-chan time.Time
	if c.churn > 0 {
		until = time.After(time.Duration(rand.Int64N(int64(c.churn))) + c.ttl/2)
	}
	if c.heal {
		return holdHealing(ctx, c, db, lease, g, holder)
	}
	insert := fmt.Sprintf(`INSERT INTO %s (id, holder) SELECT unnest($1::bigint[]), $2`, c.ids)
	ids := make([]int64, 0, c.batch)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-until:
			return nil
		default:
		}
		ids = ids[:0]
		fenced := false
		for len(ids) < c.batch {
			id, err := g.Next()
			switch {
			case err == nil:
				ids = append(ids, int64(id))
				continue
			case errors.Is(err, generator.ErrFenced):
				fmt.Printf("fenced node=%d holder=%d: %v\n", lease.Node(), holder, err)
				fenced = true
			case errors.Is(err, generator.ErrClockMovedBackwards):
				time.Sleep(time.Millisecond)
				continue
			default:
				return fmt.Errorf("next: %w", err)
			}
			break
		}
		if len(ids) > 0 {
			// Issued IDs are inserted even after a fence: they were made
			// while the lease was valid. The insert gets its own deadline
			// so a stop signal does not abandon it half way.
			ictx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, err := db.ExecContext(ictx, insert, ids, holder)
			cancel()
			if err != nil {
				return fmt.Errorf("insert %d ids (holder %d, node %d): %w", len(ids), holder, lease.Node(), err)
			}
		}
		if fenced {
			return nil
		}
		if c.pause > 0 {
			time.Sleep(c.pause)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// holdHealing generates on g until ctx ends, through fences: the lease heals
// in the background and the same generator resumes. Each heal by a new
// claim starts a new holder record. An ID returned while a heal completed
// (Reclaims changed during its Next) cannot be placed on either side for
// sure: it is dropped and counted on stdout.
func holdHealing(ctx context.Context, c config, db *sql.DB, lease *node.Lease, g *generator.Snowflake, holder int64) error {
	insert := fmt.Sprintf(`INSERT INTO %s (id, holder) SELECT unnest($1::bigint[]), $2`, c.ids)
	ids := make([]int64, 0, c.batch)
	flush := func() error {
		if len(ids) == 0 {
			return nil
		}
		ictx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ictx, insert, ids, holder); err != nil {
			return fmt.Errorf("insert %d ids (holder %d): %w", len(ids), holder, err)
		}
		ids = ids[:0]
		return nil
	}
	reclaims, fences := lease.Stats().Reclaims, lease.Stats().Fences
	fenced, dropped := false, 0
	for ctx.Err() == nil {
		r0 := lease.Stats().Reclaims
		id, err := g.Next()
		r1 := lease.Stats().Reclaims
		switch {
		case err == nil:
		case errors.Is(err, generator.ErrFenced):
			if !fenced {
				fmt.Printf("fenced node=%d holder=%d: %v\n", lease.Node(), holder, err)
				fenced = true
				if err := flush(); err != nil {
					return err
				}
			}
			sleep(ctx, 10*time.Millisecond)
			continue
		case errors.Is(err, generator.ErrClockMovedBackwards):
			time.Sleep(time.Millisecond)
			continue
		default:
			return fmt.Errorf("next: %w", err)
		}
		// The lease may have lapsed and healed while this goroutine was
		// away (inserting, or paused with the rest of the process): the
		// lease's count of fences tells.
		fenced = false
		if f := lease.Stats().Fences; f != fences {
			fences = f
			fmt.Printf("resumed node=%d fences=%d reclaims=%d\n", g.Node(), f, r1)
		}
		if r1 != reclaims {
			if err := flush(); err != nil {
				return err
			}
			reclaims = r1
			hctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := db.QueryRowContext(hctx, fmt.Sprintf(
				`INSERT INTO %s (seq, node, owner, pid, offset_ms) VALUES (nextval('%s'), $1, $2, $3, $4) RETURNING seq`,
				c.holders, c.seq), lease.Node(), lease.Stats().Owner, os.Getpid(), c.offset.Milliseconds()).Scan(&holder)
			cancel()
			if err != nil {
				return fmt.Errorf("record holder: %w", err)
			}
			fmt.Printf("healed node=%d holder=%d\n", lease.Node(), holder)
			if r0 != r1 {
				dropped++
				fmt.Printf("dropped %d ids issued during a heal\n", dropped)
				continue
			}
		}
		ids = append(ids, int64(id))
		if len(ids) == c.batch {
			if err := flush(); err != nil {
				return err
			}
			if c.pause > 0 {
				time.Sleep(c.pause)
			}
		}
	}
	return flush()
}
