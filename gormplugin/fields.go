package gormplugin

import (
	"database/sql/driver"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// kind is the kind of ID a field holds.
type kind uint8

const (
	kindSnowflake kind = iota + 1
	kindObjectID
	kindKeyFunc // a type registered with WithKeyFunc
)

// rep is how a field's Go type holds the ID.
type rep uint8

const (
	repInt   rep = iota + 1 // signed integer: Snowflake
	repUint                 // unsigned integer: Snowflake
	repArray                // [12]byte: ObjectID
	repHex                  // string: ObjectID as hex
	repBytes                // []byte: ObjectID raw
	repNull                 // struct {ID X; Valid bool}
	repFunc                 // a type registered with WithKeyFunc
)

// keyField is one field the plugin fills.
type keyField struct {
	field *schema.Field
	kind  kind
	rep   rep
	ptr   bool     // the field is a pointer to the type described by rep
	inner rep      // for repNull, the rep of the ID field
	idIdx int      // for repNull, index of the ID field
	okIdx int      // for repNull, index of the Valid field
	fn    *keyFunc // for repFunc
	form  types.Form
}

// modelKeys is what the plugin knows about one parsed model.
type modelKeys struct {
	plugin  *Plugin
	once    sync.Once
	fields  []keyField
	pk      *keyField         // the single primary key, when it holds an ObjectID or a WithKeyFunc type
	uniques [][]*schema.Field // unique indexes and fields, for upserts
	err     error

	// untagged are the parts of a composite primary key of an idkit type
	// without an idkit tag: never filled, so a zero one is reported.
	untagged []keyField
	// refs are the other fields of a non-nullable ID type that the plugin
	// does not fill and that are no relation's foreign key (references to
	// other rows by key alone): a zero one is reported, naming the field,
	// before its Value refuses it.
	refs []keyField
}

var (
	valuerType     = reflect.TypeFor[driver.Valuer]()
	snowflakeTypes = map[reflect.Type]bool{
		reflect.TypeFor[types.Snowflake]():     true,
		reflect.TypeFor[types.NullSnowflake](): true,
	}
	objectIDTypes = map[reflect.Type]bool{
		reflect.TypeFor[types.ObjectID]():           true,
		reflect.TypeFor[types.NullObjectID]():       true,
		reflect.TypeFor[sqltypes.HexObjectID]():     true,
		reflect.TypeFor[sqltypes.NullHexObjectID](): true,
	}
)

// keysOf returns the key fields of s, working them out on first sight. It
// only reads s: GORM shares its parsed schemas among goroutines (AutoMigrate,
// creates and queries of the same model may run at once), so the plugin
// never writes to them.
func (p *Plugin) keysOf(s *schema.Schema) *modelKeys {
	if v, ok := p.models.Load(s); ok {
		mk := v.(*modelKeys)
		mk.once.Do(func() { mk.prepare(s) })
		return mk
	}
	v, _ := p.models.LoadOrStore(s, &modelKeys{plugin: p})
	mk := v.(*modelKeys)
	mk.once.Do(func() { mk.prepare(s) })
	return mk
}

// prepare finds s's key fields and checks that the plugin can fill them.
func (mk *modelKeys) prepare(s *schema.Schema) {
	mk.pk = objectIDKey(s)
	if mk.pk == nil {
		mk.pk = mk.keyFuncKey(s)
	}
	mk.uniques = uniqueSets(s)
	foreign := foreignKeys(s)
	for _, f := range s.Fields {
		if f.DBName == "" || !f.Creatable || foreign[f] {
			continue
		}
		tag, form, tagged, err := idkitTag(f)
		if err != nil {
			mk.err = err
			return
		}
		var k kind
		switch {
		case tagged && tag == "-":
			continue
		case tagged && tag == "snowflake":
			k = kindSnowflake
		case tagged && tag == "objectid":
			k = kindObjectID
		case tagged && tag == "uuid":
			fn := mk.plugin.keyFuncs[f.IndirectFieldType]
			if fn == nil || !isUUIDKeyType(f.IndirectFieldType) {
				mk.err = fmt.Errorf("%w: %s.%s: type %s cannot hold a UUID (want types.UUID, types.NullUUID or uuid.UUID)",
					ErrUnsupportedField, s.Name, f.Name, f.FieldType)
				return
			}
			mk.fields = append(mk.fields, keyField{field: f, kind: kindKeyFunc, rep: repFunc,
				ptr: f.FieldType.Kind() == reflect.Pointer, fn: fn, form: form})
			continue
		case tagged:
			mk.err = fmt.Errorf("%w: %s.%s: tag idkit:%q (want snowflake, objectid, uuid or -)",
				ErrUnsupportedField, s.Name, f.Name, tag)
			return
		case f.PrimaryKey && len(s.PrimaryFields) == 1:
			if fn := mk.plugin.keyFuncs[f.IndirectFieldType]; fn != nil {
				mk.fields = append(mk.fields, keyField{field: f, kind: kindKeyFunc, rep: repFunc,
					ptr: f.FieldType.Kind() == reflect.Pointer, fn: fn, form: form})
				continue
			}
			k = kindOf(f.IndirectFieldType)
		case f.PrimaryKey:
			if uk := kindOf(f.IndirectFieldType); uk != 0 {
				mk.untagged = append(mk.untagged, keyField{field: f, kind: uk})
			} else if isUUIDKeyType(f.IndirectFieldType) {
				mk.untagged = append(mk.untagged, keyField{field: f, kind: kindKeyFunc})
			}
		}
		if k == 0 {
			if form != (types.Form{}) {
				mk.err = fmt.Errorf("%w: %s.%s: scatter form %s on a field the plugin does not fill (tag it snowflake, objectid or uuid)",
					ErrUnsupportedField, s.Name, f.Name, form)
				return
			}
			continue
		}
		kf, ok := describe(f, k)
		if !ok {
			mk.err = fmt.Errorf("%w: %s.%s: type %s cannot hold a %s",
				ErrUnsupportedField, s.Name, f.Name, f.FieldType, kindName(k))
			return
		}
		if (kf.rep == repArray || kf.rep == repNull) && !isValuer(f.IndirectFieldType) {
			mk.err = fmt.Errorf("%w: %s.%s: database/sql cannot store type %s (a Go array or struct without a Value method); use types.ObjectID",
				ErrUnsupportedField, s.Name, f.Name, f.FieldType)
			return
		}
		if k == kindSnowflake && mk.plugin.snowflake == nil {
			mk.err = fmt.Errorf("%w: give gormplugin.WithNode or WithSnowflake to fill Snowflake keys (model %s, field %s)", generator.ErrNoSnowflakeGenerator, s.Name, f.Name)
			return
		}
		kf.form = form
		mk.fields = append(mk.fields, kf)
	}
	for i := range mk.fields {
		if err := mk.plugin.checkForm(s, &mk.fields[i]); err != nil {
			mk.err = err
			return
		}
	}
	filled := map[*schema.Field]bool{}
	for _, kf := range mk.fields {
		filled[kf.field] = true
	}
	for _, f := range s.Fields {
		if f.DBName == "" || !f.Creatable || f.PrimaryKey || filled[f] || foreign[f] {
			continue // GORM sets a relation's foreign key from the related row after this check
		}
		if _, isID := nullableForm(f.FieldType); isID {
			mk.refs = append(mk.refs, keyField{field: f})
		}
	}
	for _, kf := range mk.fields {
		if implicitAutoIncrement(kf.field) {
			mk.err = fmt.Errorf("%w: %s.%s: GORM makes an integer primary key auto-increment; tag it gorm:\"autoIncrement:false\" (or use types.Snowflake)",
				ErrUnsupportedField, s.Name, kf.field.Name)
			return
		}
	}
}

// isValuer reports whether t or *t implements [driver.Valuer].
func isValuer(t reflect.Type) bool {
	return t.Implements(valuerType) || reflect.PointerTo(t).Implements(valuerType)
}

// objectIDKey describes s's primary key when it holds an ObjectID (one of
// the idkit ObjectID types, or a field tagged idkit:"objectid"), for
// [Plugin.keyConditions]; otherwise it returns nil.
func objectIDKey(s *schema.Schema) *keyField {
	f := s.PrioritizedPrimaryField
	if f == nil {
		return nil
	}
	if tag, _, ok, _ := idkitTag(f); !(ok && tag == "objectid") && !objectIDTypes[f.IndirectFieldType] {
		return nil
	}
	kf, ok := describe(f, kindObjectID)
	if !ok {
		return nil
	}
	return &kf
}

// keyFuncKey describes s's single primary key when its type was registered
// with [WithKeyFunc], for [Plugin.keyConditions]; otherwise it returns nil.
func (mk *modelKeys) keyFuncKey(s *schema.Schema) *keyField {
	f := s.PrioritizedPrimaryField
	if f == nil || len(s.PrimaryFields) != 1 {
		return nil
	}
	if tag, _, ok, _ := idkitTag(f); ok && tag == "-" {
		return nil
	}
	fn := mk.plugin.keyFuncs[f.IndirectFieldType]
	if fn == nil {
		return nil
	}
	return &keyField{field: f, kind: kindKeyFunc, rep: repFunc, ptr: f.FieldType.Kind() == reflect.Pointer, fn: fn}
}

// foreignKeys returns the fields of s that hold a relation's foreign key
// (belongs-to keys, and the keys of many2many join tables): GORM sets them
// from the referenced row, so they are never filled.
func foreignKeys(s *schema.Schema) map[*schema.Field]bool {
	var fk map[*schema.Field]bool
	for _, rel := range s.Relationships.Relations {
		for _, ref := range rel.References {
			if ref.ForeignKey != nil && ref.ForeignKey.Schema == s {
				if fk == nil {
					fk = map[*schema.Field]bool{}
				}
				fk[ref.ForeignKey] = true
			}
		}
	}
	return fk
}

// implicitAutoIncrement reports whether GORM made f, an integer primary key,
// auto-increment without an autoIncrement tag asking for it. The plugin
// does not change GORM's schema, so it refuses to fill such a key: AutoMigrate
// makes the column auto-increment, and GORM reads the database's key back
// after an INSERT (RETURNING, or LastInsertId written into maps over the
// plugin's keys).
func implicitAutoIncrement(f *schema.Field) bool {
	_, explicit := f.TagSettings["AUTOINCREMENT"]
	return f.AutoIncrement && !explicit
}

// kindOf returns the kind an untagged primary key of type t gets, or 0.
func kindOf(t reflect.Type) kind {
	switch {
	case snowflakeTypes[t]:
		return kindSnowflake
	case objectIDTypes[t]:
		return kindObjectID
	}
	return 0
}

func kindName(k kind) string {
	if k == kindSnowflake {
		return "Snowflake"
	}
	return "ObjectID"
}

// describe works out how to set a k in field f.
func describe(f *schema.Field, k kind) (keyField, bool) {
	kf := keyField{field: f, kind: k}
	t := f.FieldType
	if t.Kind() == reflect.Pointer {
		kf.ptr = true
		t = t.Elem()
	}
	r, ok := repOf(t, k)
	if ok {
		kf.rep = r
		return kf, true
	}
	// A nullable form: struct { ID X; Valid bool }.
	if t.Kind() != reflect.Struct {
		return kf, false
	}
	id, okID := t.FieldByName("ID")
	valid, okValid := t.FieldByName("Valid")
	if !okID || !okValid || len(id.Index) != 1 || len(valid.Index) != 1 || valid.Type.Kind() != reflect.Bool {
		return kf, false
	}
	inner, ok := repOf(id.Type, k)
	if !ok || inner == repBytes {
		return kf, false
	}
	kf.rep, kf.inner, kf.idIdx, kf.okIdx = repNull, inner, id.Index[0], valid.Index[0]
	return kf, true
}

func repOf(t reflect.Type, k kind) (rep, bool) {
	switch k {
	case kindSnowflake:
		switch t.Kind() {
		case reflect.Int64, reflect.Int:
			return repInt, true
		case reflect.Uint64, reflect.Uint:
			return repUint, true
		}
	case kindObjectID:
		switch {
		case t.Kind() == reflect.Array && t.Len() == 12 && t.Elem().Kind() == reflect.Uint8:
			return repArray, true
		case t.Kind() == reflect.String:
			return repHex, true
		case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
			return repBytes, true
		}
	}
	return 0, false
}

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
