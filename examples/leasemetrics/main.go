// Command leasemetrics shows what a node lease and its generator report
// while a lease is lost and heals: the lease's log records (log/slog, text)
// and the lease's and generator's counts, exported with expvar.
//
// It claims a node in a lease table (SQLite by default, or PostgreSQL with
// -driver pgx -dsn ...), issues IDs, then plays another process taking
// its node: it rewrites the row's owner, as a claim by another holder of
// an expired lease would. The lease finds the loss at its next renewal,
// claims a node again, and the same generator issues again. The counts are
// printed as expvar's JSON before and after, and with -http they are
// served at /debug/vars until interrupted.
//
//	go run . -driver sqlite -dsn /tmp/leases.db
//	go run . -driver pgx -dsn postgres://postgres@127.0.0.1:5432/test
package main

import (
	"context"
	"database/sql"
	"errors"
	"expvar"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "modernc.org/sqlite"             // registers "sqlite"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
)

func main() {
	driver := flag.String("driver", "sqlite", `database/sql driver: "sqlite" or "pgx"`)
	dsn := flag.String("dsn", "", "data source name (default: a SQLite file in a temporary directory)")
	table := flag.String("table", "leasemetrics_leases", "lease table")
	addr := flag.String("http", "", "serve /debug/vars here after the demo (e.g. 127.0.0.1:8080)")
	flag.Parse()
	if err := run(*driver, *dsn, *table, *addr); err != nil {
		log.Fatal(err)
	}
}

func run(driver, dsn, table, addr string) error {
	if dsn == "" && driver == "sqlite" {
		dir, err := os.MkdirTemp("", "leasemetrics")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		dsn = "file:" + filepath.Join(dir, "leases.db") + "?_pragma=busy_timeout(5000)"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()

	logger := slog.New(slog.NewTextHandler(os.Stdout, nil))
	store := sqllease.NewStore(db, sqllease.StoreOptions{Table: table})
	const ttl = 2 * time.Second // short, to see a heal quickly
	lease, err := node.NewLease(ctx, store, node.LeaseOptions{TTL: ttl, Logger: logger})
	if err != nil {
		return err
	}
	defer lease.Close(ctx)
	g, err := node.NewSnowflake(ctx, lease)
	if err != nil {
		return err
	}
	publish(lease, g)

	issue(g, 1000)
	fmt.Println("before:", expvar.Get("idkit").String())

	// Another holder takes the node (what a claim of an expired lease
	// does to the row).
	lost := lease.Node()
	q := "UPDATE " + table + " SET owner = 'another-process' WHERE node = $1"
	if _, err := db.ExecContext(ctx, q, lost); err != nil {
		return err
	}
	// Keep issuing, as a service would; Next fails fast during the gap.
	deadline := time.Now().Add(2 * ttl)
	for lease.Stats().Reclaims == 0 {
		if time.Now().After(deadline) {
			return errors.New("the lease did not heal")
		}
		if _, err := g.Next(); err != nil && !errors.Is(err, generator.ErrFenced) {
			return err
		}
		time.Sleep(time.Millisecond)
	}
	issue(g, 1000)
	fmt.Printf("node %d lost; the same generator now issues on node %d\n", lost, g.Node())
	fmt.Println("after:", expvar.Get("idkit").String())

	if addr != "" {
		fmt.Printf("serving http://%s/debug/vars; interrupt to stop\n", addr)
		srv := &http.Server{Addr: addr} // expvar registers /debug/vars on the default mux
		go func() { _ = srv.ListenAndServe() }()
		stop, cancel := signal.NotifyContext(ctx, os.Interrupt)
		defer cancel()
		<-stop.Done()
		_ = srv.Shutdown(context.Background())
	}
	return lease.Close(ctx)
}

// publish exports the lease's and the generator's counts as the expvar
// "idkit": {"lease": LeaseStats, "generator": SnowflakeStats}. expvar
// calls the function at each read, so the values are current.
func publish(lease *node.Lease, g *generator.Snowflake) {
	expvar.Publish("idkit", expvar.Func(func() any {
		st := lease.Stats()
		return map[string]any{
			"lease": map[string]any{
				"node":             st.Node,
				"state":            st.State.String(),
				"last_renewal":     st.LastRenewal,
				"fence_in_seconds": st.FenceIn.Seconds(),
				"renewals":         st.Renewals,
				"failures":         st.Failures,
				"fences":           st.Fences,
				"reclaims":         st.Reclaims,
			},
			"generator": g.Stats(),
		}
	}))
}

func issue(g *generator.Snowflake, n int) {
	for range n {
		if _, err := g.Next(); err != nil {
			log.Fatal(err)
		}
	}
}
