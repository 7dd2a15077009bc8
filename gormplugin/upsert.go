package gormplugin

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"
)

// Callback names of the upsert stage, on the Create processor. The stage
// runs after the fill and knows nothing of it: it takes every row's key as
// it is at the INSERT, whoever set it.
const (
	// upsertReturningCallback notes the rows of an upsert and asks the
	// database for their stored keys (RETURNING) where it can; it runs
	// just before gorm:create.
	upsertReturningCallback = "idkit:upsert_returning"
	// upsertKeysCallback makes the keys of an upsert's rows the stored
	// rows' keys; it runs after gorm:create, before GORM copies the keys
	// into associations.
	upsertKeysCallback = "idkit:upsert_keys"
)

// upsertCommittedKeysCallback reads back, on MySQL, the stored keys of an
// upsert that upsertKeysCallback left until GORM's own transaction was
// committed; it runs after gorm:commit_or_rollback_transaction.
const upsertCommittedKeysCallback = "idkit:upsert_committed_keys"

// upsertKey is the statement instance key holding an upsert's rows.
const upsertKey = "idkit:upsert"

// upsert is what the stage notes about one upsert (a create with an ON
// CONFLICT clause whose target is not the primary key alone).
type upsert struct {
	pk        *schema.Field
	rows      []upsertRow     // every row of the create
	keys      []any           // the keys the rows held at the INSERT
	returning bool            // RETURNING was added: GORM scanned the stored keys
	committed bool            // the read-back waits for GORM's commit
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

// noteUpsert returns the rows of an upsert of a model whose single primary
// key the plugin fills, or nil for other creates. An upsert whose conflict
// target is the primary key alone (GORM's association saves) is left out
// unless the model has another unique index on MySQL, which then conflicts
// on any of them.
func (p *Plugin) noteUpsert(db *gorm.DB) *upsert {
	stmt := db.Statement
	c, ok := stmt.Clauses["ON CONFLICT"]
	if !ok || stmt.Schema == nil || skipped(db) {
		return nil
	}
	mk := p.keysOf(stmt.Schema)
	pk := stmt.Schema.PrioritizedPrimaryField
	if mk.err != nil || pk == nil || len(stmt.Schema.PrimaryFields) != 1 ||
		!slices.ContainsFunc(mk.fields, func(kf keyField) bool { return kf.field == pk }) {
		return nil
	}
	oc, _ := c.Expression.(clause.OnConflict)
	if len(oc.Columns) == 1 && oc.Columns[0].Name == pk.DBName &&
		(stmt.Dialector.Name() != "mysql" || len(mk.uniques) == 0) {
		return nil
	}
	u := &upsert{pk: pk, doNothing: oc.DoNothing, columns: oc.Columns}
	model := stmt.Schema.ModelType
	addStruct := func(rv reflect.Value) {
		if rv.Kind() == reflect.Struct && rv.Type() == model && rv.CanAddr() {
			u.rows = append(u.rows, structRow{db: db, pk: pk, rv: rv})
		}
	}
	addMap := func(m map[string]any) {
		if m != nil {
			name, _ := mapKey(m, pk)
			u.rows = append(u.rows, mapRow{pk: pk, m: m, name: name})
		}
	}
	switch dest := stmt.Dest.(type) {
	case map[string]any:
		addMap(dest)
	case *map[string]any:
		if dest != nil {
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
	u.keys = make([]any, len(u.rows))
	for i, r := range u.rows {
		u.keys[i] = r.key()
	}
	return u
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

// upsertReturning is the upsertReturningCallback. It notes the upsert's
// rows and keys. On PostgreSQL, and on SQLite for one row, an upsert that
// updates on conflict gets RETURNING of the primary key (and of the columns
// GORM would return anyway), so GORM scans the stored row's key into the
// struct. SQLite returns the rows of a batch in no promised order, so
// batches there, DO NOTHING upserts and conditional updates (which return
// fewer rows than given) are read back after the INSERT instead.
func (p *Plugin) upsertReturning(db *gorm.DB) {
	if db.Error != nil {
		return
	}
	u := p.noteUpsert(db)
	if u == nil {
		return
	}
	db.InstanceSet(upsertKey, u)
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
		return // a nil element: GORM reports it
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

// upsertKeys is the upsertKeysCallback. After an upsert each row must hold
// the key of the row stored for it, whatever key it held before. With
// RETURNING, GORM has scanned the stored keys already. A single row the
// database reports as inserted (one affected row) kept its key. Otherwise
// one query reads back, for every row, the key of the stored row with the
// row's values in the conflict columns (clause.OnConflict.Columns, else
// each unique index of the model, in turn), or else with the row's key. A
// row whose stored key differs from its own was a conflict: with DO
// NOTHING its key is set to zero (no row holds it); with an update its key
// becomes the stored row's. A row with no stored row gets a zero key and
// the statement an error wrapping [ErrUpsertKey].
func (p *Plugin) upsertKeys(db *gorm.DB) {
	u := upsertOf(db)
	if u == nil || u.returning || db.Error != nil || db.DryRun {
		return
	}
	stmt := db.Statement
	oc, _ := stmt.Clauses["ON CONFLICT"].Expression.(clause.OnConflict)
	// MySQL's dialect writes DO NOTHING as an update of the key to itself,
	// so the clause read now may no longer say it.
	doNothing := u.doNothing || oc.DoNothing
	if len(u.rows) == 1 {
		switch {
		case db.RowsAffected == 1 && (doNothing || stmt.Dialector.Name() == "mysql"):
			return // inserted: MySQL counts an updated row twice
		case db.RowsAffected == 0 && doNothing:
			u.rows[0].setKey(reflect.Value{})
			return
		}
	}
	hooks := !stmt.SkipHooks && (stmt.Schema.AfterCreate || stmt.Schema.AfterSave)
	if _, own := db.InstanceGet("gorm:started_transaction"); own && stmt.Dialector.Name() == "mysql" && !hooks &&
		len(stmt.Schema.Relationships.Relations) == 0 && (len(u.columns) > 0 || len(p.keysOf(stmt.Schema).uniques) > 0) {
		// The INSERT's locks are held until the commit, and a read-back in
		// the transaction holds them longer: on InnoDB every round trip
		// widens the window in which other upserts of the same keys wait
		// on them and deadlock. Nothing after this needs the keys before
		// the commit (no associations, no AfterCreate or AfterSave hook),
		// so read them back after it, with a non-locking read.
		u.committed = true
		return
	}
	p.readBack(db, u, doNothing)
}

// upsertCommittedKeys is the upsertCommittedKeysCallback.
func (p *Plugin) upsertCommittedKeys(db *gorm.DB) {
	u := upsertOf(db)
	if u == nil || !u.committed || db.Error != nil {
		return
	}
	oc, _ := db.Statement.Clauses["ON CONFLICT"].Expression.(clause.OnConflict)
	p.readBack(db, u, u.doNothing || oc.DoNothing)
}

// readBack sets each row's key to its stored row's, read back in one query
// (see [Plugin.upsertKeys]).
func (p *Plugin) readBack(db *gorm.DB, u *upsert, doNothing bool) {
	stmt := db.Statement
	sets, err := conflictSets(stmt.Schema, u.columns, p.keysOf(stmt.Schema).uniques)
	if err != nil {
		db.AddError(fmt.Errorf("%w: %s: %w", ErrUpsertKey, stmt.Schema.Name, err))
		return
	}
	// A session of its own, in the create's transaction if it is still open.
	tx := db.Session(&gorm.Session{NewDB: true, SkipHooks: true})
	stored := make([]reflect.Value, 0, len(u.rows))
	// SQLite allows 500 terms in a compound SELECT; a row takes one per set
	// and one for its own key.
	chunk := max(1, readBackTerms/(len(sets)+1))
	for from := 0; from < len(u.rows); from += chunk {
		to := min(from+chunk, len(u.rows))
		keys, err := storedKeys(tx, stmt, u.pk, u.rows[from:to], u.keys[from:to], sets)
		if err != nil {
			db.AddError(fmt.Errorf("%w: %w", ErrUpsertKey, err))
			return
		}
		stored = append(stored, keys...)
	}
	for i, r := range u.rows {
		key := stored[i]
		switch {
		case !key.IsValid() && doNothing:
			r.setKey(reflect.Value{})
		case !key.IsValid():
			r.setKey(reflect.Value{})
			db.AddError(fmt.Errorf("%w: %s: no stored row matches the conflict columns", ErrUpsertKey, stmt.Schema.Name))
		case keyString(key.Interface()) == keyString(u.keys[i]):
		case doNothing:
			r.setKey(reflect.Value{})
		default:
			r.setKey(key)
		}
	}
}

// conflictSets returns the column sets a row may conflict on: the conflict
// columns when given, else the model's unique sets.
func conflictSets(s *schema.Schema, cols []clause.Column, uniques [][]*schema.Field) ([][]*schema.Field, error) {
	if len(cols) == 0 {
		return uniques, nil
	}
	set := make([]*schema.Field, 0, len(cols))
	for _, c := range cols {
		f := s.LookUpField(c.Name)
		if f == nil {
			return nil, fmt.Errorf("conflict column %q is not a field", c.Name)
		}
		set = append(set, f)
	}
	return [][]*schema.Field{set}, nil
}

// readBackTerms is the most SELECTs one read-back query unites.
const readBackTerms = 480

// storedKeys reads back, in one query, the stored key of each row:
// the key of the row with its values in the first of sets that matches,
// else its own key if stored. The database compares the values, with the
// column's collation. stored[i] is invalid when nothing matched row i.
func storedKeys(tx *gorm.DB, stmt *gorm.Statement, pkField *schema.Field, rows []upsertRow, keys []any, sets [][]*schema.Field) ([]reflect.Value, error) {
	var (
		sql  strings.Builder
		vars []any
	)
	table, pk := stmt.Quote(stmt.Table), stmt.Quote(pkField.DBName)
	branch := func(row, rank int, where string, values ...any) {
		if sql.Len() > 0 {
			sql.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&sql, "SELECT %d, %d, %s FROM %s WHERE %s", row, rank, pk, table, where)
		vars = append(vars, values...)
	}
	for i, r := range rows {
		for rank, set := range sets {
			conds := make([]string, len(set))
			values := make([]any, len(set))
			for j, f := range set {
				conds[j] = stmt.Quote(f.DBName) + " = ?"
				values[j] = r.value(f)
			}
			branch(i, rank, strings.Join(conds, " AND "), values...)
		}
		branch(i, len(sets), pk+" = ?", keys[i])
	}
	res, err := tx.Raw(sql.String(), vars...).Rows()
	if err != nil {
		return nil, err
	}
	defer res.Close()
	stored := make([]reflect.Value, len(rows))
	ranks := make([]int, len(rows))
	for res.Next() {
		var i, rank int
		v := reflect.New(pkField.IndirectFieldType)
		if err := res.Scan(&i, &rank, v.Interface()); err != nil {
			return nil, err
		}
		if i < 0 || i >= len(stored) {
			return nil, fmt.Errorf("read back row %d of %d", i, len(stored))
		}
		if !stored[i].IsValid() || rank < ranks[i] {
			stored[i], ranks[i] = v.Elem(), rank
		}
	}
	return stored, res.Err()
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
