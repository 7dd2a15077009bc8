package mongocompat

import (
	"fmt"
	"reflect"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// Filler fills zero _id fields of documents before they are inserted.
//
// A document is filled when it is a struct (through any pointers or
// interfaces) whose _id field (tag bson:"_id", possibly inside inline
// structs) is a [types.ObjectID], [types.Snowflake], [types.UUID] or (on
// Go 1.27 and later) Go's uuid.UUID (filled with [types.NewUUIDv7]), one of
// the idkit types' Null forms or a pointer to any of these, and is zero. A set key is never overwritten; other documents are left to the
// driver.
//
// The zero Filler is ready to use: it makes ObjectIDs with
// [types.NewObjectID] and has no Snowflake generator, so a zero Snowflake
// _id gives [generator.ErrNoSnowflakeGenerator]. A Filler is safe for concurrent use.
type Filler struct {
	objectIDs  *generator.ObjectID
	snowflakes *generator.Snowflake
}

// Option configures [NewFiller].
type Option struct {
	apply func(*Filler)
}

// NewFiller returns a Filler configured by opts; later options override
// earlier ones.
func NewFiller(opts ...Option) *Filler {
	f := &Filler{}
	for _, o := range opts {
		if o.apply != nil {
			o.apply(f)
		}
	}
	return f
}

// WithObjectID makes the Filler take ObjectIDs from g instead of
// [types.NewObjectID]. A nil g means the default.
func WithObjectID(g *generator.ObjectID) Option {
	return Option{func(f *Filler) { f.objectIDs = g }}
}

// WithSnowflake gives the Filler the generator for zero Snowflake keys;
// without one they are an error. A nil g means the default: no Snowflake
// generator.
func WithSnowflake(g *generator.Snowflake) Option {
	return Option{func(f *Filler) { f.snowflakes = g }}
}

// FillID fills doc's _id if it is zero; doc must be a pointer for a zero key
// to be set. It returns the _id after filling (nil if doc has no idkit _id)
// and whether it was filled. Errors wrap [types.ErrNotAddressable],
// [generator.ErrNoSnowflakeGenerator] or [ErrInvalidDocument], or are the Snowflake
// generator's; on error doc is unchanged.
func (f *Filler) FillID(doc any) (id any, filled bool, err error) {
	return f.fillValue(reflect.ValueOf(doc), false)
}

// FillIDs fills the zero _id of each document in docs, a slice or array
// ([]*T, []T or []any, or a pointer to one), in place, and returns each
// _id after filling. Every document is checked before any is filled, so
// only a Snowflake generator's error can leave some filled. A docs that is
// not a slice or array gives [ErrInvalidDocument].
func (f *Filler) FillIDs(docs any) (ids []any, err error) {
	v := reflect.ValueOf(docs)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Invalid:
		return nil, nil
	case reflect.Slice, reflect.Array:
	default:
		return nil, fmt.Errorf("%w: documents of type %s, want a slice", ErrInvalidDocument, v.Type())
	}
	n := v.Len()
	for i := range n {
		if _, _, err := f.fillValue(v.Index(i), true); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
	}
	ids = make([]any, n)
	for i := range n {
		id, _, err := f.fillValue(v.Index(i), false)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		ids[i] = id
	}
	return ids, nil
}

// fillValue fills the document held in v. With check set it only reports
// the error filling would meet, without generating or setting anything.
func (f *Filler) fillValue(v reflect.Value, check bool) (any, bool, error) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil, false, nil
		}
		if v.Kind() == reflect.Interface && v.Elem().Kind() == reflect.Struct && v.CanSet() {
			return f.fillInterface(v, check)
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil, false, nil
	}
	p, err := planFor(v.Type())
	if p == nil || err != nil {
		return nil, false, err
	}
	last := len(p.index) - 1
	for _, i := range p.index[:last] {
		v = v.Field(i)
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return nil, false, nil
			}
			v = v.Elem()
		}
	}
	field := v.Field(p.index[last])
	return f.fillField(field, p, check)
}

// fillInterface fills a copy of the struct value held in the settable
// interface slot v and stores the copy back if it was filled.
func (f *Filler) fillInterface(v reflect.Value, check bool) (any, bool, error) {
	cp := reflect.New(v.Elem().Type()).Elem()
	cp.Set(v.Elem())
	id, filled, err := f.fillValue(cp, check)
	if err == nil && filled && !check {
		v.Set(cp)
	}
	return id, filled, err
}

// fillField fills the _id field described by p, if it is zero.
func (f *Filler) fillField(field reflect.Value, p *idPath, check bool) (any, bool, error) {
	target := field
	if p.ptr && !field.IsNil() {
		target = field.Elem()
	}
	if !(p.ptr && field.IsNil()) && !isZeroID(target, p.kind) {
		return target.Interface(), false, nil
	}
	if !target.CanSet() {
		return nil, false, fmt.Errorf("%w: %s", types.ErrNotAddressable, field.Type())
	}
	if p.kind == kindSnowflake || p.kind == kindNullSnowflake {
		if f.snowflakes == nil {
			return nil, false, fmt.Errorf("%w: give mongocompat.WithSnowflake to fill a zero Snowflake _id", generator.ErrNoSnowflakeGenerator)
		}
	}
	if check {
		return nil, true, nil
	}
	var id any
	switch p.kind {
	case kindObjectID:
		id = f.newObjectID()
	case kindNullObjectID:
		id = types.NullObjectID{ID: f.newObjectID(), Valid: true}
	case kindUUID:
		id = types.NewUUIDv7()
	case kindNullUUID:
		id = types.NullUUID{ID: types.NewUUIDv7(), Valid: true}
	case kindStdUUID:
		id = newStdUUID()
	case kindSnowflake, kindNullSnowflake:
		s, err := f.snowflakes.Next()
		if err != nil {
			return nil, false, fmt.Errorf("mongocompat: generate Snowflake _id: %w", err)
		}
		id = s
		if p.kind == kindNullSnowflake {
			id = types.NullSnowflake{ID: s, Valid: true}
		}
	}
	nv := reflect.ValueOf(id)
	if p.ptr && field.IsNil() {
		ptr := reflect.New(nv.Type())
		ptr.Elem().Set(nv)
		field.Set(ptr)
	} else {
		target.Set(nv)
	}
	return id, true, nil
}

// isZeroID reports whether the _id v, of kind k, is zero (for a Null form:
// NULL).
func isZeroID(v reflect.Value, k idKind) bool {
	if k == kindStdUUID {
		return v.IsZero()
	}
	return v.Interface().(interface{ IsZero() bool }).IsZero()
}

func (f *Filler) newObjectID() types.ObjectID {
	if f.objectIDs != nil {
		return f.objectIDs.Next()
	}
	return types.NewObjectID()
}
