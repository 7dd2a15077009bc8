package types

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/idkit-go/idkit/internal/objectidgen"
)

// ObjectID is a MongoDB ObjectId: 12 bytes made of a 4-byte big-endian Unix
// second, a 5-byte per-process unique value and a 3-byte counter.
//
// Its underlying type is [12]byte, so it converts directly to and from the
// MongoDB drivers' ObjectID types (primitive.ObjectID in v1, bson.ObjectID in
// v2). Byte order is creation order to the second, so sorting by ObjectID
// sorts by creation time. The zero value, ObjectID{}, means "no ID".
type ObjectID [12]byte

// NewObjectID returns a new ObjectID from the process-wide default generator.
// It never fails and is safe for concurrent use. Within one process the IDs
// are unique and never go back in time, even when the system clock does; see
// [github.com/idkit-go/idkit/generator.ObjectID] for the exact policy and for
// generators with their own settings.
func NewObjectID() ObjectID {
	return ObjectID(objectIDGen.Next())
}

// objectIDGen is objectidgen.Default, read once when the package starts
// (generator.DefaultObjectID returns the same generator): calling Default,
// a sync.OnceValue, for every ID is one more call, an indirect one, and
// keeps NewObjectID from inlining.
var objectIDGen = objectidgen.Default()

// ObjectIDFromTime returns the smallest ObjectID of t's second: the timestamp
// field set and every other byte zero. Use it as a bound in range queries
// ("_id >= ObjectIDFromTime(from) AND _id < ObjectIDFromTime(to)"), never as
// a key. Times outside the 32-bit range of the field wrap, as MongoDB's do.
func ObjectIDFromTime(t time.Time) ObjectID {
	var id ObjectID
	binary.BigEndian.PutUint32(id[0:4], uint32(t.Unix()))
	return id
}

// ObjectIDFromBytes returns the ObjectID held in b, which must be exactly 12
// bytes long; otherwise the error wraps [ErrInvalidObjectID].
func ObjectIDFromBytes(b []byte) (ObjectID, error) {
	var id ObjectID
	if len(b) != len(id) {
		return ObjectID{}, fmt.Errorf("%w: %d bytes, want 12", ErrInvalidObjectID, len(b))
	}
	copy(id[:], b)
	return id, nil
}

// Timestamp returns the creation second held in id, in UTC. id must be an
// ordered ObjectID: turn a key in a scatter form back first with its
// [Form.OrderedObjectID], or the second read is wrong.
func (id ObjectID) Timestamp() time.Time {
	return time.Unix(int64(binary.BigEndian.Uint32(id[0:4])), 0).UTC()
}

// ProcessUnique returns the 5-byte per-process value of id (bytes 4 to 8).
func (id ObjectID) ProcessUnique() [5]byte {
	return [5]byte(id[4:9])
}

// Counter returns the 3-byte counter of id (bytes 9 to 11).
func (id ObjectID) Counter() uint32 {
	return uint32(id[9])<<16 | uint32(id[10])<<8 | uint32(id[11])
}

// IsZero reports whether id is the zero ObjectID, ObjectID{}.
func (id ObjectID) IsZero() bool { return id == ObjectID{} }

// Compare returns -1, 0 or +1 as id sorts before, equal to or after other.
// The order is that of the bytes, and so of creation seconds.
func (id ObjectID) Compare(other ObjectID) int {
	return bytes.Compare(id[:], other[:])
}
