package gormplugin

import (
	"fmt"
	"reflect"
	"slices"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// keyConditionCallback names the callback the plugin registers on the
// Query, Row, Update and Delete processors (before gorm:query, gorm:row,
// gorm:update and gorm:delete) to turn an inline ObjectID key (or 24 hex
// digits) into one condition and to refuse a zero key; the package
// documentation says which lookups it changes.
const keyConditionCallback = "idkit:key_conditions"

// keyConditions is the keyConditionCallback. GORM turns an inline primary
// key (db.First(&doc, id), db.Delete(&Doc{}, id), db.Where(id)) into
// "pk IN (values)", taking each element of a slice or array as one key.
// An ObjectID's Value is 12 bytes, so GORM writes "pk IN (107,3,240,...)":
// twelve one-byte keys that select no row. When the model's primary key
// holds an ObjectID, this rewrites such a condition (exactly twelve byte
// values) into "pk = key", with the key in the field's own SQL form, and
// converts the idkit ObjectIDs and 24-hex-digit strings in a list of keys
// to that form (raw bytes for a raw column, hex for a hex one). GORM runs
// an inline string that is not a number as SQL; for such a model a string
// of exactly 24 hex digits (db.First(&doc, "65a1...")) is taken as the key
// instead. Other conditions, and models with other keys, are left as they
// are.
//
// For every model with one primary key, a zero idkit ID among the keys
// (typically a request that carried no ID) stops the statement with an
// error wrapping [types.ErrZeroID], before anything is read or deleted.
func (p *Plugin) keyConditions(db *gorm.DB) {
	stmt := db.Statement
	if db.Error != nil || stmt.Schema == nil {
		return
	}
	mk := p.keysOf(stmt.Schema)
	c, ok := stmt.Clauses["WHERE"]
	if !ok {
		return
	}
	where, ok := c.Expression.(clause.Where)
	if !ok {
		return
	}
	f := stmt.Schema.PrioritizedPrimaryField
	if f != nil && refuseZeroKey(db, f, where.Exprs, mk.pk != nil) {
		return
	}
	if mk.pk == nil {
		return
	}
	exprs, changed := p.rewriteKeyExprs(mk.pk, stmt.Table, where.Exprs)
	if !changed {
		return
	}
	// A key rewritten from a form the first check cannot read (a uuid.UUID,
	// a UUID string) is an idkit ID now: check it too.
	if f != nil && refuseZeroKey(db, f, exprs, true) {
		return
	}
	c.Expression = clause.Where{Exprs: exprs}
	stmt.Clauses["WHERE"] = c
}

// refuseZeroKey adds the zero-key error to db and reports true when exprs
// compare the primary key f with a zero idkit ID (see zeroKeyIn).
func refuseZeroKey(db *gorm.DB, f *schema.Field, exprs []clause.Expression, hexKeys bool) bool {
	kind := zeroKeyIn(f, db.Statement.Table, exprs, hexKeys)
	if kind == "" {
		return false
	}
	db.AddError(fmt.Errorf("gormplugin: %s looked up by a zero %s (no ID given?): %w", db.Statement.Schema.Name, kind, types.ErrZeroID))
	return true
}

// rewriteKeyExprs rewrites the per-byte key conditions in exprs; it returns
// a new slice when anything changed and exprs itself otherwise.
func (p *Plugin) rewriteKeyExprs(pk *keyField, table string, exprs []clause.Expression) ([]clause.Expression, bool) {
	var out []clause.Expression
	for i, e := range exprs {
		ne, changed := p.rewriteKeyExpr(pk, table, e)
		if !changed {
			continue
		}
		if out == nil {
			out = append(make([]clause.Expression, 0, len(exprs)), exprs...)
		}
		out[i] = ne
	}
	if out == nil {
		return exprs, false
	}
	return out, true
}

func (p *Plugin) rewriteKeyExpr(pk *keyField, table string, e clause.Expression) (clause.Expression, bool) {
	switch e := e.(type) {
	case clause.IN:
		if !isPrimaryKeyColumn(e.Column, pk.field, table) {
			return e, false
		}
		if pk.fn != nil {
			return pk.fn.keyCondition(e)
		}
		if id, ok := bytesKey(e.Values); ok {
			return clause.Eq{Column: e.Column, Value: keyValue(pk, id)}, true
		}
		return sameFormKeys(pk, e)
	case clause.Expr:
		if isUUIDKeyType(pk.field.IndirectFieldType) {
			return uuidKeyExpr(e)
		}
		// GORM's form of an inline string condition that is not a number:
		// raw SQL with no arguments.
		if len(e.Vars) != 0 || len(e.SQL) != 24 {
			return e, false
		}
		id, err := types.ParseObjectID(e.SQL)
		if err != nil {
			return e, false
		}
		return clause.Eq{Column: clause.Column{Table: clause.CurrentTable, Name: clause.PrimaryKey}, Value: keyValue(pk, id)}, true
	case clause.AndConditions:
		exprs, changed := p.rewriteKeyExprs(pk, table, e.Exprs)
		return clause.AndConditions{Exprs: exprs}, changed
	case clause.OrConditions:
		exprs, changed := p.rewriteKeyExprs(pk, table, e.Exprs)
		return clause.OrConditions{Exprs: exprs}, changed
	case clause.NotConditions:
		exprs, changed := p.rewriteKeyExprs(pk, table, e.Exprs)
		return clause.NotConditions{Exprs: exprs}, changed
	}
	return e, false
}

// sameFormKeys converts the ObjectIDs among in's values that are in
// another SQL form than the key column (a HexObjectID for a raw key, an
// ObjectID for a hex key), and the strings of 24 hex digits, to the
// column's form.
func sameFormKeys(pk *keyField, in clause.IN) (clause.Expression, bool) {
	var values []any
	for i, v := range in.Values {
		id, ok := objectIDOf(v)
		if !ok {
			s, isString := v.(string)
			if !isString || len(s) != 24 {
				continue
			}
			var err error
			if id, err = types.ParseObjectID(s); err != nil {
				continue
			}
		}
		if values == nil {
			values = slices.Clone(in.Values)
		}
		values[i] = keyValue(pk, id)
	}
	if values == nil {
		return in, false
	}
	return clause.IN{Column: in.Column, Values: values}, true
}

// objectIDOf returns the ObjectID v holds when v is one of the idkit
// ObjectID types (or a pointer to one), and valid.
func objectIDOf(v any) (types.ObjectID, bool) {
	switch v := v.(type) {
	case types.ObjectID:
		return v, true
	case *types.ObjectID:
		if v != nil {
			return *v, true
		}
	case types.NullObjectID:
		return v.ID, v.Valid
	case *types.NullObjectID:
		if v != nil {
			return v.ID, v.Valid
		}
	case sqltypes.HexObjectID:
		return types.ObjectID(v), true
	case *sqltypes.HexObjectID:
		if v != nil {
			return types.ObjectID(*v), true
		}
	case sqltypes.NullHexObjectID:
		return types.ObjectID(v.ID), v.Valid
	case *sqltypes.NullHexObjectID:
		if v != nil {
			return types.ObjectID(v.ID), v.Valid
		}
	}
	return types.ObjectID{}, false
}

// isPrimaryKeyColumn reports whether col names the primary key of the
// statement's table: GORM's clause.PrimaryKey placeholder (what inline
// conditions use) or f's column, unqualified or qualified by that table.
func isPrimaryKeyColumn(col any, f *schema.Field, table string) bool {
	switch c := col.(type) {
	case clause.Column:
		if c.Raw || (c.Table != "" && c.Table != clause.CurrentTable && c.Table != table) {
			return false
		}
		return c.Name == clause.PrimaryKey || c.Name == f.DBName
	case string:
		return c == f.DBName
	}
	return false
}

// bytesKey reports whether values are the twelve bytes GORM makes of one
// ObjectID key, and returns that key.
func bytesKey(values []any) (types.ObjectID, bool) {
	var id types.ObjectID
	if len(values) != len(id) {
		return id, false
	}
	for i, v := range values {
		b, ok := v.(uint8)
		if !ok {
			return id, false
		}
		id[i] = b
	}
	return id, true
}

// keyValue returns id in the SQL form of the key field: a value of the
// field's type when that type is a [database/sql/driver.Valuer] (ObjectID,
// HexObjectID, their Null forms), otherwise 12 raw bytes, or 24 hex digits
// for a string field.
func keyValue(pk *keyField, id types.ObjectID) any {
	t := pk.field.IndirectFieldType
	if t.Implements(valuerType) {
		v := reflect.New(t).Elem()
		switch pk.rep {
		case repArray:
			reflect.Copy(v, reflect.ValueOf(id))
			return v.Interface()
		case repNull:
			if pk.inner == repArray {
				reflect.Copy(v.Field(pk.idIdx), reflect.ValueOf(id))
				v.Field(pk.okIdx).SetBool(true)
				return v.Interface()
			}
		}
	}
	if pk.rep == repHex || (pk.rep == repNull && pk.inner == repHex) {
		return id.Hex()
	}
	return id[:]
}
