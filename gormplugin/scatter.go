package gormplugin

import (
	"fmt"
	"reflect"
	"strings"

	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// idkitTag reads f's idkit tag: its kind ("snowflake", "objectid", "uuid",
// "-" or "" when the tag names only a form) and the form of a
// ",scatter=FORM" part (or a tag that is only "scatter=FORM"). tagged is
// false when the field has no idkit tag or a tag with no kind.
func idkitTag(f *schema.Field) (kind string, form types.Form, tagged bool, err error) {
	tag, ok := f.Tag.Lookup("idkit")
	if !ok {
		return "", types.Form{}, false, nil
	}
	kind, rest, _ := strings.Cut(tag, ",")
	if strings.HasPrefix(kind, "scatter=") {
		kind, rest = "", tag
	}
	if rest != "" {
		text, ok := strings.CutPrefix(rest, "scatter=")
		if !ok {
			return "", types.Form{}, false, fmt.Errorf("%w: %s.%s: tag idkit:%q (want KIND, KIND,scatter=FORM or scatter=FORM)",
				ErrUnsupportedField, f.Schema.Name, f.Name, tag)
		}
		if form, err = types.ParseForm(text); err != nil {
			return "", types.Form{}, false, fmt.Errorf("%w: %s.%s: %w", ErrUnsupportedField, f.Schema.Name, f.Name, err)
		}
	}
	return kind, form, kind != "", nil
}

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
		_, err = f.Snowflake(1)
		l := p.snowflake.Layout().Spec()
		switch {
		case err != nil:
		case p.snowflake.Form() != (types.Form{}):
			err = fmt.Errorf("the Snowflake generator makes keys in form %s already", p.snowflake.Form())
		case int(l.TimeBits)+int(l.NodeBits)+int(l.SequenceBits) != 63:
			err = fmt.Errorf("scatter form %s needs a layout of 63 bits; %s has %d", f, l.Name, int(l.TimeBits)+int(l.NodeBits)+int(l.SequenceBits))
		case f.ShardBits() > int(l.TimeBits):
			err = fmt.Errorf("scatter form %s: shard bits %d exceed the %d time bits of %s", f, f.ShardBits(), l.TimeBits, l.Name)
		}
	case kf.kind == kindObjectID:
		_, err = f.ObjectID(types.ObjectID{})
		if err == nil && p.objectID.Form() != (types.Form{}) {
			err = fmt.Errorf("the ObjectID generator makes keys in form %s already", p.objectID.Form())
		}
	case kf.kind == kindKeyFunc && isUUIDKeyType(kf.field.IndirectFieldType):
		_, err = f.UUID(types.UUID{})
	default:
		err = fmt.Errorf("scatter form %s on a key the plugin does not fill with an idkit ID", f)
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
