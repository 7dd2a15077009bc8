package types

import "time"

// LegacyParts are the fields of an ObjectID made with the layout used before
// MongoDB 3.4: a 4-byte Unix second, a 3-byte machine identifier (usually a
// hash of the host name), a 2-byte process ID and a 3-byte counter. That
// layout is obsolete, but IDs made with it are still found in old data.
type LegacyParts struct {
	Time    time.Time // creation second, UTC
	Machine uint32    // 3-byte machine identifier (bytes 4 to 6)
	PID     uint16    // 2-byte process ID (bytes 7 and 8), big-endian
	Counter uint32    // 3-byte counter (bytes 9 to 11)
}

// Legacy decodes id with the pre-3.4 layout. Any 12 bytes decode, so the
// caller must know that id was made with that layout; for IDs made today,
// bytes 4 to 8 are one random value (see [ObjectID.ProcessUnique]).
func (id ObjectID) Legacy() LegacyParts {
	return LegacyParts{
		Time:    id.Timestamp(),
		Machine: uint32(id[4])<<16 | uint32(id[5])<<8 | uint32(id[6]),
		PID:     uint16(id[7])<<8 | uint16(id[8]),
		Counter: id.Counter(),
	}
}
