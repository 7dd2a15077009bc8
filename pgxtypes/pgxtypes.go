// Package pgxtypes registers idkit's ID types with pgx v5's type map, for
// applications that use pgx natively rather than through database/sql.
//
// pgx takes [types.ObjectID], [types.Snowflake] and their Null forms without
// registration, through their Value and Scan methods. [Register] adds slices
// of them (WHERE id = ANY($1)) in every query execution mode and a binary
// encoding without the allocations of Value and Scan. A [types.UUID] or
// [types.NullUUID] (or a pointer to one) for a uuid column needs it in the
// Exec and SimpleProtocol modes, where pgx alone sends Value's bytes as
// bytea text. See
// https://github.com/idkit-go/idkit/blob/main/docs/sql.md.
package pgxtypes

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idkit-go/idkit/types"
)

// Register records in m the PostgreSQL types of the ID types and of slices of
// them (bytea for ObjectIDs, int8 for Snowflakes, uuid for UUIDs), and
// replaces m's bytea, int8 and uuid codecs with pgx's own extended for them. Values and errors are those of
// Value and Scan; other Go types are handled as before. Call it before m is
// used concurrently, for example in the AfterConnect hook of a
// [github.com/jackc/pgx/v5/pgxpool.Config]. Registering twice is harmless.
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
