package publicid

import "github.com/idkit-go/idkit/types"

// kind is the ID type a codec maps.
type kind uint8

const (
	kindSnowflake kind = iota + 1
	kindObjectID
	kindUUID
)

func kindOf[T id]() kind {
	switch any(*new(T)).(type) {
	case types.Snowflake:
		return kindSnowflake
	case types.ObjectID:
		return kindObjectID
	}
	return kindUUID
}

// bits is the size of the kind's IDs.
func (k kind) bits() uint { return [...]uint{kindSnowflake: 64, kindObjectID: 96, kindUUID: 128}[k] }

// digits is how many base32 digits hold an ID of the kind.
func (k kind) digits() int { return (int(k.bits()) + 4) / 5 }

// topLimit bounds the first digit: the digits hold 5*digits bits, of which
// the top 5*digits-bits are zero.
func (k kind) topLimit() byte { return 1 << (5 - (5*k.digits() - int(k.bits()))) }

func (k kind) name() string {
	return [...]string{kindSnowflake: "snowflake", kindObjectID: "objectid", kindUUID: "uuid"}[k]
}

// title is the kind's type name, for error messages.
func (k kind) title() string {
	return [...]string{kindSnowflake: "Snowflake", kindObjectID: "ObjectID", kindUUID: "UUID"}[k]
}
