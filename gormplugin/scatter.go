package gormplugin

import (
	"errors"
	"fmt"
	"reflect"

	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// checkForm returns an error when the plugin cannot fill kf in its form:
// a form the kind does not take, a Snowflake layout that cannot hold it,
// or a generator that makes keys in a form itself (the forms would apply
// twice).
func (p *Plugin) checkForm(s *schema.Schema, kf *keyField) error {
	f := kf.form
	if f == (types.Form{}) {
		return nil
	}
	var err error
	switch {
	case kf.kind == kindSnowflake && p.snowflake != nil:
		if p.snowflake.Form() != (types.Form{}) {
			err = fmt.Errorf("the Snowflake generator makes keys in form %s already", p.snowflake.Form())
		} else {
			// The generator's own check, on a generator of the plugin's
			// layout in form f.
			_, err = generator.NewSnowflake(0, generator.WithLayout(p.snowflake.Layout()), generator.WithForm(f))
		}
	case kf.kind == kindObjectID:
		if p.objectID.Form() != (types.Form{}) {
			err = fmt.Errorf("the ObjectID generator makes keys in form %s already", p.objectID.Form())
		} else {
			_, err = generator.NewObjectID(generator.WithForm(f))
		}
	case kf.kind == kindKeyFunc && isUUIDKeyType(kf.field.IndirectFieldType):
		_, err = f.UUID(types.UUID{})
	default:
		err = fmt.Errorf("scatter form %s on a key the plugin does not fill with an idkit ID", f)
	}
	if errors.Is(err, generator.ErrInvalidConfig) {
		return fmt.Errorf("%s.%s: %w", s.Name, kf.field.Name, err)
	}
	if err != nil {
		return fmt.Errorf("%w: %s.%s: %w", generator.ErrInvalidConfig, s.Name, kf.field.Name, err)
	}
	return nil
}

// uuidArray returns the [16]byte array of v, a settable types.UUID,
// uuid.UUID or types.NullUUID, and whether v holds no key (the zero UUID,
// or NULL).
func uuidArray(v reflect.Value) ([]byte, bool) {
	if v.Kind() == reflect.Struct { // types.NullUUID
		id := v.FieldByName("ID").Bytes()
		return id, !v.FieldByName("Valid").Bool()
	}
	b := v.Bytes()
	return b, [16]byte(b) == [16]byte{}
}

// setUUIDKey fills v, a UUID key, through kf's key func and turns the new
// UUID into its key in kf's form. A key already set is left as it is.
func setUUIDKey(kf *keyField, v reflect.Value) error {
	b, zero := uuidArray(v)
	if err := kf.fn.set(v); err != nil || !zero {
		return err
	}
	key, err := kf.form.UUID(types.UUID(b))
	if err != nil {
		return err
	}
	copy(b, key[:])
	return nil
}
