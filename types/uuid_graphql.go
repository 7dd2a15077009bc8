package types

import (
	"fmt"
	"io"
)

var _ gqlScalar = (*UUID)(nil)

// MarshalGQL writes id for gqlgen as a GraphQL string in the canonical
// form, the same text as JSON. Write errors are ignored, as gqlgen's own
// marshalers ignore them.
func (id UUID) MarshalGQL(w io.Writer) {
	var buf [38]byte
	buf[0], buf[37] = '"', '"'
	encodeUUID(buf[1:37], &id)
	_, _ = w.Write(buf[:])
}

// UnmarshalGQL reads a gqlgen input value into id: a string that
// [ParseUUID] reads; nil gives the zero UUID. Other values, "" included,
// return an error wrapping [ErrInvalidUUID] and leave id unchanged.
func (id *UUID) UnmarshalGQL(v any) error {
	switch x := v.(type) {
	case string:
		return decodeUUID(id, x)
	case nil:
		*id = UUID{}
		return nil
	default:
		return fmt.Errorf("%w: cannot unmarshal GraphQL %T %s, want a string", ErrInvalidUUID, v, quoteInput(fmt.Sprint(v)))
	}
}
