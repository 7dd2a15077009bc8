package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/google/uuid"
	"gorm.io/driver/mysql"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/types"
)

func mysqlConfig(dsn string) (*gomysql.Config, error) { return gomysql.ParseDSN(dsn) }

// openMySQL opens one connection with cfg.
func openMySQL(cfg *gomysql.Config) (*sql.DB, error) {
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	return db, nil
}

func mysqlDialector(db *sql.DB) gorm.Dialector { return mysql.New(mysql.Config{Conn: db}) }

// mysqlFast connects through c with the driver's fastest settings for
// these statements: values written into the statement's text
// (interpolateParams, no prepare round trip) and several statements in one
// round trip (multiStatements).
func (c *netConn) mysqlFast() (*sql.DB, error) {
	cfg, err := mysqlConfig(c.s.dsn)
	if err != nil {
		return nil, err
	}
	cfg.Addr, cfg.InterpolateParams, cfg.MultiStatements = c.addr, true, true
	return openMySQL(cfg)
}

func myPing(ctx context.Context, db *sql.DB) func() error {
	return func() error { _, err := db.ExecContext(ctx, "DO 1"); return err }
}

var myMethods = []netMethod{
	{"bulk", "insert", anyKey, myInsert},
	{"bulk", "loaddata", anyKey, myLoadData},
	{"bulk", "gorm", anyKey, gormBulk},
	{"orders", "two", seqOnly, myOrdersTwo},
	{"orders", "pipelined", clientOnly, myOrdersPipelined},
	{"orders", "gorm", anyKey, gormOrders},
	{"retry", "insert", anyKey, myRetry},
}

// myInsert inserts the rows in multi-row INSERTs of cfg.batch rows, each
// committed on its own, and keeps every key: client keys made first, the
// sequence's from LAST_INSERT_ID() and the rows the statement inserted (the
// keys of one statement are consecutive, as GORM assumes).
func myInsert(ctx context.Context, c *netConn, k keyKind, cfg netConfig) (netRun, error) {
	var res netRun
	table, _, drop, err := c.tables(ctx, "bulk", k)
	if err != nil {
		return res, err
	}
	defer drop()
	db, err := c.mysqlFast()
	if err != nil {
		return res, err
	}
	defer db.Close()
	if res.MeasuredRTT, err = medianRTT(myPing(ctx, db)); err != nil {
		return res, err
	}
	cols, per := "(payload)", 1
	var next func() (any, error)
	if !k.seq {
		cols, per, next = "(id, payload)", 2, k.newRaw()
	}
	keys := make([]any, 0, cfg.rows)
	args := make([]any, per*cfg.batch)
	res.Units = cfg.rows
	res.Secs, err = timed(func() error {
		for done := 0; done < cfg.rows; done += cfg.batch {
			n := min(cfg.batch, cfg.rows-done)
			j := 0
			for i := range n {
				if next != nil {
					id, err := next()
					if err != nil {
						return err
					}
					keys = append(keys, id)
					args[j] = id
					j++
				}
				args[j] = cfg.payloads[(done+i)%len(cfg.payloads)]
				j++
			}
			r, err := db.ExecContext(ctx, "INSERT INTO "+table+" "+cols+" VALUES "+c.s.placeholders(n, per), args[:j]...)
			if err != nil {
				return err
			}
			if k.seq {
				first, err := r.LastInsertId()
				if err != nil {
					return err
				}
				for i := range int64(n) {
					keys = append(keys, first+i)
				}
			}
		}
		return nil
	})
	if err == nil && len(keys) != cfg.rows {
		err = fmt.Errorf("have %d keys, want %d", len(keys), cfg.rows)
	}
	return res, err
}

// keyText writes id as LOAD DATA reads it: decimal, or hex for a binary
// column (the statement's SET unhexes it), or a UUID's canonical form for
// MariaDB's UUID type.
func keyText(b []byte, id any) []byte {
	switch v := id.(type) {
	case types.Snowflake:
		return strconv.AppendInt(b, int64(v), 10)
	case types.ObjectID:
		return hex.AppendEncode(b, v[:])
	case types.UUID:
		return hex.AppendEncode(b, v[:])
	case uuid.UUID:
		return append(b, v.String()...)
	}
	return fmt.Appendf(b, "%v", id)
}

// myLoadData loads the rows with LOAD DATA LOCAL INFILE from a reader,
// cfg.copyBatch rows per statement: with client keys it makes every key
// first and keeps them; for the sequence it sends only the payloads and
// learns no key.
func myLoadData(ctx context.Context, c *netConn, k keyKind, cfg netConfig) (netRun, error) {
	var res netRun
	table, _, drop, err := c.tables(ctx, "bulk", k)
	if err != nil {
		return res, err
	}
	defer drop()
	db, err := c.mysqlFast()
	if err != nil {
		return res, err
	}
	defer db.Close()
	if res.MeasuredRTT, err = medianRTT(myPing(ctx, db)); err != nil {
		return res, err
	}
	set := ""
	cols := "(payload)"
	var next func() (any, error)
	if !k.seq {
		next, cols = k.newRaw(), "(@id, payload)"
		set = " SET id = @id"
		if k.name == "objectid" || k.name == "uuidv7" {
			set = " SET id = UNHEX(@id)"
		}
	}
	name := "bench48_" + k.name
	var buf []byte
	gomysql.RegisterReaderHandler(name, func() io.Reader { return bytes.NewReader(buf) })
	defer gomysql.DeregisterReaderHandler(name)
	q := "LOAD DATA LOCAL INFILE 'Reader::" + name + "' INTO TABLE " + table + " FIELDS TERMINATED BY '\\t' LINES TERMINATED BY '\\n' " + cols + set
	keys := make([]any, 0, cfg.rows)
	res.Units = cfg.rows
	res.Secs, err = timed(func() error {
		for done := 0; done < cfg.rows; done += cfg.copyBatch {
			n := min(cfg.copyBatch, cfg.rows-done)
			buf = buf[:0]
			for i := range n {
				if next != nil {
					id, err := next()
					if err != nil {
						return err
					}
					keys = append(keys, id)
					buf = append(keyText(buf, id), '\t')
				}
				buf = append(buf, cfg.payloads[(done+i)%len(cfg.payloads)]...)
				buf = append(buf, '\n')
			}
			r, err := db.ExecContext(ctx, q)
			if err != nil {
				return err
			}
			if got, err := r.RowsAffected(); err != nil || got != int64(n) {
				return fmt.Errorf("LOAD DATA loaded %d rows (%v), want %d", got, err, n)
			}
		}
		return nil
	})
	return res, err
}

// myOrdersTwo inserts each order and its lines with AUTO_INCREMENT: START
// TRANSACTION and the order's INSERT in the first round trip (its key is
// LAST_INSERT_ID()), its lines and the COMMIT in the second.
func myOrdersTwo(ctx context.Context, c *netConn, k keyKind, cfg netConfig) (netRun, error) {
	var res netRun
	orders, lines, drop, err := c.tables(ctx, "orders", k)
	if err != nil {
		return res, err
	}
	defer drop()
	db, err := c.mysqlFast()
	if err != nil {
		return res, err
	}
	defer db.Close()
	if res.MeasuredRTT, err = medianRTT(myPing(ctx, db)); err != nil {
		return res, err
	}
	insOrder := "START TRANSACTION; INSERT INTO " + orders + " (customer, total) VALUES (?, ?)"
	insLines := linesSQL(c.s, lines, cfg.lines, false) + "; COMMIT"
	args := make([]any, 3*cfg.lines)
	res.Units = cfg.orders
	res.Secs, err = timed(func() error {
		for o := range cfg.orders {
			customer, total, sku, qty := orderArgs(o, cfg.lines)
			r, err := db.ExecContext(ctx, insOrder, customer, total)
			if err != nil {
				return err
			}
			id, err := r.LastInsertId()
			if err != nil || id == 0 {
				return fmt.Errorf("order %d: key %d: %v", o, id, err)
			}
			for l := range cfg.lines {
				args[3*l], args[3*l+1], args[3*l+2] = id, sku[l], qty[l]
			}
			if _, err := db.ExecContext(ctx, insLines, args...); err != nil {
				return err
			}
		}
		return nil
	})
	return res, err
}

// myOrdersPipelined inserts each order and its lines with client keys in
// one round trip: START TRANSACTION, both INSERTs and COMMIT as one
// multi-statement query.
func myOrdersPipelined(ctx context.Context, c *netConn, k keyKind, cfg netConfig) (netRun, error) {
	var res netRun
	orders, lines, drop, err := c.tables(ctx, "orders", k)
	if err != nil {
		return res, err
	}
	defer drop()
	db, err := c.mysqlFast()
	if err != nil {
		return res, err
	}
	defer db.Close()
	if res.MeasuredRTT, err = medianRTT(myPing(ctx, db)); err != nil {
		return res, err
	}
	q := "START TRANSACTION; INSERT INTO " + orders + " (id, customer, total) VALUES (?, ?, ?); " + linesSQL(c.s, lines, cfg.lines, true) + "; COMMIT"
	next := k.newRaw()
	args := make([]any, 3+4*cfg.lines)
	res.Units = cfg.orders
	res.Secs, err = timed(func() error {
		for o := range cfg.orders {
			customer, total, sku, qty := orderArgs(o, cfg.lines)
			id, err := next()
			if err != nil {
				return err
			}
			args[0], args[1], args[2] = id, customer, total
			for l := range cfg.lines {
				lid, err := next()
				if err != nil {
					return err
				}
				a := args[3+4*l:]
				a[0], a[1], a[2], a[3] = lid, id, sku[l], qty[l]
			}
			if _, err := db.ExecContext(ctx, q, args...); err != nil {
				return err
			}
		}
		return nil
	})
	return res, err
}

// myRetry is pgRetry on MariaDB: a replay refused with a duplicate key is
// error 1062.
func myRetry(ctx context.Context, c *netConn, k keyKind, cfg netConfig) (netRun, error) {
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
		db, err := c.mysqlFast()
		if err != nil {
			return err
		}
		defer db.Close()
		if res.MeasuredRTT == 0 {
			if res.MeasuredRTT, err = medianRTT(myPing(ctx, db)); err != nil {
				return err
			}
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			_ = tx.Rollback()
			return err
		}
		if lose {
			c.proxy.DropNextReply()
		}
		return tx.Commit()
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
			var me *gomysql.MySQLError
			switch {
			case errors.As(err, &me) && me.Number == 1062:
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
