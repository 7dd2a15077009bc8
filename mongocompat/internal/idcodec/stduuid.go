package idcodec

import (
	"fmt"

	"github.com/idkit-go/idkit/types"
)

// StdUUIDReader is what the drivers' value readers offer for decoding a
// UUID: the BSON type of the current value and its readers.
type StdUUIDReader interface {
	ReadBinary() (b []byte, subtype byte, err error)
	ReadString() (string, error)
	ReadNull() error
}

// StdUUIDWriter is the part of the drivers' value writers a UUID needs.
type StdUUIDWriter interface {
	WriteBinaryWithSubtype(b []byte, subtype byte) error
}

// EncodeStdUUID writes id, the bytes of a Go uuid.UUID, as BSON binary
// subtype 4, and refuses the nil UUID as [types.UUID.MarshalBSONValue]
// does (an error wrapping [types.ErrZeroID]).
func EncodeStdUUID(w StdUUIDWriter, id [16]byte) error {
	if id == ([16]byte{}) {
		_, _, err := types.UUID{}.MarshalBSONValue()
		return err
	}
	return w.WriteBinaryWithSubtype(id[:], 4)
}

// DecodeStdUUID reads a Go uuid.UUID of BSON type typ (binary, string or
// null, as bytes of the BSON type codes): binary subtype 4 of 16 bytes,
// binary subtype 0 of 16 bytes (what the drivers write for a uuid.UUID with
// no registry), a string [types.ParseUUID] reads, or null (the nil UUID).
// Anything else is an error wrapping [types.ErrInvalidUUID].
func DecodeStdUUID(r StdUUIDReader, typ byte) ([16]byte, error) {
	switch typ {
	case 0x05: // binary
		b, sub, err := r.ReadBinary()
		if err != nil {
			return [16]byte{}, err
		}
		if (sub != 4 && sub != 0) || len(b) != 16 {
			return [16]byte{}, fmt.Errorf("%w: BSON binary subtype %d of %d bytes, want subtype 4 (or 0) of 16", types.ErrInvalidUUID, sub, len(b))
		}
		return [16]byte(b), nil
	case 0x02: // string
		s, err := r.ReadString()
		if err != nil {
			return [16]byte{}, err
		}
		id, err := types.ParseUUID(s)
		return id, err
	case 0x0A: // null
		return [16]byte{}, r.ReadNull()
	}
	return [16]byte{}, fmt.Errorf("%w: cannot decode BSON type 0x%02x", types.ErrInvalidUUID, typ)
}
