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

// nonNullIDTypes are the ID types that cannot hold NULL, with the form to
// declare instead.
var nonNullIDTypes = map[reflect.Type]string{
	reflect.TypeFor[types.Snowflake]():      "types.NullSnowflake",
	reflect.TypeFor[types.ObjectID]():       "types.NullObjectID",
	reflect.TypeFor[types.UUID]():           "types.NullUUID",
	reflect.TypeFor[sqltypes.HexObjectID](): "sqltypes.NullHexObjectID",
}

func init() {
	if stdUUIDType != nil {
		nonNullIDTypes[stdUUIDType] = "*uuid.UUID or sql.Null[uuid.UUID]"
	}
}

// refuseNullIDs is the nullIDCallback. An update whose map of columns sets
// a field of type types.Snowflake, types.ObjectID, types.UUID,
// sqltypes.HexObjectID or Go's uuid.UUID to nil (GORM's association Delete,
// Clear and Replace do so for a has-one or has-many foreign key) fails with
// an error wrapping [types.ErrNull] before anything is written: GORM would
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
		nullable, isID := nonNullIDTypes[f.FieldType]
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
