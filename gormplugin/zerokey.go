package gormplugin

import (
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/types"
)

// zeroKeyIn returns the name of the idkit type ("ObjectID", "Snowflake") of
// the first zero ID that exprs compare the primary key f with, in an inline
// key condition (pk IN (...), pk = ...), also inside AND, OR and NOT, or ""
// if there is none. With hexKeys (the model's key holds an ObjectID) the
// raw condition "000000000000000000000000", which [Plugin.keyConditions]
// would take for a key, is a zero ObjectID too. GORM keeps a zero ID there as the condition's argument
// (see [types.ObjectID.Value]), so the driver would refuse it too, but only
// after a transaction, hooks and a round trip, and with a message naming the
// argument's position instead of the lookup.
func zeroKeyIn(f *schema.Field, table string, exprs []clause.Expression, hexKeys bool) string {
	for _, e := range exprs {
		var kind string
		switch e := e.(type) {
		case clause.IN:
			if !isPrimaryKeyColumn(e.Column, f, table) {
				break
			}
			if id, ok := bytesKey(e.Values); ok && id.IsZero() {
				return "ObjectID"
			}
			for _, v := range e.Values {
				if kind = zeroIDKind(v); kind == "" && hexKeys && v == any(zeroHex) {
					kind = "ObjectID"
				}
				if kind != "" {
					break
				}
			}
		case clause.Expr:
			if hexKeys && len(e.Vars) == 0 && e.SQL == zeroHex {
				kind = "ObjectID"
			}
		case clause.Eq:
			if isPrimaryKeyColumn(e.Column, f, table) {
				kind = zeroIDKind(e.Value)
			}
		case clause.AndConditions:
			kind = zeroKeyIn(f, table, e.Exprs, hexKeys)
		case clause.OrConditions:
			kind = zeroKeyIn(f, table, e.Exprs, hexKeys)
		case clause.NotConditions:
			kind = zeroKeyIn(f, table, e.Exprs, hexKeys)
		}
		if kind != "" {
			return kind
		}
	}
	return ""
}

const zeroHex = "000000000000000000000000"

// zeroIDKind returns "ObjectID" or "Snowflake" when v is one of the idkit ID
// types (or a non-nil pointer to one) holding a zero ID, otherwise "". A
// Null form that is not valid is NULL, not a zero ID.
func zeroIDKind(v any) string {
	var zero bool
	switch v := v.(type) {
	case types.Snowflake:
		zero = v == 0
	case *types.Snowflake:
		zero = v != nil && *v == 0
	case types.NullSnowflake:
		zero = v.Valid && v.ID == 0
	case *types.NullSnowflake:
		zero = v != nil && v.Valid && v.ID == 0
	default:
		if id, ok := objectIDOf(v); ok && id.IsZero() {
			return "ObjectID"
		}
		if zeroUUID(v) {
			return "UUID"
		}
		return ""
	}
	if zero {
		return "Snowflake"
	}
	return ""
}
