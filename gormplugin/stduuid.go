//go:build go1.27

package gormplugin

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"uuid"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/idkit-go/idkit/types"
)

var stdUUIDType = reflect.TypeFor[uuid.UUID]()

// fillStdUUIDKeys makes p fill zero uuid.UUID primary keys (Go 1.27's
// package uuid) with version 7 UUIDs from [types.NewUUIDv7], through the
// WithKeyFunc path, unless a WithKeyFunc option gave uuid.UUID its own
// function.
func fillStdUUIDKeys(p *Plugin) {
	if p.keyFuncs[stdUUIDType] != nil {
		return
	}
	_ = WithKeyFunc(func() (uuid.UUID, error) { return uuid.UUID(types.NewUUIDv7()), nil }).apply(p)
}

// stdUUIDKey returns the uuid.UUID that GORM's per-byte IN list of one
// inline key (sixteen uint8 values) spells, as a [types.UUID] to send, when
// t is uuid.UUID.
func stdUUIDKey(t reflect.Type, values []any) (any, bool) {
	if t != stdUUIDType || len(values) != 16 {
		return nil, false
	}
	var id types.UUID
	for i, v := range values {
		b, ok := v.(uint8)
		if !ok {
			return nil, false
		}
		id[i] = b
	}
	return id, true
}

// stdUUIDArg returns the form in which v goes to the driver when it is a
// uuid.UUID, a *uuid.UUID or a sql.Null[uuid.UUID]: the 16 bytes (as
// [types.UUID] gives them for uuid, BINARY(16) and BLOB columns), or nil
// for a nil pointer or an invalid Null.
func stdUUIDArg(v any) (any, bool) {
	switch v := v.(type) {
	case uuid.UUID:
		return stdUUIDBytes(v), true
	case *uuid.UUID:
		if v == nil {
			return nil, true
		}
		return stdUUIDBytes(*v), true
	case sql.Null[uuid.UUID]:
		if !v.Valid {
			return nil, true
		}
		return stdUUIDBytes(v.V), true
	case *sql.Null[uuid.UUID]:
		if v == nil || !v.Valid {
			return nil, true
		}
		return stdUUIDBytes(v.V), true
	}
	return v, false
}

// stdUUIDBytes returns u's 16 bytes. Unlike [types.UUID.Value] it sends the
// nil UUID as it is: a uuid.UUID field that is not a key the plugin fills
// holds what the application put there.
func stdUUIDBytes(u uuid.UUID) []byte { return u[:] }

// stdUUIDArgs returns args with every uuid.UUID form converted by
// stdUUIDArg; it returns args itself when there is none.
func stdUUIDArgs(args []any) []any {
	var out []any
	for i, a := range args {
		c, ok := stdUUIDArg(a)
		if !ok {
			continue
		}
		if out == nil {
			out = append(make([]any, 0, len(args)), args...)
		}
		out[i] = c
	}
	if out == nil {
		return args
	}
	return out
}

// stdUUIDPool is the statement's connection pool (a *sql.DB, *sql.Tx or
// GORM's prepared-statement pool) with uuid.UUID arguments converted; the
// plugin puts it in place for the statement's execution only.
type stdUUIDPool struct{ gorm.ConnPool }

func (p stdUUIDPool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p.ConnPool.ExecContext(ctx, query, stdUUIDArgs(args)...)
}

func (p stdUUIDPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return p.ConnPool.QueryContext(ctx, query, stdUUIDArgs(args)...)
}

func (p stdUUIDPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return p.ConnPool.QueryRowContext(ctx, query, stdUUIDArgs(args)...)
}

// mayHoldStdUUID reports whether stmt's model has a uuid.UUID,
// *uuid.UUID or sql.Null[uuid.UUID] field, or its arguments (Raw, Exec) or
// WHERE conditions hold such a value.
func mayHoldStdUUID(stmt *gorm.Statement) bool {
	if s := stmt.Schema; s != nil {
		for _, f := range s.Fields {
			if isStdUUIDType(f.FieldType) {
				return true
			}
		}
	}
	if hasStdUUID(stmt.Vars) {
		return true
	}
	if c, ok := stmt.Clauses["WHERE"]; ok {
		if w, ok := c.Expression.(clause.Where); ok {
			return exprsHaveStdUUID(w.Exprs)
		}
	}
	return false
}

var (
	stdUUIDPtrType  = reflect.TypeFor[*uuid.UUID]()
	stdUUIDNullType = reflect.TypeFor[sql.Null[uuid.UUID]]()
)

func isStdUUIDType(t reflect.Type) bool {
	return t == stdUUIDType || t == stdUUIDPtrType || t == stdUUIDNullType
}

func hasStdUUID(vars []any) bool {
	for _, v := range vars {
		if _, ok := stdUUIDArg(v); ok {
			return true
		}
	}
	return false
}

func exprsHaveStdUUID(exprs []clause.Expression) bool {
	for _, e := range exprs {
		switch e := e.(type) {
		case clause.Expr:
			if hasStdUUID(e.Vars) {
				return true
			}
		case clause.NamedExpr:
			if hasStdUUID(e.Vars) {
				return true
			}
		case clause.Eq:
			if _, ok := stdUUIDArg(e.Value); ok {
				return true
			}
		case clause.Neq:
			if _, ok := stdUUIDArg(e.Value); ok {
				return true
			}
		case clause.IN:
			if hasStdUUID(e.Values) {
				return true
			}
		case clause.AndConditions:
			if exprsHaveStdUUID(e.Exprs) {
				return true
			}
		case clause.OrConditions:
			if exprsHaveStdUUID(e.Exprs) {
				return true
			}
		case clause.NotConditions:
			if exprsHaveStdUUID(e.Exprs) {
				return true
			}
		}
	}
	return false
}

// wrapStdUUIDPool puts stdUUIDPool around the statement's pool when the
// statement may carry a uuid.UUID: its model has a uuid.UUID field, or its
// arguments or WHERE conditions hold one. Other statements run as they
// would without it.
func wrapStdUUIDPool(db *gorm.DB) {
	if _, done := db.Statement.ConnPool.(stdUUIDPool); done || db.Statement.ConnPool == nil || !mayHoldStdUUID(db.Statement) {
		return
	}
	db.Statement.ConnPool = stdUUIDPool{db.Statement.ConnPool}
}

// unwrapStdUUIDPool restores the pool wrapStdUUIDPool wrapped (or that a
// statement inherited from one it wrapped, as association saves do).
func unwrapStdUUIDPool(db *gorm.DB) {
	explainLongblobKey(db)
	if p, ok := db.Statement.ConnPool.(stdUUIDPool); ok {
		db.Statement.ConnPool = p.ConnPool
	}
}

// explainLongblobKey replaces MySQL's error 1170 for a table AutoMigrate
// gave a longblob key (what GORM makes of a [16]byte such as uuid.UUID)
// with one that names the tag to write.
func explainLongblobKey(db *gorm.DB) {
	if db.Error == nil || !strings.Contains(db.Error.Error(), "Error 1170") {
		return
	}
	if sql := db.Statement.SQL.String(); !strings.HasPrefix(sql, "CREATE TABLE") || !strings.Contains(sql, "longblob") {
		return
	}
	db.Error = fmt.Errorf("%w: MySQL/MariaDB cannot index the longblob column GORM makes for a uuid.UUID key; tag the field gorm:\"type:binary(16)\" (or use types.UUID, which needs no tag): %w",
		ErrUnsupportedField, db.Error)
}

// registerStdUUIDArgs registers, around each processor's statement
// execution, the callbacks that convert uuid.UUID arguments.
func registerStdUUIDArgs(db *gorm.DB) error {
	cb := db.Callback()
	steps := []struct {
		exec  string
		wrap  func(string, func(*gorm.DB)) error
		after func(string, func(*gorm.DB)) error
	}{
		{"gorm:create", func(n string, f func(*gorm.DB)) error { return cb.Create().Before("gorm:create").Register(n, f) },
			func(n string, f func(*gorm.DB)) error {
				return cb.Create().After("gorm:create").Before("gorm:commit_or_rollback_transaction").Register(n, f)
			}},
		{"gorm:query", func(n string, f func(*gorm.DB)) error { return cb.Query().Before("gorm:query").Register(n, f) },
			func(n string, f func(*gorm.DB)) error { return cb.Query().After("gorm:query").Register(n, f) }},
		{"gorm:update", func(n string, f func(*gorm.DB)) error { return cb.Update().Before("gorm:update").Register(n, f) },
			func(n string, f func(*gorm.DB)) error {
				return cb.Update().After("gorm:update").Before("gorm:commit_or_rollback_transaction").Register(n, f)
			}},
		{"gorm:delete", func(n string, f func(*gorm.DB)) error { return cb.Delete().Before("gorm:delete").Register(n, f) },
			func(n string, f func(*gorm.DB)) error {
				return cb.Delete().After("gorm:delete").Before("gorm:commit_or_rollback_transaction").Register(n, f)
			}},
		{"gorm:row", func(n string, f func(*gorm.DB)) error { return cb.Row().Before("gorm:row").Register(n, f) },
			func(n string, f func(*gorm.DB)) error { return cb.Row().After("gorm:row").Register(n, f) }},
		{"gorm:raw", func(n string, f func(*gorm.DB)) error { return cb.Raw().Before("gorm:raw").Register(n, f) },
			func(n string, f func(*gorm.DB)) error { return cb.Raw().After("gorm:raw").Register(n, f) }},
	}
	for _, s := range steps {
		if err := s.wrap("idkit:std_uuid_args", wrapStdUUIDPool); err != nil {
			return err
		}
		if err := s.after("idkit:std_uuid_args_done", unwrapStdUUIDPool); err != nil {
			return err
		}
	}
	return nil
}
