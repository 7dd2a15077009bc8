package pgxtypes

import (
	"database/sql/driver"
	"encoding/binary"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idkit-go/idkit/types"
)

// byteaCodec is pgx's bytea codec with binary-format plans for ObjectID and
// NullObjectID that need no allocation. Every other value and target, and
// the text format, go to the embedded codec (and from there, for the idkit
// types, to Value and Scan), so registering it changes no other type.
type byteaCodec struct{ pgtype.ByteaCodec }

func (c byteaCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if format == pgtype.BinaryFormatCode {
		switch value.(type) {
		case types.ObjectID:
			return encodeObjectID{}
		case types.NullObjectID:
			return encodeNullObjectID{}
		}
	}
	return c.ByteaCodec.PlanEncode(m, oid, format, value)
}

func (c byteaCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if format == pgtype.BinaryFormatCode {
		switch target.(type) {
		case *types.ObjectID:
			return scanObjectID{}
		case *types.NullObjectID:
			return scanNullObjectID{}
		}
	}
	return c.ByteaCodec.PlanScan(m, oid, format, target)
}

// int8Codec is pgx's int8 codec with binary-format plans for Snowflake and
// NullSnowflake, as byteaCodec is for ObjectID.
type int8Codec struct{ pgtype.Int8Codec }

func (c int8Codec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if format == pgtype.BinaryFormatCode {
		switch value.(type) {
		case types.Snowflake:
			return encodeSnowflake{}
		case types.NullSnowflake:
			return encodeNullSnowflake{}
		}
	}
	return c.Int8Codec.PlanEncode(m, oid, format, value)
}

func (c int8Codec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if format == pgtype.BinaryFormatCode {
		switch target.(type) {
		case *types.Snowflake:
			return scanSnowflake{}
		case *types.NullSnowflake:
			return scanNullSnowflake{}
		}
	}
	return c.Int8Codec.PlanScan(m, oid, format, target)
}

// Each plan handles the common case itself and hands every other one (a
// zero or negative ID, a wrong length, NULL into a non-null type) to the
// type's own Value or Scan, so the results and errors are those of
// database/sql.

type encodeObjectID struct{}

func (encodeObjectID) Encode(value any, buf []byte) ([]byte, error) {
	id := value.(types.ObjectID)
	if id.IsZero() {
		return appendValue(id, buf)
	}
	return append(buf, id[:]...), nil
}

type encodeNullObjectID struct{}

func (encodeNullObjectID) Encode(value any, buf []byte) ([]byte, error) {
	n := value.(types.NullObjectID)
	if !n.Valid {
		return nil, nil // NULL, as n.Value gives
	}
	if n.ID.IsZero() {
		return appendValue(n, buf)
	}
	return append(buf, n.ID[:]...), nil
}

type encodeSnowflake struct{}

func (encodeSnowflake) Encode(value any, buf []byte) ([]byte, error) {
	s := value.(types.Snowflake)
	if s <= 0 {
		return appendValue(s, buf)
	}
	return binary.BigEndian.AppendUint64(buf, uint64(s)), nil
}

type encodeNullSnowflake struct{}

func (encodeNullSnowflake) Encode(value any, buf []byte) ([]byte, error) {
	n := value.(types.NullSnowflake)
	if !n.Valid {
		return nil, nil // NULL, as n.Value gives
	}
	if n.ID <= 0 {
		return appendValue(n, buf)
	}
	return binary.BigEndian.AppendUint64(buf, uint64(n.ID)), nil
}

// appendValue encodes v's Value in binary format: nil (NULL), raw bytes or
// an int64.
func appendValue(v driver.Valuer, buf []byte) ([]byte, error) {
	dv, err := v.Value()
	switch x := dv.(type) {
	case nil:
		return nil, err
	case []byte:
		return append(buf, x...), err
	case int64:
		return binary.BigEndian.AppendUint64(buf, uint64(x)), err
	default:
		return nil, err
	}
}

type scanObjectID struct{}

func (scanObjectID) Scan(src []byte, target any) error {
	id := target.(*types.ObjectID)
	if len(src) == len(id) {
		copy(id[:], src)
		return nil
	}
	return id.Scan(asDriverValue(src))
}

type scanNullObjectID struct{}

func (scanNullObjectID) Scan(src []byte, target any) error {
	n := target.(*types.NullObjectID)
	if len(src) == len(n.ID) {
		n.ID = types.ObjectID(src)
		n.Valid = true
		return nil
	}
	return n.Scan(asDriverValue(src))
}

type scanSnowflake struct{}

func (scanSnowflake) Scan(src []byte, target any) error {
	s := target.(*types.Snowflake)
	if len(src) == 8 {
		v := int64(binary.BigEndian.Uint64(src))
		if v < 0 {
			return s.Scan(v) // Scan's "negative" error; s is left unchanged
		}
		*s = types.Snowflake(v)
		return nil
	}
	return s.Scan(asDriverValue(src))
}

type scanNullSnowflake struct{}

func (scanNullSnowflake) Scan(src []byte, target any) error {
	n := target.(*types.NullSnowflake)
	if len(src) == 8 {
		v := int64(binary.BigEndian.Uint64(src))
		if v < 0 {
			return n.Scan(v) // Scan's "negative" error; n is left unchanged
		}
		*n = types.NullSnowflake{ID: types.Snowflake(v), Valid: true}
		return nil
	}
	return n.Scan(asDriverValue(src))
}

// asDriverValue turns pgx's NULL (a nil slice) into database/sql's nil.
func asDriverValue(src []byte) any {
	if src == nil {
		return nil
	}
	return src
}
