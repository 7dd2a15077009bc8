package gormplugin

import (
	"reflect"

	"gorm.io/gorm/clause"

	"github.com/idkit-go/idkit/types"
)

var uuidType = reflect.TypeFor[types.UUID]()

// fillUUIDKeys makes p fill zero [types.UUID] primary keys with
// [types.NewUUIDv7], through the WithKeyFunc path (every create path,
// stored keys after upserts, inline lookups by key), unless a WithKeyFunc
// option gave types.UUID its own function.
func fillUUIDKeys(p *Plugin) {
	if p.keyFuncs[uuidType] != nil {
		return
	}
	_ = WithKeyFunc(func() (types.UUID, error) { return types.NewUUIDv7(), nil }).apply(p)
}

// uuidKeyExpr takes GORM's form of an inline string condition (raw SQL
// with no arguments) for the key of a model keyed by a types.UUID when the
// string is a UUID ([types.ParseUUID]): db.First(&row, "0190a3c2-...").
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
