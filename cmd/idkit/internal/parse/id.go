package parse

import (
	"fmt"
	"strings"

	"github.com/idkit-go/idkit/types"
)

// Kind says which type an [ID] holds.
type Kind int

// The kinds of ID.
const (
	KindObjectID  Kind = iota + 1 // a 12-byte MongoDB ObjectID
	KindSnowflake                 // a 63-bit Snowflake
	KindUUID                      // a 16-byte UUID of any version
)

// String returns "objectid", "snowflake" or "uuid".
func (k Kind) String() string {
	switch k {
	case KindUUID:
		return "uuid"
	case KindObjectID:
		return "objectid"
	case KindSnowflake:
		return "snowflake"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind reads "objectid", "snowflake" or "uuid" (case-insensitive;
// "oid" and "sf" are short forms). Anything else returns an error wrapping
// [ErrKind].
func ParseKind(s string) (Kind, error) {
	switch strings.ToLower(s) {
	case "uuid":
		return KindUUID, nil
	case "objectid", "oid":
		return KindObjectID, nil
	case "snowflake", "sf":
		return KindSnowflake, nil
	}
	return 0, fmt.Errorf("%w: unknown kind %q (want objectid, snowflake or uuid)", ErrKind, s)
}

// ID is an ObjectID, a Snowflake or a UUID, as recognised by [ParseID].
type ID struct {
	Kind      Kind
	ObjectID  types.ObjectID  // set when Kind is KindObjectID
	Snowflake types.Snowflake // set when Kind is KindSnowflake
	UUID      types.UUID      // set when Kind is KindUUID
}

// String returns the canonical text of the ID: 24 lower-case hex digits,
// the decimal Snowflake, or the canonical UUID.
func (id ID) String() string {
	switch id.Kind {
	case KindObjectID:
		return id.ObjectID.Hex()
	case KindUUID:
		return id.UUID.String()
	}
	return id.Snowflake.String()
}

// ParseID recognises an ID by its form: 24 hex digits (either case) are an
// ObjectID, 1 to 19 decimal digits up to 9223372036854775807 a Snowflake,
// the 8-4-4-4-12 hex form or 32 hex digits a UUID. The wrappers that the
// MongoDB shell and extended JSON print are removed first: ObjectId("…"),
// ObjectID('…'), {"$oid":"…"}, NumberLong("…"), Long("…"), UUID("…"),
// {"$uuid":"…"} and plain double or single quotes; surrounding spaces are
// ignored. There is no ambiguity: a Snowflake never has more than 19 digits.
// Anything else, a negative number included, returns an error wrapping
// [ErrID] that says why.
func ParseID(s string) (ID, error) {
	in := unwrap(strings.TrimSpace(s))
	switch {
	case in == "":
		return ID{}, fmt.Errorf("%w: %q is empty", ErrID, s)
	case len(in) == 36 && in[8] == '-' || len(in) == 32 && isHex(in):
		u, err := types.ParseUUID(in)
		if err != nil {
			return ID{}, fmt.Errorf("%w: %q is not a UUID (8-4-4-4-12 hex digits)", ErrID, s)
		}
		return ID{Kind: KindUUID, UUID: u}, nil
	case len(in) == 24 && isHex(in):
		oid, err := types.ParseObjectID(in)
		if err != nil { // unreachable: checked above
			return ID{}, fmt.Errorf("%w: %w", ErrID, err)
		}
		return ID{Kind: KindObjectID, ObjectID: oid}, nil
	case isDecimal(in):
		if len(in) > 19 {
			return ID{}, fmt.Errorf("%w: %q has %d digits, too many for a Snowflake (at most 19)", ErrID, s, len(in))
		}
		sf, err := types.ParseSnowflake(in)
		if err != nil {
			return ID{}, fmt.Errorf("%w: %q is above 9223372036854775807, the largest Snowflake", ErrID, s)
		}
		return ID{Kind: KindSnowflake, Snowflake: sf}, nil
	case len(in) == 24:
		return ID{}, fmt.Errorf("%w: %q has 24 characters but %q is not a hex digit", ErrID, s, firstNonHex(in))
	case isHex(in):
		return ID{}, fmt.Errorf("%w: %q has %d hex digits, an ObjectID has 24 and a UUID 32", ErrID, s, len(in))
	case len(in) > 1 && in[0] == '-' && isDecimal(in[1:]):
		return ID{}, fmt.Errorf("%w: %q is negative, and IDs never are (a Snowflake is a decimal number from 0 to 9223372036854775807)", ErrID, s)
	}
	return ID{}, fmt.Errorf("%w: %q is neither an ObjectID (24 hex digits), a Snowflake (decimal) nor a UUID", ErrID, s)
}

// unwrap removes one shell or extended-JSON wrapper and quotes around s.
func unwrap(s string) string {
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		inner := strings.TrimSpace(s[1 : len(s)-1])
		for _, key := range []string{`"$oid"`, `$oid`, `"$numberLong"`, `"$uuid"`, `$uuid`} {
			if rest, ok := strings.CutPrefix(inner, key); ok {
				if v, ok := strings.CutPrefix(strings.TrimSpace(rest), ":"); ok {
					s = strings.TrimSpace(v)
					break
				}
			}
		}
	}
	for _, fn := range []string{"ObjectId(", "ObjectID(", "NumberLong(", "Long(", "UUID("} {
		if inner, ok := strings.CutPrefix(s, fn); ok && strings.HasSuffix(inner, ")") {
			s = strings.TrimSpace(inner[:len(inner)-1])
			break
		}
	}
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return s
}

func isHex(s string) bool {
	return s != "" && firstNonHex(s) == ""
}

func firstNonHex(s string) string {
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F') {
			return string(r)
		}
	}
	return ""
}

func isDecimal(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
