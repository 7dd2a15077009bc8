package types

import "fmt"

// MarshalBSONValue encodes id as a BSON ObjectId (type 0x07). The zero ID is
// never written: it returns an error wrapping [ErrZeroID], wherever the
// driver meets it. Fill zero _id fields before inserting (mongocompat does),
// leave a field out with bson omitempty, or store null with an invalid
// [NullObjectID]. The signature is that of mongo-driver v2's
// bson.ValueMarshaler; the v1 driver needs mongocompat/mongov1's codecs.
func (id ObjectID) MarshalBSONValue() (typ byte, data []byte, err error) {
	if id.IsZero() {
		return 0, nil, errZeroObjectIDBSON
	}
	b := id
	return bsonObjectID, b[:], nil
}

// UnmarshalBSONValue decodes a BSON ObjectId, a string of 24 hex digits, or
// null (which gives the zero ID). Unlike the driver's own ObjectID decoder
// it never reads a 12-character string as raw bytes (a string is text, as in
// [ObjectID.Scan]) and rejects undefined. Other types and malformed data
// return an error wrapping [ErrInvalidObjectID] and leave id unchanged. The
// signature is that of go.mongodb.org/mongo-driver/v2/bson.ValueUnmarshaler.
func (id *ObjectID) UnmarshalBSONValue(typ byte, data []byte) error {
	switch typ {
	case bsonObjectID:
		if len(data) != 12 {
			return fmt.Errorf("%w: BSON ObjectId of %d bytes", ErrInvalidObjectID, len(data))
		}
		copy(id[:], data)
		return nil
	case bsonString:
		s, err := bsonStringValue(data)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidObjectID, err)
		}
		return decodeHexBytes(id, s)
	case bsonNull:
		*id = ObjectID{}
		return nil
	default:
		return fmt.Errorf("%w: cannot decode BSON %s", ErrInvalidObjectID, bsonTypeName(typ))
	}
}
