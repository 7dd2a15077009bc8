package gormplugin

import (
	"reflect"

	"gorm.io/gorm/clause"

	"github.com/idkit-go/idkit/types"
)

var (
	uuidType     = reflect.TypeFor[types.UUID]()
	nullUUIDType = reflect.TypeFor[types.NullUUID]()
)

// fillUUIDKeys makes p fill zero [types.UUID] and NULL [types.NullUUID]
// primary keys with [types.NewUUIDv7], through the WithKeyFunc path (every
// create path, stored keys after upserts, inline lookups by key), unless a
// WithKeyFunc option gave the type its own function.
func fillUUIDKeys(p *Plugin) {
	if p.keyFuncs[uuidType] == nil {
		_ = WithKeyFunc(func() (types.UUID, error) { return types.NewUUIDv7(), nil }).apply(p)
	}
	if p.keyFuncs[nullUUIDType] == nil {
		_ = WithKeyFunc(func() (types.NullUUID, error) { return types.NullUUID{ID: types.NewUUIDv7(), Valid: true}, nil }).apply(p)
	}
}

// isUUIDKeyType reports whether t is a UUID type the plugin fills:
// types.UUID, types.NullUUID or (on Go 1.27 and later) uuid.UUID.
func isUUIDKeyType(t reflect.Type) bool {
	return t == uuidType || t == nullUUIDType || (t == stdUUIDType && t != nil)
}

// uuidKeyList rewrites the list of inline keys of a model keyed by a UUID
// type t (types.UUID, types.NullUUID or Go's uuid.UUID): canonical UUID
// strings and other [16]byte types (github.com/google/uuid's UUID, whose
// Value is its text) become [types.UUID], whose SQL value is the 16 bytes
// the key column holds. It reports whether anything changed.
func uuidKeyList(t reflect.Type, in clause.IN) (clause.Expression, bool) {
	if t != uuidType && t != nullUUIDType && t != stdUUIDType {
		return in, false
	}
	var out []any
	for i, v := range in.Values {
		id, ok := uuidKeyOf(v)
		if !ok {
			continue
		}
		if out == nil {
			out = append(make([]any, 0, len(in.Values)), in.Values...)
		}
		out[i] = id
	}
	if out == nil {
		return in, false
	}
	if len(out) == 1 {
		return clause.Eq{Column: in.Column, Value: out[0]}, true
	}
	return clause.IN{Column: in.Column, Values: out}, true
}

// uuidKeyOf returns v as a [types.UUID] when it is a UUID string or a
// [16]byte type other than the idkit ones.
func uuidKeyOf(v any) (types.UUID, bool) {
	switch v := v.(type) {
	case types.UUID, types.NullUUID, *types.UUID, *types.NullUUID:
		return types.UUID{}, false
	case string:
		if len(v) != 36 && len(v) != 32 {
			return types.UUID{}, false
		}
		id, err := types.ParseUUID(v)
		return id, err == nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Array && rv.Len() == 16 && rv.Type().Elem().Kind() == reflect.Uint8 {
		var id types.UUID
		reflect.Copy(reflect.ValueOf(&id).Elem(), rv)
		return id, true
	}
	return types.UUID{}, false
}

// uuidKeyExpr takes GORM's form of an inline string condition (raw SQL
// with no arguments) for the key of a model keyed by a UUID type
// (types.UUID, types.NullUUID or uuid.UUID) when the string is a UUID of 36
// or 32 hex digits in either case ([types.ParseUUID]):
// db.First(&row, "0190a3c2-..."). The key goes to the driver as a
// [types.UUID], whose SQL value is the 16 bytes the key column holds.
func uuidKeyExpr(e clause.Expr) (clause.Expression, bool) {
	if len(e.Vars) != 0 || (len(e.SQL) != 36 && len(e.SQL) != 32) {
		return e, false
	}
	id, err := types.ParseUUID(e.SQL)
	if err != nil {
		return e, false
	}
	return clause.Eq{Column: clause.Column{Table: clause.CurrentTable, Name: clause.PrimaryKey}, Value: id}, true
}

// zeroUUID reports whether v is a types.UUID, a valid types.NullUUID or a
// non-nil pointer to either, holding the zero UUID.
func zeroUUID(v any) bool {
	switch v := v.(type) {
	case types.UUID:
		return v.IsZero()
	case *types.UUID:
		return v != nil && v.IsZero()
	case types.NullUUID:
		return v.Valid && v.ID.IsZero()
	case *types.NullUUID:
		return v != nil && v.Valid && v.ID.IsZero()
	}
	return false
}
