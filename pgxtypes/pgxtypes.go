// Package pgxtypes registers idkit's ID types with pgx v5's type map, for
// applications that use pgx natively rather than through database/sql.
//
// pgx needs no registration to use [types.ObjectID], [types.Snowflake] and
// their Null forms as query arguments, scan targets and CopyFrom values: it
// calls their Value and Scan methods. [Register] adds two things:
//
//   - Slices of the ID types (as in "WHERE id = ANY($1)") also work in the
//     query execution modes that do not ask the server for parameter types,
//     [github.com/jackc/pgx/v5.QueryExecModeExec] and
//     [github.com/jackc/pgx/v5.QueryExecModeSimpleProtocol] (used behind
//     PgBouncer's transaction pooling, for example), where pgx alone fails
//     with "cannot find encode plan". In those modes a [types.UUID] or
//     [types.NullUUID] argument for a uuid column needs Register too: pgx
//     alone sends Value's 16 bytes as bytea text, which uuid rejects.
//   - The IDs are encoded and decoded in binary without the allocations of
//     the Value/Scan path: reading 1,000 rows of a bytea key, a bigint and
//     two NULL columns took about 0.7 times as long and 1,005 instead of
//     6,009 allocations, as fast as pgx's own []byte and int64.
//
// Importing pgxtypes compiles pgx's pgtype package; the types package
// compiles no pgx.
package pgxtypes

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idkit-go/idkit/types"
)

// Register records in m the PostgreSQL type of each idkit ID type and of
// slices of them: bytea (bytea[]) for [types.ObjectID] and
// [types.NullObjectID], int8 (int8[]) for [types.Snowflake] and
// [types.NullSnowflake], uuid (uuid[]) for [types.UUID] and [types.NullUUID].
// It also replaces m's bytea, int8 and uuid codecs (and
// their array types) with pgx's own codecs extended by binary-format plans
// for the idkit types, which read and write the IDs without the allocations
// of the Value/Scan path (for the UUID types in the text format too). Every
// other Go type, and the text format, are handled as before; the values read and written, and the error sentinels
// ([types.ErrNull], [types.ErrInvalidObjectID], ...), are those of Value and
// Scan. Register must not run while another goroutine uses m (a
// [pgtype.Map] updates its plan caches without locking): call it on
// [github.com/jackc/pgx/v5.Conn.TypeMap] right after connecting, or in the
// AfterConnect hook of a [github.com/jackc/pgx/v5/pgxpool.Config].
// Registering twice is harmless.
func Register(m *pgtype.Map) {
	bytea := &pgtype.Type{Name: "bytea", OID: pgtype.ByteaOID, Codec: byteaCodec{}}
	int8 := &pgtype.Type{Name: "int8", OID: pgtype.Int8OID, Codec: int8Codec{}}
	m.RegisterType(bytea)
	m.RegisterType(&pgtype.Type{Name: "_bytea", OID: pgtype.ByteaArrayOID, Codec: &pgtype.ArrayCodec{ElementType: bytea}})
	m.RegisterType(int8)
	m.RegisterType(&pgtype.Type{Name: "_int8", OID: pgtype.Int8ArrayOID, Codec: &pgtype.ArrayCodec{ElementType: int8}})
	m.RegisterDefaultPgType(types.ObjectID{}, "bytea")
	m.RegisterDefaultPgType(types.NullObjectID{}, "bytea")
	m.RegisterDefaultPgType([]types.ObjectID(nil), "_bytea")
	m.RegisterDefaultPgType([]types.NullObjectID(nil), "_bytea")
	m.RegisterDefaultPgType(types.Snowflake(0), "int8")
	m.RegisterDefaultPgType(types.NullSnowflake{}, "int8")
	m.RegisterDefaultPgType([]types.Snowflake(nil), "_int8")
	m.RegisterDefaultPgType([]types.NullSnowflake(nil), "_int8")
	registerUUID(m)
}
