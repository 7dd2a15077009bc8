package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/pgxtypes"
)

// target returns the host:port the server listens on.
func (s *server) target() (string, error) {
	switch s.name {
	case "postgres":
		cfg, err := pgx.ParseConfig(s.dsn)
		if err != nil {
			return "", err
		}
		return net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), nil
	case "mariadb":
		cfg, err := mysqlConfig(s.dsn)
		if err != nil {
			return "", err
		}
		return cfg.Addr, nil
	}
	return "", fmt.Errorf("insertbench: no network target for %s", s.name)
}

// pgConfig returns c's pgx connection settings (with -asynccommit,
// synchronous_commit off).
func (c *netConn) pgConfig() (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(c.s.dsn)
	if err != nil {
		return nil, err
	}
	host, port, err := net.SplitHostPort(c.addr)
	if err != nil {
		return nil, err
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil, err
	}
	cfg.Host, cfg.Port = host, uint16(p)
	if *netAsync {
		cfg.RuntimeParams["synchronous_commit"] = "off"
	}
	return cfg, nil
}

// pgx connects to PostgreSQL through c with pgx, idkit's types registered.
func (c *netConn) pgx(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := c.pgConfig()
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	pgxtypes.Register(conn.TypeMap())
	return conn, nil
}

// gorm opens GORM with gormplugin on one connection through c, as users
// open it (database/sql over pgx's stdlib, no pgxtypes), with
// SkipDefaultTransaction if autocommit.
func (c *netConn) gorm(k keyKind, autocommit bool) (*gorm.DB, func(), error) {
	var d gorm.Dialector
	switch c.s.name {
	case "postgres":
		cfg, err := c.pgConfig()
		if err != nil {
			return nil, nil, err
		}
		db := stdlib.OpenDB(*cfg)
		db.SetMaxOpenConns(1)
		d = postgres.New(postgres.Config{Conn: db})
	default:
		cfg, err := mysqlConfig(c.s.dsn)
		if err != nil {
			return nil, nil, err
		}
		cfg.Addr = c.addr
		db, err := openMySQL(cfg)
		if err != nil {
			return nil, nil, err
		}
		d = mysqlDialector(db)
	}
	gdb, err := gorm.Open(d, &gorm.Config{SkipDefaultTransaction: autocommit, Logger: logger.Discard})
	if err != nil {
		return nil, nil, err
	}
	var opts []gormplugin.Option
	if k.plugin != nil {
		opts = k.plugin()
	}
	if err := gdb.Use(gormplugin.New(opts...)); err != nil {
		return nil, nil, err
	}
	sqlDB, err := gdb.DB()
	if err != nil {
		return nil, nil, err
	}
	return gdb, func() { sqlDB.Close() }, nil
}

// pgPing measures the round trip of conn.
func pgPing(ctx context.Context, conn *pgx.Conn) func() error {
	return func() error { _, err := conn.Exec(ctx, "SELECT 1", pgx.QueryExecModeSimpleProtocol); return err }
}

// keyType is the key's column type without its PRIMARY KEY (and the
// sequence's default): the type of a column that refers to it.
func keyType(k keyKind, db string) string {
	if k.seq {
		return "BIGINT"
	}
	return strings.TrimSuffix(k.column[db], " PRIMARY KEY")
}

// netTables creates the scenario's tables for k and returns their names and
// a function that drops them.
func (c *netConn) tables(ctx context.Context, scenario string, k keyKind) (main, lines string, drop func(), err error) {
	s := c.s
	text, engine := "text NOT NULL", ""
	if s.name == "mariadb" {
		text, engine = "VARCHAR(1024) NOT NULL", " ENGINE=InnoDB"
	}
	main = "bench48_" + scenario + "_" + k.name
	var ddl []string
	switch scenario {
	case "orders":
		lines = "bench48_lines_" + k.name
		ddl = []string{
			fmt.Sprintf("CREATE TABLE %s (id %s, customer %s, total BIGINT NOT NULL)%s", main, k.column[s.name], text, engine),
			fmt.Sprintf("CREATE TABLE %s (id %s, order_id %s NOT NULL, sku %s, qty INT NOT NULL)%s", lines, k.column[s.name], keyType(k, s.name), text, engine),
		}
	default:
		ddl = []string{fmt.Sprintf("CREATE TABLE %s (id %s, payload %s)%s", main, k.column[s.name], text, engine)}
	}
	drop = func() {
		for _, t := range []string{main, lines} {
			if t != "" {
				_ = s.dropTable(context.WithoutCancel(ctx), t)
			}
		}
	}
	drop()
	for _, q := range ddl {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			drop()
			return "", "", nil, err
		}
	}
	if err := s.settle(ctx); err != nil {
		drop()
		return "", "", nil, err
	}
	return main, lines, drop, nil
}

var pgMethods = []netMethod{
	{"bulk", "returning", seqOnly, pgReturning},
	{"bulk", "copy", anyKey, pgCopy},
	{"bulk", "gorm", anyKey, gormBulk},
	{"orders", "two", seqOnly, pgOrdersTwo},
	{"orders", "pipelined", clientOnly, pgOrdersPipelined},
	{"orders", "gorm", anyKey, gormOrders},
	{"retry", "insert", anyKey, pgRetry},
}

// pgReturning inserts the rows in multi-row INSERT … RETURNING id
// statements of cfg.batch rows, each committed on its own, and keeps every
// key.
func pgReturning(ctx context.Context, c *netConn, k keyKind, cfg netConfig) (netRun, error) {
	var res netRun
	table, _, drop, err := c.tables(ctx, "bulk", k)
	if err != nil {
		return res, err
	}
	defer drop()
	conn, err := c.pgx(ctx)
	if err != nil {
		return res, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if res.MeasuredRTT, err = medianRTT(pgPing(ctx, conn)); err != nil {
		return res, err
	}
	keys := make([]int64, 0, cfg.rows)
	args := make([]any, cfg.batch)
	full := "INSERT INTO " + table + " (payload) VALUES " + c.s.placeholders(cfg.batch, 1) + " RETURNING id"
	res.Units = cfg.rows
	res.Secs, err = timed(func() error {
		for done := 0; done < cfg.rows; done += cfg.batch {
			n := min(cfg.batch, cfg.rows-done)
			q := full
			if n != cfg.batch {
				q = "INSERT INTO " + table + " (payload) VALUES " + c.s.placeholders(n, 1) + " RETURNING id"
			}
			for i := range n {
				args[i] = cfg.payloads[(done+i)%len(cfg.payloads)]
			}
			rows, err := conn.Query(ctx, q, args[:n]...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return err
				}
				keys = append(keys, id)
			}
			if rows.Close(); rows.Err() != nil {
				return rows.Err()
			}
		}
		return nil
	})
	if err == nil && len(keys) != cfg.rows {
		err = fmt.Errorf("read %d keys back, want %d", len(keys), cfg.rows)
	}
	return res, err
}

// pgCopy loads the rows with COPY (pgx CopyFrom), cfg.copyBatch rows per
// COPY: with client keys it makes every key first and keeps them; for the
// sequence it sends only the payloads and learns no key.
func pgCopy(ctx context.Context, c *netConn, k keyKind, cfg netConfig) (netRun, error) {
	var res netRun
	table, _, drop, err := c.tables(ctx, "bulk", k)
	if err != nil {
		return res, err
	}
	defer drop()
	conn, err := c.pgx(ctx)
	if err != nil {
		return res, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if res.MeasuredRTT, err = medianRTT(pgPing(ctx, conn)); err != nil {
		return res, err
	}
	cols := []string{"id", "payload"}
	if k.seq {
		cols = cols[1:]
	}
	var next func() (any, error)
	if !k.seq {
		next = k.newRaw()
	}
	keys := make([]any, 0, cfg.rows)
	row := make([]any, len(cols))
	res.Units = cfg.rows
	res.Secs, err = timed(func() error {
		for done := 0; done < cfg.rows; done += cfg.copyBatch {
			n := min(cfg.copyBatch, cfg.rows-done)
			i := 0
			src := pgx.CopyFromFunc(func() ([]any, error) {
				if i == n {
					return nil, nil
				}
				p := cfg.payloads[(done+i)%len(cfg.payloads)]
				i++
				if next == nil {
					row[0] = p
					return row, nil
				}
				id, err := next()
				if err != nil {
					return nil, err
				}
				keys = append(keys, id)
				row[0], row[1] = id, p
				return row, nil
			})
			got, err := conn.CopyFrom(ctx, pgx.Identifier{table}, cols, src)
			if err != nil {
				return err
			}
			if int(got) != n {
				return fmt.Errorf("COPY loaded %d rows, want %d", got, n)
			}
		}
		return nil
	})
	return res, err
}

// orderRows returns the arguments of order o: its customer and total, and
// its lines' sku and qty.
func orderArgs(o, lines int) (customer string, total int64, sku []string, qty []int32) {
	customer = "customer-" + strconv.Itoa(o%1000)
	for l := range lines {
		sku = append(sku, "sku-"+strconv.Itoa((o+l)%5000))
		qty = append(qty, int32(1+(o+l)%7))
		total += int64(qty[l]) * 100
	}
	return customer, total, sku, qty
}

// linesSQL returns the multi-row INSERT of n lines, with or without their
// own keys, the order's key first among the arguments when client keys
// (and in the first line's order_id position otherwise).
func linesSQL(s *server, table string, n int, clientKeys bool) string {
	cols, per := "(order_id, sku, qty)", 3
	if clientKeys {
		cols, per = "(id, order_id, sku, qty)", 4
	}
	return "INSERT INTO " + table + " " + cols + " VALUES " + s.placeholders(n, per)
}

// pgOrdersTwo inserts each order and its lines with the sequence: the
// order's INSERT … RETURNING id opens a transaction in the first round
// trip, its lines and the COMMIT follow in the second.
func pgOrdersTwo(ctx context.Context, c *netConn, k keyKind, cfg netConfig) (netRun, error) {
	var res netRun
	orders, lines, drop, err := c.tables(ctx, "orders", k)
	if err != nil {
		return res, err
	}
	defer drop()
	conn, err := c.pgx(ctx)
	if err != nil {
		return res, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if res.MeasuredRTT, err = medianRTT(pgPing(ctx, conn)); err != nil {
		return res, err
	}
	insOrder := "INSERT INTO " + orders + " (customer, total) VALUES ($1, $2) RETURNING id"
	insLines := linesSQL(c.s, lines, cfg.lines, false)
	args := make([]any, 3*cfg.lines)
	res.Units = cfg.orders
	res.Secs, err = timed(func() error {
		for o := range cfg.orders {
			customer, total, sku, qty := orderArgs(o, cfg.lines)
			var b pgx.Batch
			b.Queue("BEGIN")
			var id int64
			b.Queue(insOrder, customer, total).QueryRow(func(r pgx.Row) error { return r.Scan(&id) })
			if err := conn.SendBatch(ctx, &b).Close(); err != nil {
				return err
			}
			for l := range cfg.lines {
				args[3*l], args[3*l+1], args[3*l+2] = id, sku[l], qty[l]
			}
			b = pgx.Batch{}
			b.Queue(insLines, args...)
			b.Queue("COMMIT")
			if err := conn.SendBatch(ctx, &b).Close(); err != nil {
				return err
			}
		}
		return nil
	})
	return res, err
}

// pgOrdersPipelined inserts each order and its lines with client keys in
// one pgx Batch: one round trip, one implicit transaction.
func pgOrdersPipelined(ctx context.Context, c *netConn, k keyKind, cfg netConfig) (netRun, error) {
	var res netRun
	orders, lines, drop, err := c.tables(ctx, "orders", k)
	if err != nil {
		return res, err
	}
	defer drop()
	conn, err := c.pgx(ctx)
	if err != nil {
		return res, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if res.MeasuredRTT, err = medianRTT(pgPing(ctx, conn)); err != nil {
		return res, err
	}
	insOrder := "INSERT INTO " + orders + " (id, customer, total) VALUES ($1, $2, $3)"
	insLines := linesSQL(c.s, lines, cfg.lines, true)
	next := k.newRaw()
	args := make([]any, 4*cfg.lines)
	res.Units = cfg.orders
	res.Secs, err = timed(func() error {
		for o := range cfg.orders {
			customer, total, sku, qty := orderArgs(o, cfg.lines)
			id, err := next()
			if err != nil {
				return err
			}
			for l := range cfg.lines {
				lid, err := next()
				if err != nil {
					return err
				}
				args[4*l], args[4*l+1], args[4*l+2], args[4*l+3] = lid, id, sku[l], qty[l]
			}
			var b pgx.Batch
			b.Queue(insOrder, id, customer, total)
			b.Queue(insLines, args...)
			if err := conn.SendBatch(ctx, &b).Close(); err != nil {
				return err
			}
		}
		return nil
	})
	return res, err
}

// pgRetry commits cfg.retries batches of cfg.batch rows, each in its own
// transaction whose COMMIT reply the proxy loses, and replays each batch
// once on a new connection as it was built before the first attempt: with
// client keys, the same keys; with the sequence, the payloads (it has no
// key before the INSERT). It counts the rows beyond the ones meant and the
// replays refused with a duplicate key (SQLSTATE 23505).
func pgRetry(ctx context.Context, c *netConn, k keyKind, cfg netConfig) (netRun, error) {
	c = &netConn{s: c.s, proxy: c.proxy, addr: c.proxy.Addr()} // a lost reply needs the proxy, even at 0
	var res netRun
	table, _, drop, err := c.tables(ctx, "retry", k)
	if err != nil {
		return res, err
	}
	defer drop()
	cols, per := "(payload)", 1
	var next func() (any, error)
	if !k.seq {
		cols, per, next = "(id, payload)", 2, k.newRaw()
	}
	q := "INSERT INTO " + table + " " + cols + " VALUES " + c.s.placeholders(cfg.batch, per)
	attempt := func(args []any, lose bool) error {
		conn, err := c.pgx(ctx)
		if err != nil {
			return err
		}
		defer conn.Close(context.WithoutCancel(ctx))
		if res.MeasuredRTT == 0 {
			if res.MeasuredRTT, err = medianRTT(pgPing(ctx, conn)); err != nil {
				return err
			}
		}
		tx, err := conn.Begin(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			_ = tx.Rollback(ctx)
			return err
		}
		if lose {
			c.proxy.DropNextReply()
		}
		return tx.Commit(ctx)
	}
	res.Units = cfg.retries * cfg.batch
	res.Secs, err = timed(func() error {
		for b := range cfg.retries {
			args := make([]any, 0, per*cfg.batch)
			for i := range cfg.batch {
				if next != nil {
					id, err := next()
					if err != nil {
						return err
					}
					args = append(args, id)
				}
				args = append(args, cfg.payloads[(b*cfg.batch+i)%len(cfg.payloads)])
			}
			if err := attempt(args, true); err == nil {
				return fmt.Errorf("batch %d: the COMMIT's reply was not lost", b)
			}
			err := attempt(args, false)
			var pe *pgconn.PgError
			switch {
			case errors.As(err, &pe) && pe.Code == "23505":
				res.Refused++
			case err != nil:
				return fmt.Errorf("batch %d replay: %w", b, err)
			}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	var n int
	if err := c.s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table).Scan(&n); err != nil {
		return res, err
	}
	res.Duplicates = n - res.Units
	return res, nil
}
