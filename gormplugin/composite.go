package gormplugin

import (
	"fmt"
	"reflect"

	"gorm.io/gorm"

	"github.com/idkit-go/idkit/types"
)

// zeroUntagged returns an error when a struct created by stmt (one, or
// each of a slice or array) holds a zero ID in one of the given fields,
// which the plugin does not fill, and whose Value would refuse it with a
// message that names neither the field nor the cause: for an untagged
// composite key part, an error wrapping [ErrUntaggedKey]; for another
// field (a reference to another row), one wrapping [types.ErrZeroID] that
// names the field and its Null form. Fields left out by Select or Omit are
// not checked, nor are map creates.
func zeroUntagged(stmt *gorm.Statement, untagged []keyField) error {
	if len(untagged) == 0 {
		return nil
	}
	untagged = selected(stmt, untagged)
	rv := stmt.ReflectValue
	switch rv.Kind() {
	case reflect.Struct:
		return zeroUntaggedIn(stmt, untagged, rv)
	case reflect.Slice, reflect.Array:
		for i, n := 0, rv.Len(); i < n; i++ {
			if err := zeroUntaggedIn(stmt, untagged, reflect.Indirect(rv.Index(i))); err != nil {
				return err
			}
		}
	}
	return nil
}

func zeroUntaggedIn(stmt *gorm.Statement, untagged []keyField, rv reflect.Value) error {
	if rv.Kind() != reflect.Struct || rv.Type() != stmt.Schema.ModelType {
		return nil
	}
	for _, kf := range untagged {
		if !kf.field.PrimaryKey {
			if v := kf.field.ReflectValueOf(stmt.Context, rv); v.IsValid() && v.IsZero() {
				nullable, _ := nullableForm(kf.field.FieldType)
				return fmt.Errorf("gormplugin: %s.%s is a zero %s, which the plugin does not fill (it fills keys): %w; set it before the create, or declare it %s for a reference that may be unset",
					kf.field.Schema.Name, kf.field.Name, kf.field.FieldType, types.ErrZeroID, nullable)
			}
			continue
		}
		if _, zero := kf.field.ValueOf(stmt.Context, rv); zero {
			return fmt.Errorf("%w: %s.%s (tag it idkit:%q to have it filled)",
				ErrUntaggedKey, kf.field.Schema.Name, kf.field.Name, tagName(kf.kind))
		}
	}
	return nil
}

func tagName(k kind) string {
	switch k {
	case kindSnowflake:
		return "snowflake"
	case kindKeyFunc:
		return "uuid"
	}
	return "objectid"
}
