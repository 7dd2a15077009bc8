package gormplugin

import (
	"fmt"
	"reflect"

	"gorm.io/gorm"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// fill is the fillCallback.
func (p *Plugin) fill(db *gorm.DB) {
	stmt := db.Statement
	if db.Error != nil || stmt.Schema == nil || skipped(db) {
		return
	}
	mk := p.keysOf(stmt.Schema)
	if mk.err != nil {
		db.AddError(mk.err)
		return
	}
	if err := zeroUntagged(stmt, mk.untagged); err != nil {
		db.AddError(err)
		return
	}
	if err := zeroUntagged(stmt, mk.refs); err != nil {
		db.AddError(err)
		return
	}
	fields := selected(stmt, mk.fields)
	if len(fields) == 0 {
		return
	}
	switch dest := stmt.Dest.(type) {
	case map[string]any:
		p.fillMap(db, fields, dest)
	case *map[string]any:
		if dest == nil {
			return // GORM reports the nil pointer
		}
		if *dest == nil {
			*dest = map[string]any{}
		}
		p.fillMap(db, fields, *dest)
	case []map[string]any:
		p.fillMaps(db, fields, dest)
	case *[]map[string]any:
		if dest == nil {
			return
		}
		p.fillMaps(db, fields, *dest)
		db.InstanceSet(mapRowsKey, len(*dest))
	default:
		p.fillValue(db, fields, stmt.ReflectValue)
	}
}

func skipped(db *gorm.DB) bool {
	v, ok := db.Get(SkipSetting)
	return ok && v == true
}

// selected drops the fields that Select/Omit leave out of the INSERT.
func selected(stmt *gorm.Statement, fields []keyField) []keyField {
	if len(stmt.Selects) == 0 && len(stmt.Omits) == 0 {
		return fields
	}
	cols, restricted := stmt.SelectAndOmitColumns(true, false)
	out := make([]keyField, 0, len(fields))
	for _, f := range fields {
		if v, ok := cols[f.field.DBName]; (ok && v) || (!ok && !restricted) {
			out = append(out, f)
		}
	}
	return out
}

// fillValue fills the zero keys of a struct, or of each struct in a slice or
// array (of structs or pointers to structs), through reflect.
// Values of another type than the model's (Model(&A{}).Create(&B{})) are
// left to GORM, and so are nil pointers (GORM reports them).
func (p *Plugin) fillValue(db *gorm.DB, fields []keyField, rv reflect.Value) {
	model := db.Statement.Schema.ModelType
	switch rv.Kind() {
	case reflect.Struct:
		if rv.Type() == model {
			p.fillStruct(db, fields, rv)
		}
	case reflect.Slice, reflect.Array:
		for i, n := 0, rv.Len(); i < n; i++ {
			elem := reflect.Indirect(rv.Index(i))
			if elem.Kind() != reflect.Struct || elem.Type() != model {
				continue
			}
			if !p.fillStruct(db, fields, elem) {
				return
			}
		}
	}
}

// fillMaps fills each map of a []map or *[]map create.
func (p *Plugin) fillMaps(db *gorm.DB, fields []keyField, maps []map[string]any) {
	for _, m := range maps {
		if m == nil {
			continue
		}
		if !p.fillMap(db, fields, m) {
			return
		}
	}
}

// fillMap fills the key columns of m that are missing or hold a zero value.
// A key given under the field's name or its column name is kept when set
// and replaced under the same name when zero; a missing key is added under
// the column name. The value has the field's Go type.
func (p *Plugin) fillMap(db *gorm.DB, fields []keyField, m map[string]any) bool {
	for i := range fields {
		kf := &fields[i]
		key, set := mapKey(m, kf.field)
		if set {
			continue
		}
		nv := reflect.New(kf.field.FieldType).Elem()
		if err := p.setIfZero(kf, nv); err != nil {
			db.AddError(err)
			return false
		}
		m[key] = nv.Interface()
	}
	return true
}

// fillStruct fills the zero keys of one struct; false means it failed and
// reported the error.
func (p *Plugin) fillStruct(db *gorm.DB, fields []keyField, rv reflect.Value) bool {
	for i := range fields {
		kf := &fields[i]
		if !rv.CanAddr() {
			if _, zero := kf.field.ValueOf(db.Statement.Context, rv); zero {
				db.AddError(fmt.Errorf("%w: %s.%s", types.ErrNotAddressable, kf.field.Schema.Name, kf.field.Name))
				return false
			}
			continue
		}
		if err := p.setIfZero(kf, kf.field.ReflectValueOf(db.Statement.Context, rv)); err != nil {
			db.AddError(err)
			return false
		}
	}
	return true
}

// setIfZero stores a new ID in v (a settable value of the field's type)
// when v holds the zero ID.
func (p *Plugin) setIfZero(kf *keyField, v reflect.Value) error {
	if kf.ptr {
		if !v.IsNil() {
			return p.setRep(kf, kf.rep, v.Elem())
		}
		nv := reflect.New(v.Type().Elem())
		if err := p.setRep(kf, kf.rep, nv.Elem()); err != nil {
			return err
		}
		v.Set(nv)
		return nil
	}
	return p.setRep(kf, kf.rep, v)
}

func (p *Plugin) setRep(kf *keyField, r rep, v reflect.Value) error {
	switch r {
	case repInt:
		if v.Int() != 0 {
			return nil
		}
		id, err := p.nextSnowflake(kf)
		if err != nil {
			return err
		}
		v.SetInt(id)
	case repUint:
		if v.Uint() != 0 {
			return nil
		}
		id, err := p.nextSnowflake(kf)
		if err != nil {
			return err
		}
		v.SetUint(uint64(id))
	case repArray:
		b := v.Bytes() // the addressable array itself
		if [12]byte(b) != [12]byte{} {
			return nil
		}
		id, err := p.nextObjectID(kf)
		if err != nil {
			return err
		}
		copy(b, id[:])
	case repHex:
		if v.Len() != 0 {
			return nil
		}
		id, err := p.nextObjectID(kf)
		if err != nil {
			return err
		}
		v.SetString(id.Hex())
	case repBytes:
		if v.Len() != 0 {
			return nil
		}
		id, err := p.nextObjectID(kf)
		if err != nil {
			return err
		}
		v.SetBytes(id[:])
	case repFunc:
		set := kf.fn.set
		if kf.form != (types.Form{}) {
			set = func(v reflect.Value) error { return setUUIDKey(kf, v) }
		}
		if err := set(v); err != nil {
			return fmt.Errorf("%w: %s.%s: %w", ErrGenerate, kf.field.Schema.Name, kf.field.Name, err)
		}
	case repNull:
		if v.Field(kf.okIdx).Bool() {
			return nil
		}
		id := v.Field(kf.idIdx)
		id.SetZero()
		if err := p.setRep(kf, kf.inner, id); err != nil {
			return err
		}
		v.Field(kf.okIdx).SetBool(true)
	}
	return nil
}

func (p *Plugin) nextSnowflake(kf *keyField) (int64, error) {
	if p.snowflake == nil { // prepare reports this first
		return 0, fmt.Errorf("%w: give gormplugin.WithNode or WithSnowflake to fill Snowflake keys (field %s)", generator.ErrNoSnowflakeGenerator, kf.field.Name)
	}
	id, err := p.snowflake.Next()
	if err == nil {
		id, err = kf.form.Snowflake(id)
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %s.%s: %w", ErrGenerate, kf.field.Schema.Name, kf.field.Name, err)
	}
	return int64(id), nil
}

// nextObjectID returns a new ObjectID in kf's form.
func (p *Plugin) nextObjectID(kf *keyField) (types.ObjectID, error) {
	id, err := kf.form.ObjectID(p.objectID.Next())
	if err != nil {
		return types.ObjectID{}, fmt.Errorf("%w: %s.%s: %w", ErrGenerate, kf.field.Schema.Name, kf.field.Name, err)
	}
	return id, nil
}
