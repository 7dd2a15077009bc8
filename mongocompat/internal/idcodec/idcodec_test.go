package idcodec

import (
	"errors"
	"reflect"
	"testing"
)

// Stand-ins for idkit's types, so that the test, like the package, imports
// no idkit package.
type (
	oid  [12]byte
	sf   int64
	noid struct {
		ID    oid
		Valid bool
	}
	nsf struct {
		ID    sf
		Valid bool
	}
	wrongNull struct {
		Valid bool
		ID    oid
	}
)

var errStub = errors.New("stub")

func (oid) MarshalBSONValue() (byte, []byte, error)       { return 0, nil, errStub }
func (*oid) UnmarshalBSONValue(byte, []byte) error        { return errStub }
func (sf) MarshalBSONValue() (byte, []byte, error)        { return 0, nil, errStub }
func (*sf) UnmarshalBSONValue(byte, []byte) error         { return errStub }
func (noid) MarshalBSONValue() (byte, []byte, error)      { return 0, nil, errStub }
func (*noid) UnmarshalBSONValue(byte, []byte) error       { return errStub }
func (nsf) MarshalBSONValue() (byte, []byte, error)       { return 0, nil, errStub }
func (*nsf) UnmarshalBSONValue(byte, []byte) error        { return errStub }
func (wrongNull) MarshalBSONValue() (byte, []byte, error) { return 0, nil, errStub }
func (*wrongNull) UnmarshalBSONValue(byte, []byte) error  { return errStub }

type writer struct{ calls []string }

func (w *writer) WriteObjectID([12]byte) error { w.calls = append(w.calls, "oid"); return nil }
func (w *writer) WriteInt64(int64) error       { w.calls = append(w.calls, "int64"); return nil }
func (w *writer) WriteNull() error             { w.calls = append(w.calls, "null"); return nil }

func good() Types {
	return Types{reflect.TypeFor[oid](), reflect.TypeFor[sf](), reflect.TypeFor[noid](), reflect.TypeFor[nsf]()}
}

func noRaw(Reader[byte, [12]byte]) (byte, []byte, error) { return 0, nil, errStub }

// Codecs refuses Types of the wrong shape at construction, so that the
// reflection in the codecs never meets one.
func TestCodecsCheckTypes(t *testing.T) {
	if n := len(Codecs(good(), noRaw)); n != 4 {
		t.Fatalf("%d codecs", n)
	}
	for name, mod := range map[string]func(*Types){
		"missing":             func(ts *Types) { ts.Snowflake = nil },
		"ObjectID not array":  func(ts *Types) { ts.ObjectID = reflect.TypeFor[sf]() },
		"Null fields swapped": func(ts *Types) { ts.NullObjectID = reflect.TypeFor[wrongNull]() },
		"no methods":          func(ts *Types) { ts.Snowflake = reflect.TypeFor[int64]() },
	} {
		t.Run(name, func(t *testing.T) {
			ts := good()
			mod(&ts)
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			Codecs(ts, noRaw)
		})
	}
}

// The encoders write set IDs directly, NULL as null, and hand a zero or
// negative ID to the type's MarshalBSONValue for its error.
func TestEncode(t *testing.T) {
	c := Codecs(good(), noRaw)
	for _, tc := range []struct {
		codec int
		v     any
		call  string
		err   error
	}{
		{0, oid{1}, "oid", nil},
		{0, oid{}, "", errStub},
		{1, sf(5), "int64", nil},
		{1, sf(0), "", errStub},
		{1, sf(-1), "", errStub},
		{2, noid{}, "null", nil},
		{2, noid{ID: oid{1}, Valid: true}, "oid", nil},
		{2, noid{Valid: true}, "", errStub},
		{3, nsf{ID: 3, Valid: true}, "int64", nil},
		{3, nsf{Valid: true}, "", errStub},
	} {
		var w writer
		for _, addressable := range []bool{false, true} {
			v := reflect.ValueOf(tc.v)
			if addressable {
				p := reflect.New(v.Type())
				p.Elem().Set(v)
				v = p.Elem()
			}
			w.calls = nil
			err := c[tc.codec].Encode(&w, v)
			if !errors.Is(err, tc.err) || (tc.call != "" && (len(w.calls) != 1 || w.calls[0] != tc.call)) {
				t.Errorf("Encode(%#v) = %v, calls %v", tc.v, err, w.calls)
			}
		}
	}
}
