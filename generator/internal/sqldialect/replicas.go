package sqldialect

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idkit-go/idkit/dialect"
)

// What a primary's replicas have, for the SQL lease store
// (generator/node/sqllease) and the segment allocator, which must not
// trust a write the replicas lack (a replica promoted while the old
// primary still serves would let both hand out the same IDs): PostgreSQL's
// walsenders report each physical
// replica's flush_lsn in pg_stat_replication; MySQL and MariaDB report no
// per-replica position to a client, so semi-synchronous replication
// waiting AFTER_SYNC is demanded and checked after each write.

// PGReplication stands in for the view pg_stat_replication, with the
// columns the stores read, as a table to name r: the view joins
// pg_stat_get_activity(NULL), which builds a row for every backend of the
// server, so with 1,000 connections one read of it cost 1.5–3 ms of the
// server's CPU; this looks up each walsender's row alone (28 µs with no
// walsender, 240 µs more with one).
// It shows a role what the view shows it.
const PGReplication = `(SELECT w.pid, (SELECT a.application_name FROM pg_stat_get_activity(w.pid) a) AS application_name,
	w.state, w.flush_lsn, w.sync_state FROM pg_stat_get_wal_senders() w)`

// PGStreaming selects, in [PGReplication] r, the physical replicas that
// stream: those a failover could promote. A logical replication or change
// capture client (a walsender holding a logical slot) is not one, nor is
// a WAL archiver, told by the application name its tool sets:
// pg_receivewal's own, and Barman's receive-wal. (replay_lsn cannot tell
// them: a standby that just connected may not have reported one yet, and
// the split-brain suite repeated IDs when it was the test.) A role
// without pg_read_all_stats sees every column but pid and the names as
// NULL, so it sees no replica streaming: [PGWalsenders] counts the rows
// it does see.
const PGStreaming = `r.state = 'streaming' AND r.application_name NOT IN ('pg_receivewal', 'barman_receive_wal') AND NOT EXISTS (SELECT 1 FROM pg_replication_slots s
	WHERE s.active_pid = r.pid AND s.slot_type = 'logical')`

// PGWalsenders is the SQL expression of the number of walsenders a
// PostgreSQL primary runs, whatever they serve and whoever reads it.
const PGWalsenders = `(SELECT count(*) FROM pg_stat_get_wal_senders())`

// PGIdent is the SQL expression of a PostgreSQL server's identity: the
// system identifier and the timeline, which a promotion or a point-in-time
// restore changes. It needs EXECUTE on pg_control_system().
const PGIdent = `((SELECT system_identifier::text FROM pg_control_system()) || '/' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))`

// PGReplicas is the SQL expression of the number of physical replicas
// streaming from a PostgreSQL primary now.
const PGReplicas = `(SELECT count(*) FROM ` + PGReplication + ` r WHERE ` + PGStreaming + `)`

// MySQLIdent and MariaDBIdent are the SQL expressions of a server's
// identity. MySQLReplicas counts the replicas reading a MySQL server's
// binary log; it sees them only with the PROCESS privilege
// ([MySQLSeesReplicas]). MariaDBReplicas counts them on MariaDB from the
// global status Slaves_connected, which every user can read.
const (
	MySQLIdent      = `CONCAT(@@server_id, '/', @@server_uuid)`
	MariaDBIdent    = `CONCAT(@@server_id)`
	MySQLReplicas   = `(SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%')`
	MariaDBReplicas = `(SELECT CAST(VARIABLE_VALUE AS SIGNED) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'SLAVES_CONNECTED')`
)

// Replicas returns the SQL expression that counts the failover targets of
// the primary db (PostgreSQL or MySQL/MariaDB, mariadb telling which) and,
// when the current user cannot see them all, why, naming the grant ("" if
// it can): a replica set the store cannot read is refused, never counted
// as zero. A PostgreSQL role without pg_read_all_stats that sees
// walsenders cannot tell a standby from an archiver, nor read its flush
// position; a MySQL user without PROCESS sees no Binlog Dump thread.
func Replicas(ctx context.Context, db *sql.DB, d dialect.Dialect, mariadb bool) (count, blind string, err error) {
	switch {
	case d == dialect.Postgres:
		var walsenders int64
		var stats bool
		err := db.QueryRowContext(ctx, `SELECT `+PGWalsenders+`, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) OR pg_has_role(current_user, 'pg_read_all_stats', 'USAGE')`).Scan(&walsenders, &stats)
		if err != nil {
			return "0", "", err
		}
		if walsenders > 0 && !stats {
			blind = fmt.Sprintf("%d walsenders serve this primary and pg_stat_replication hides their state and flush_lsn from this role, so it cannot tell a standby from an archiver nor wait for one: grant the role pg_monitor (or pg_read_all_stats)", walsenders)
		}
		return PGReplicas, blind, nil
	case d == dialect.MySQL && mariadb:
		return MariaDBReplicas, "", nil
	case d == dialect.MySQL:
		var n int
		err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.USER_PRIVILEGES WHERE PRIVILEGE_TYPE IN ('PROCESS', 'SUPER')`).Scan(&n)
		if err != nil {
			return "0", "", err
		}
		if n == 0 {
			blind = "this user lacks the PROCESS privilege, so information_schema.PROCESSLIST hides the replicas reading the binary log: GRANT PROCESS ON *.* to it"
		}
		return MySQLReplicas, blind, nil
	}
	return "0", "", nil
}

// ErrNotAcked is wrapped by [PGAcked] and [SemiSyncAcked] when the
// replicas did not acknowledge a write.
var ErrNotAcked = errors.New("write not acknowledged by the replicas")

// PGAcked polls pg_stat_replication until need streaming replicas have
// flushed the WAL up to the insert position read when it is called (so
// every write this process committed before), until ctx ends.
func PGAcked(ctx context.Context, db *sql.DB, need int64) error {
	var lsn string
	var streaming, flushed, hidden int64
	err := db.QueryRowContext(ctx, `SELECT pg_current_wal_insert_lsn()::text, count(*) FILTER (WHERE `+PGStreaming+`),
	count(*) FILTER (WHERE `+PGStreaming+` AND r.flush_lsn >= pg_current_wal_insert_lsn()),
	count(*) FILTER (WHERE `+PGStreaming+` AND r.flush_lsn IS NULL) FROM `+PGReplication+` r`).Scan(&lsn, &streaming, &flushed, &hidden)
	for pause := 500 * time.Microsecond; err == nil; pause = min(2*pause, 10*time.Millisecond) {
		switch {
		case flushed >= need:
			return nil
		case streaming < need:
			return fmt.Errorf("%w: %d replicas stream from the primary, %d must acknowledge: one left it (a replica promoted while this primary still serves?)", ErrNotAcked, streaming, need)
		}
		select {
		case <-ctx.Done():
			if hidden > 0 {
				return fmt.Errorf("%w: pg_stat_replication hides the replicas' flush_lsn from this role: grant it pg_monitor (or pg_read_all_stats)", ErrNotAcked)
			}
			return fmt.Errorf("%w: %d of %d replicas flushed %s in time", ErrNotAcked, flushed, need, lsn)
		case <-time.After(pause):
		}
		err = db.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE `+PGStreaming+`),
	count(*) FILTER (WHERE `+PGStreaming+` AND r.flush_lsn >= $1::pg_lsn),
	count(*) FILTER (WHERE `+PGStreaming+` AND r.flush_lsn IS NULL) FROM `+PGReplication+` r`, lsn).Scan(&streaming, &flushed, &hidden)
	}
	return fmt.Errorf("%w: %w", ErrNotAcked, err)
}

// PGStandbysStream returns an error naming the first of the standbys
// named (by application_name) that the PostgreSQL primary db does not show
// streaming in pg_stat_replication: one down, or one that cascades from
// another standby, which the primary cannot see nor wait for.
func PGStandbysStream(ctx context.Context, db *sql.DB, names []string) error {
	_, err := pgStandbys(ctx, db, names, "")
	return err
}

// PGStandbysAcked polls pg_stat_replication until every standby named (by
// application_name) has flushed the WAL up to the insert position read
// when it is called, until ctx ends. A named standby that the primary does
// not show streaming fails it at once, as [PGStandbysStream] says.
func PGStandbysAcked(ctx context.Context, db *sql.DB, names []string) error {
	var lsn string
	if err := db.QueryRowContext(ctx, `SELECT pg_current_wal_insert_lsn()::text`).Scan(&lsn); err != nil {
		return fmt.Errorf("%w: %w", ErrNotAcked, err)
	}
	for pause := 500 * time.Microsecond; ; pause = min(2*pause, 10*time.Millisecond) {
		late, err := pgStandbys(ctx, db, names, lsn)
		switch {
		case err != nil:
			return fmt.Errorf("%w: %w", ErrNotAcked, err)
		case late == "":
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: standby %q did not flush %s in time", ErrNotAcked, late, lsn)
		case <-time.After(pause):
		}
	}
}

// pgStandbys returns the first named standby that has not flushed lsn
// ("" for none; lsn "" asks only that they stream), or an error naming
// one the primary does not show streaming.
func pgStandbys(ctx context.Context, db *sql.DB, names []string, lsn string) (late string, err error) {
	rows, err := db.QueryContext(ctx, `SELECT n, coalesce(bool_or(r.state = 'streaming'), false),
	coalesce(bool_or(r.state = 'streaming' AND r.flush_lsn >= nullif($2, '')::pg_lsn), false)
FROM unnest(string_to_array($1, E'\n')) n LEFT JOIN `+PGReplication+` r ON r.application_name = n GROUP BY n ORDER BY n`, strings.Join(names, "\n"), lsn)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var streaming, flushed bool
		if err := rows.Scan(&name, &streaming, &flushed); err != nil {
			return "", err
		}
		if !streaming {
			return "", fmt.Errorf("standby %q does not stream from this primary (no such application_name streaming in pg_stat_replication): it is down, or it cascades from another standby, which the primary cannot see nor wait for; connect it to the primary, or leave it out of the standbys named if it is never promoted", name)
		}
		if lsn != "" && !flushed && late == "" {
			late = name
		}
	}
	return late, rows.Err()
}

// SemiSyncAcked checks, after a write, that semi-synchronous replication
// is in force with at least need replicas connected: the write then waited
// for one to acknowledge it (or, had it timed out and switched
// semi-synchronous replication off, a replica has since caught up past
// it).
func SemiSyncAcked(ctx context.Context, db *sql.DB, need int64) error {
	rows, err := db.QueryContext(ctx, `SHOW GLOBAL STATUS WHERE Variable_name IN
	('Rpl_semi_sync_master_status', 'Rpl_semi_sync_master_clients', 'Rpl_semi_sync_source_status', 'Rpl_semi_sync_source_clients')`)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotAcked, err)
	}
	defer rows.Close()
	on, clients := false, int64(0)
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return fmt.Errorf("%w: %w", ErrNotAcked, err)
		}
		switch strings.ToLower(name) {
		case "rpl_semi_sync_master_status", "rpl_semi_sync_source_status":
			on = on || strings.EqualFold(value, "ON")
		case "rpl_semi_sync_master_clients", "rpl_semi_sync_source_clients":
			n, _ := strconv.ParseInt(value, 10, 64)
			clients = max(clients, n)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrNotAcked, err)
	}
	switch {
	case !on:
		return fmt.Errorf("%w: semi-synchronous replication is off (Rpl_semi_sync_master_status OFF: not enabled, or it timed out waiting for a replica after rpl_semi_sync_master_timeout), %d replicas must acknowledge", ErrNotAcked, need)
	case clients < need:
		return fmt.Errorf("%w: %d semi-synchronous replicas connected, %d must acknowledge: one left the primary (a replica promoted while this primary still serves?) or runs without rpl_semi_sync_slave_enabled", ErrNotAcked, clients, need)
	}
	return nil
}

// SemiSyncAfterSync reports whether the MySQL or MariaDB primary waits for
// a replica's acknowledgement before committing (AFTER_SYNC).
func SemiSyncAfterSync(ctx context.Context, db *sql.DB) bool {
	for _, q := range []string{
		`SELECT @@rpl_semi_sync_master_enabled, @@rpl_semi_sync_master_wait_point`,
		`SELECT @@rpl_semi_sync_source_enabled, @@rpl_semi_sync_source_wait_point`,
	} {
		var on int
		var point string
		if err := db.QueryRowContext(ctx, q).Scan(&on, &point); err == nil {
			return on == 1 && strings.EqualFold(point, "AFTER_SYNC")
		}
	}
	return false
}
