package gormplugin

import (
	"fmt"
	"reflect"

	"gorm.io/gorm"

	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// nullIDCallback names the callback the plugin registers on the Update
// processor (before gorm:update) to refuse NULL for a non-nullable ID
// field.
const nullIDCallback = "idkit:null_ids"

var (
	snowflakeType   = reflect.TypeFor[types.Snowflake]()
	objectIDType    = reflect.TypeFor[types.ObjectID]()
	hexObjectIDType = reflect.TypeFor[sqltypes.HexObjectID]()
)

// nullableForm returns the form to declare instead of t when t is an ID
// type that cannot hold NULL.
func nullableForm(t reflect.Type) (string, bool) {
	switch t {
	case snowflakeType:
		return "types.NullSnowflake", true
	case objectIDType:
		return "types.NullObjectID", true
	case uuidType:
		return "types.NullUUID", true
	case hexObjectIDType:
		return "sqltypes.NullHexObjectID", true
	}
	if t == stdUUIDType && t != nil {
		return "*uuid.UUID or sql.Null[uuid.UUID]", true
	}
	return "", false
}

// refuseNullIDs is the nullIDCallback. An update whose map of columns sets
// a field of type types.Snowflake, types.ObjectID, types.UUID,
// sqltypes.HexObjectID or Go's uuid.UUID to nil (GORM's association Delete,
// Clear and Replace do so for a has-one or has-many foreign key) fails with
// an error wrapping [types.ErrNull] before the update runs: GORM would
// read that NULL back as the zero ID without an error.
func refuseNullIDs(db *gorm.DB) {
	stmt := db.Statement
	if db.Error != nil || stmt.Schema == nil {
		return
	}
	m, ok := stmt.Dest.(map[string]any)
	if !ok {
		return
	}
	for _, f := range stmt.Schema.Fields {
		nullable, isID := nullableForm(f.FieldType)
		if !isID {
			continue
		}
		v, set := m[f.DBName]
		if !set {
			v, set = m[f.Name]
		}
		if set && v == nil {
			db.AddError(fmt.Errorf("gormplugin: %s.%s set to NULL, which a %s cannot hold (association Delete, Clear and Replace do this to a has-many or has-one foreign key): declare it %s: %w",
				stmt.Schema.Name, f.Name, f.FieldType, nullable, types.ErrNull))
			return
		}
	}
}
