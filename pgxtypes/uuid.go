package pgxtypes

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idkit-go/idkit/types"
)

// registerUUID records uuid (uuid[]) as the PostgreSQL type of
// [types.UUID], [types.NullUUID], pointers to them and slices of them, and replaces m's uuid
// codec with pgx's own extended by plans for the two types.
func registerUUID(m *pgtype.Map) {
	uuid := &pgtype.Type{Name: "uuid", OID: pgtype.UUIDOID, Codec: uuidCodec{}}
	m.RegisterType(uuid)
	m.RegisterType(&pgtype.Type{Name: "_uuid", OID: pgtype.UUIDArrayOID, Codec: &pgtype.ArrayCodec{ElementType: uuid}})
	m.RegisterDefaultPgType(types.UUID{}, "uuid")
	m.RegisterDefaultPgType(types.NullUUID{}, "uuid")
	m.RegisterDefaultPgType((*types.UUID)(nil), "uuid")
	m.RegisterDefaultPgType((*types.NullUUID)(nil), "uuid")
	m.RegisterDefaultPgType([]types.UUID(nil), "_uuid")
	m.RegisterDefaultPgType([]types.NullUUID(nil), "_uuid")
}

// uuidCodec is pgx's uuid codec with plans for UUID and NullUUID (and
// pointers to them, nil being NULL) in both formats: 16 bytes in binary, the canonical form in text. A zero UUID
// goes to Value, whose error it returns.
type uuidCodec struct{ pgtype.UUIDCodec }

func (c uuidCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	switch value.(type) {
	case types.UUID, types.NullUUID, *types.UUID, *types.NullUUID:
		return encodeUUID{text: format == pgtype.TextFormatCode}
	}
	return c.UUIDCodec.PlanEncode(m, oid, format, value)
}

func (c uuidCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	switch target.(type) {
	case *types.UUID, *types.NullUUID:
		return scanUUID{}
	}
	return c.UUIDCodec.PlanScan(m, oid, format, target)
}

type encodeUUID struct{ text bool }

func (e encodeUUID) Encode(value any, buf []byte) ([]byte, error) {
	var id types.UUID
	switch v := value.(type) {
	case types.UUID:
		id = v
	case types.NullUUID:
		if !v.Valid {
			return nil, nil // NULL, as v.Value gives
		}
		id = v.ID
	case *types.UUID:
		if v == nil {
			return nil, nil
		}
		id = *v
	case *types.NullUUID:
		if v == nil || !v.Valid {
			return nil, nil
		}
		id = v.ID
	}
	if id.IsZero() {
		_, err := id.Value()
		return nil, err
	}
	if e.text {
		t, _ := id.MarshalText()
		return append(buf, t...), nil
	}
	return append(buf, id[:]...), nil
}

// scanUUID reads both formats through Scan, which takes 16 bytes as the
// binary form and 36 as the text form; pgx's NULL (a nil slice) becomes
// database/sql's nil.
type scanUUID struct{}

func (scanUUID) Scan(src []byte, target any) error {
	switch t := target.(type) {
	case *types.UUID:
		if len(src) == 16 {
			copy(t[:], src)
			return nil
		}
		return t.Scan(asDriverValue(src))
	case *types.NullUUID:
		return t.Scan(asDriverValue(src))
	}
	return nil
}
