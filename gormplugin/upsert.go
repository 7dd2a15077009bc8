package gormplugin

import (
	"fmt"
	"reflect"
	"slices"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"
)

// Callback names of the upsert support, on the Create processor.
const (
	// UpsertReturningCallback asks the database for the stored keys of an
	// upsert (RETURNING); it runs just before gorm:create.
	UpsertReturningCallback = "idkit:upsert_returning"
	// UpsertKeysCallback makes the keys of an upsert's rows the stored
	// rows' keys; it runs after gorm:create, before GORM copies the keys
	// into associations.
	UpsertKeysCallback = "idkit:upsert_keys"
)

// upsertKey is the statement instance key holding an upsert's filled rows.
const upsertKey = "idkit:upsert"

// upsert is what the plugin remembers about one upsert (a create with an
// ON CONFLICT clause) whose primary keys it filled.
type upsert struct {
	pk        *schema.Field
	rows      []upsertRow     // the rows whose key the plugin filled
	keys      []any           // the filled keys, rows[i]'s in keys[i]
	returning bool            // RETURNING was added: GORM scanned the stored keys
	doNothing bool            // the caller's clause says DO NOTHING
	columns   []clause.Column // the caller's conflict columns (GORM may add the key's)
}

// upsertRow is one row of an upsert: a struct or a map.
type upsertRow interface {
	// key returns the row's key, a value of the key field's type.
	key() any
	// setKey sets the key to v, a value of the field's type or of the type
	// it points to; the invalid Value sets the zero key.
	setKey(v reflect.Value)
	// value returns the row's value of column f.
	value(f *schema.Field) any
}

type structRow struct {
	db *gorm.DB
	pk *schema.Field
	rv reflect.Value // addressable
}

func (r structRow) key() any {
	v, _ := r.pk.ValueOf(r.db.Statement.Context, r.rv)
	return v
}

func (r structRow) setKey(v reflect.Value) {
	fv := r.pk.ReflectValueOf(r.db.Statement.Context, r.rv)
	setValue(fv, v)
}

func (r structRow) value(f *schema.Field) any {
	v, _ := f.ValueOf(r.db.Statement.Context, r.rv)
	return v
}

type mapRow struct {
	pk   *schema.Field
	m    map[string]any
	name string // the map key holding the primary key
}

func (r mapRow) key() any { return r.m[r.name] }

func (r mapRow) setKey(v reflect.Value) {
	nv := reflect.New(r.pk.FieldType).Elem()
	setValue(nv, v)
	r.m[r.name] = nv.Interface()
}

func (r mapRow) value(f *schema.Field) any {
	if v, ok := r.m[f.DBName]; ok {
		return v
	}
	return r.m[f.Name]
}

// setValue sets fv (of a key field's type) to v, which has that type or the
// type it points to; the invalid v sets the zero value.
func setValue(fv, v reflect.Value) {
	switch {
	case !v.IsValid():
		fv.SetZero()
	case fv.Kind() == reflect.Pointer && v.Type() == fv.Type().Elem():
		p := reflect.New(v.Type())
		p.Elem().Set(v)
		fv.Set(p)
	default:
		fv.Set(v)
	}
}

// noteUpsert records, before the fill, which rows of an upsert have a zero
// primary key that the plugin fills; [Plugin.upsertKeys] checks them after
// the INSERT. It returns nil for other creates.
func (p *Plugin) noteUpsert(db *gorm.DB, fields []keyField) *upsert {
	stmt := db.Statement
	if _, ok := stmt.Clauses["ON CONFLICT"]; !ok {
		return nil
	}
	pk := stmt.Schema.PrioritizedPrimaryField
	if pk == nil || len(stmt.Schema.PrimaryFields) != 1 ||
		!slices.ContainsFunc(fields, func(kf keyField) bool { return kf.field == pk }) {
		return nil
	}
	oc, _ := stmt.Clauses["ON CONFLICT"].Expression.(clause.OnConflict)
	if len(oc.Columns) == 1 && oc.Columns[0].Name == pk.DBName &&
		(stmt.Dialector.Name() != "mysql" || len(p.keysOf(stmt.Schema).uniques) == 0) {
		// Only the key can conflict (GORM's association saves are such
		// upserts), and a key the plugin makes is new: nothing to check.
		return nil
	}
	u := &upsert{pk: pk, doNothing: oc.DoNothing, columns: oc.Columns}
	model := stmt.Schema.ModelType
	addStruct := func(rv reflect.Value) {
		if rv.Kind() != reflect.Struct || rv.Type() != model || !rv.CanAddr() {
			return
		}
		if _, zero := pk.ValueOf(stmt.Context, rv); zero {
			u.rows = append(u.rows, structRow{db: db, pk: pk, rv: rv})
		}
	}
	addMap := func(m map[string]any) {
		if m == nil {
			return
		}
		if name, set := mapKey(m, pk); !set {
			u.rows = append(u.rows, mapRow{pk: pk, m: m, name: name})
		}
	}
	switch dest := stmt.Dest.(type) {
	case map[string]any:
		addMap(dest)
	case *map[string]any:
		if dest != nil {
			if *dest == nil {
				*dest = map[string]any{}
			}
			addMap(*dest)
		}
	case []map[string]any:
		for _, m := range dest {
			addMap(m)
		}
	case *[]map[string]any:
		if dest != nil {
			for _, m := range *dest {
				addMap(m)
			}
		}
	default:
		switch rv := stmt.ReflectValue; rv.Kind() {
		case reflect.Struct:
			addStruct(rv)
		case reflect.Slice, reflect.Array:
			for i := range rv.Len() {
				addStruct(reflect.Indirect(rv.Index(i)))
			}
		}
	}
	if len(u.rows) == 0 {
		return nil
	}
	db.InstanceSet(upsertKey, u)
	return u
}

// filled records the keys the plugin gave the noted rows.
func (u *upsert) filled() {
	u.keys = make([]any, len(u.rows))
	for i, r := range u.rows {
		u.keys[i] = r.key()
	}
}

// upsertOf returns the upsert noted on db's statement, or nil.
func upsertOf(db *gorm.DB) *upsert {
	if _, ok := db.Statement.Clauses["ON CONFLICT"]; !ok {
		return nil // not an upsert: no instance lookup (it formats a key)
	}
	v, ok := db.InstanceGet(upsertKey)
	if !ok {
		return nil
	}
	u, _ := v.(*upsert)
	return u
}

// upsertReturning is the UpsertReturningCallback. On PostgreSQL, and on
// SQLite for one row, an upsert that updates on conflict gets RETURNING of
// the primary key (and of the columns GORM would return anyway), so GORM
// scans the stored row's key into the struct. SQLite returns the rows of a
// batch in no promised order, so batches there, DO NOTHING upserts and
// conditional updates (which return fewer rows than given) are checked
// after the INSERT instead.
func (p *Plugin) upsertReturning(db *gorm.DB) {
	u := upsertOf(db)
	if u == nil || db.Error != nil {
		return
	}
	stmt := db.Statement
	oc, _ := stmt.Clauses["ON CONFLICT"].Expression.(clause.OnConflict)
	if oc.DoNothing || oc.Where.Exprs != nil || (!oc.UpdateAll && len(oc.DoUpdates) == 0) {
		return
	}
	if _, isStruct := u.rows[0].(structRow); !isStruct {
		return // GORM scans RETURNING into maps as new rows
	}
	switch stmt.Dialector.Name() {
	case "postgres":
	case "sqlite":
		if stmt.ReflectValue.Kind() != reflect.Struct {
			return
		}
	default:
		return
	}
	if rv := stmt.ReflectValue; rv.Kind() != reflect.Struct && rv.Len() != len(u.rows) {
		return // GORM would scan into every row, also those whose key was set
	}
	if _, ok := stmt.Clauses["RETURNING"]; ok {
		return // the caller's own RETURNING is left as it is
	}
	cols := []clause.Column{{Name: u.pk.DBName}}
	for _, f := range stmt.Schema.FieldsWithDefaultDBValue {
		if f.Readable && f != u.pk {
			cols = append(cols, clause.Column{Name: f.DBName})
		}
	}
	stmt.AddClause(clause.Returning{Columns: cols})
	u.returning = true
}

// upsertKeys is the UpsertKeysCallback. After an upsert, each row whose key
// the plugin filled must name the row stored for it. With RETURNING, GORM
// has scanned the stored keys already. Otherwise the plugin reads back
// which filled keys were stored; a row whose key was not stored was a
// conflict: with DO NOTHING its key is set back to zero; with an update its
// key becomes the stored row's, looked up by the conflict columns
// (clause.OnConflict.Columns, else each unique index of the model in
// turn). A row whose stored key cannot be found gets a zero key and the
// statement an error wrapping [ErrUpsertKey].
func (p *Plugin) upsertKeys(db *gorm.DB) {
	u := upsertOf(db)
	if u == nil || u.returning || db.Error != nil || db.DryRun {
		return
	}
	stmt := db.Statement
	// A session of its own for each query, in the create's transaction.
	tx := db.Session(&gorm.Session{NewDB: true, SkipHooks: true}).Table(stmt.Table).Session(&gorm.Session{})
	stored, err := storedKeys(tx, u.pk, u.keys)
	if err != nil {
		db.AddError(fmt.Errorf("%w: %w", ErrUpsertKey, err))
		return
	}
	oc, _ := stmt.Clauses["ON CONFLICT"].Expression.(clause.OnConflict)
	for i, r := range u.rows {
		if stored[keyString(u.keys[i])] {
			continue
		}
		if u.doNothing || oc.DoNothing {
			// MySQL's dialect writes DO NOTHING as an update of the key to
			// itself, so the clause read now may no longer say it.
			r.setKey(reflect.Value{})
			continue
		}
		key, found, err := lookUpKey(tx, stmt, u.pk, u.columns, p.keysOf(stmt.Schema).uniques, r)
		switch {
		case err != nil:
			r.setKey(reflect.Value{})
			db.AddError(fmt.Errorf("%w: %s: %w", ErrUpsertKey, stmt.Schema.Name, err))
		case !found:
			r.setKey(reflect.Value{})
			db.AddError(fmt.Errorf("%w: %s: no stored row matches the conflict columns", ErrUpsertKey, stmt.Schema.Name))
		default:
			r.setKey(key)
		}
	}
}

// keyString is a comparable form of a key value of one field type (a
// pointer stands for the value it points to).
func keyString(v any) string {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return "nil"
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return "nil"
	}
	return fmt.Sprintf("%T:%v", rv.Interface(), rv.Interface())
}

// scanKey returns a new value of pk's type to scan a key into.
func scanKey(pk *schema.Field) reflect.Value { return reflect.New(pk.IndirectFieldType) }

// storedKeys returns which of keys the table holds.
func storedKeys(tx *gorm.DB, pk *schema.Field, keys []any) (map[string]bool, error) {
	rows, err := tx.Select(pk.DBName).Where(clause.IN{Column: clause.Column{Name: pk.DBName}, Values: keys}).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	stored := map[string]bool{}
	for rows.Next() {
		v := scanKey(pk)
		if err := rows.Scan(v.Interface()); err != nil {
			return nil, err
		}
		stored[keyString(v.Elem().Interface())] = true
	}
	return stored, rows.Err()
}

// lookUpKey finds the key of the stored row that conflicts with rv: the row
// with rv's values in cols, or when cols is empty in the columns of one of
// uniques, the model's unique indexes and unique fields.
func lookUpKey(tx *gorm.DB, stmt *gorm.Statement, pk *schema.Field, cols []clause.Column, uniques [][]*schema.Field, r upsertRow) (reflect.Value, bool, error) {
	var sets [][]*schema.Field
	if len(cols) > 0 {
		set := make([]*schema.Field, 0, len(cols))
		for _, c := range cols {
			f := stmt.Schema.LookUpField(c.Name)
			if f == nil {
				return reflect.Value{}, false, fmt.Errorf("conflict column %q is not a field", c.Name)
			}
			set = append(set, f)
		}
		sets = append(sets, set)
	} else {
		sets = uniques
	}
	for _, set := range sets {
		q := tx.Select(pk.DBName).Limit(1)
		for _, f := range set {
			q = q.Where(clause.Eq{Column: clause.Column{Name: f.DBName}, Value: r.value(f)})
		}
		rows, err := q.Rows()
		if err != nil {
			return reflect.Value{}, false, err
		}
		v := scanKey(pk)
		found := rows.Next()
		if found {
			err = rows.Scan(v.Interface())
		}
		err = firstErr(err, rows.Err(), rows.Close())
		if err != nil {
			return reflect.Value{}, false, err
		}
		if found {
			return v.Elem(), true, nil
		}
	}
	return reflect.Value{}, false, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// uniqueSets returns the column sets of s's unique indexes and unique
// fields, other than the primary key.
func uniqueSets(s *schema.Schema) [][]*schema.Field {
	var sets [][]*schema.Field
	for _, idx := range s.ParseIndexes() {
		if idx.Class != "UNIQUE" || idx.Where != "" {
			continue
		}
		set := make([]*schema.Field, 0, len(idx.Fields))
		for _, o := range idx.Fields {
			if o.Field == nil {
				set = nil
				break
			}
			set = append(set, o.Field)
		}
		if len(set) > 0 {
			sets = append(sets, set)
		}
	}
	for _, f := range s.Fields {
		if f.Unique && !f.PrimaryKey && f.DBName != "" {
			sets = append(sets, []*schema.Field{f})
		}
	}
	return sets
}
