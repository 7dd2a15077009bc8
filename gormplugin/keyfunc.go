package gormplugin

import (
	"database/sql"
	"database/sql/driver"
	"fmt"
	"reflect"

	"github.com/idkit-go/idkit/generator"
	"gorm.io/gorm/clause"
)

// keyFunc is a key type registered with [WithKeyFunc].
type keyFunc struct {
	typ reflect.Type
	// set stores a new key in v, an addressable T, when it holds the zero
	// key.
	set func(v reflect.Value) error
}

// WithKeyFunc makes the plugin fill zero primary keys of type T (or *T)
// from next, for any T (uuid.NewV7, a ULID maker), as it fills ObjectID keys.
// A key is zero when T's IsZero method says so, else when it equals T's zero
// value. A nil next, a pointer or interface T, or a T that has no IsZero
// method and is not comparable is an [generator.ErrInvalidConfig] error at db.Use. An
// error or a zero key from next fails the create with [ErrGenerate]. next
// must be safe for concurrent use.
func WithKeyFunc[T any](next func() (T, error)) Option {
	return Option{func(p *Plugin) error {
		t := reflect.TypeFor[T]()
		if next == nil {
			return fmt.Errorf("%w: nil key func for %s", generator.ErrInvalidConfig, t)
		}
		if k := t.Kind(); k == reflect.Pointer || k == reflect.Interface {
			return fmt.Errorf("%w: key type %s is a pointer or interface; give the type it points to", generator.ErrInvalidConfig, t)
		}
		zeroAt, ok := zeroTest[T]()
		if !ok {
			return fmt.Errorf("%w: key type %s has no IsZero method and is not comparable", generator.ErrInvalidConfig, t)
		}
		kf := &keyFunc{typ: t}
		kf.set = func(rv reflect.Value) error {
			v := rv.Addr().Interface().(*T)
			if !zeroAt(v) {
				return nil
			}
			id, err := next()
			if err != nil {
				return err
			}
			if *v = id; zeroAt(v) {
				return fmt.Errorf("key func for %s returned the zero key", t)
			}
			return nil
		}
		if p.keyFuncs == nil {
			p.keyFuncs = map[reflect.Type]*keyFunc{}
		}
		p.keyFuncs[t] = kf
		return nil
	}}
}

// zeroTest returns the zero test of the T at a pointer: T's IsZero method
// (on T or *T), else comparison with the zero value when T is comparable.
func zeroTest[T any]() (func(*T) bool, bool) {
	type zeroer interface{ IsZero() bool }
	var zero T
	if _, ok := any(&zero).(zeroer); ok {
		// The method expression (*T).IsZero, found once: a call through
		// it boxes nothing.
		m, _ := reflect.TypeFor[*T]().MethodByName("IsZero")
		if f, ok := m.Func.Interface().(func(*T) bool); ok {
			return f, true
		}
		return func(v *T) bool { return any(v).(zeroer).IsZero() }, true
	}
	if !reflect.TypeFor[T]().Comparable() {
		return nil, false
	}
	return func(v *T) bool { return any(*v) == any(zero) }, true
}

// fromBytes returns the key whose SQL value is the bytes values holds (one
// uint8 each: GORM's reading of an inline []byte key), when T's SQL value
// is those bytes.
func (kf *keyFunc) fromBytes(values []any) (any, bool) {
	b := make([]byte, len(values))
	for i, v := range values {
		u, ok := v.(uint8)
		if !ok {
			return nil, false
		}
		b[i] = u
	}
	pv := reflect.New(kf.typ)
	scanner, ok := pv.Interface().(sql.Scanner)
	if !ok || scanner.Scan(b) != nil {
		return nil, false
	}
	key := pv.Elem().Interface()
	valuer, ok := key.(driver.Valuer)
	if !ok {
		return nil, false
	}
	sv, err := valuer.Value()
	if got, isBytes := sv.([]byte); err != nil || !isBytes || string(got) != string(b) {
		return nil, false
	}
	return key, true
}

// keyCondition rewrites GORM's per-byte IN list of one inline key of a
// model keyed by kf's type into "pk = key".
func (kf *keyFunc) keyCondition(in clause.IN) (clause.Expression, bool) {
	if key, ok := kf.fromBytes(in.Values); ok {
		return clause.Eq{Column: in.Column, Value: key}, true
	}
	if key, ok := stdUUIDKey(kf.typ, in.Values); ok {
		return clause.Eq{Column: in.Column, Value: key}, true
	}
	return uuidKeyList(kf.typ, in)
}
