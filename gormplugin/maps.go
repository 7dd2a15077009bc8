package gormplugin

import (
	"reflect"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"
)

// mapRowsKey is the statement instance key holding the caller's row count
// of a *[]map create.
const mapRowsKey = "idkit:map_rows"

// mapKey returns the name under which m holds f's value (its column name,
// else its field name, else the column name for a key to add) and whether
// that value is set, that is present and not zero ([isZeroValue]).
func mapKey(m map[string]any, f *schema.Field) (name string, set bool) {
	name = f.DBName
	v, ok := m[name]
	if !ok {
		if v, ok = m[f.Name]; ok {
			name = f.Name
		}
	}
	return name, ok && !isZeroValue(v)
}

// isZeroValue reports whether a map value means "no key": nil, a nil
// pointer, a value whose IsZero method says so, or Go's zero value.
func isZeroValue(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() { // checked first: a method on a nil pointer may panic
			return true
		}
		rv = rv.Elem()
	}
	if z, ok := rv.Interface().(interface{ IsZero() bool }); ok {
		return z.IsZero()
	}
	return rv.IsZero()
}

// keepMapRows is the returningCallback. With RETURNING, GORM scans the
// returned rows of a *[]map create into new maps appended to the caller's
// slice. This merges row i into the caller's map i and cuts the slice back,
// so the caller keeps exactly the rows it passed.
func (p *Plugin) keepMapRows(db *gorm.DB) {
	dest, ok := db.Statement.Dest.(*[]map[string]any)
	if !ok || dest == nil {
		return // not a *[]map create: no instance lookup (it formats a key)
	}
	n, ok := db.InstanceGet(mapRowsKey)
	if !ok {
		return
	}
	rows := *dest
	count := n.(int)
	if len(rows) <= count {
		return
	}
	returned := rows[count:]
	if len(returned) == count {
		for i, r := range returned {
			if rows[i] == nil {
				continue
			}
			for k, v := range r {
				rows[i][k] = v
			}
		}
	}
	clear(returned)
	*dest = rows[:count]
}
