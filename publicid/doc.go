// Package publicid maps IDs to public IDs that give nothing away, and back.
//
// A time-ordered key is right for a database but tells whoever sees it when
// the row was made, which node made it and, from two of them, how many rows
// were made in between; and its neighbours are easy to guess. A [Codec]
// encrypts the key with a secret key ring, so that the public ID shows none
// of this, and decrypts it exactly:
//
//	users, err := publicid.New[types.Snowflake]("user", os.Getenv("USER_ID_KEYS"))
//	s, err := users.Encode(id) // "user_1" and 13 digits
//	id, err = users.Decode(s)  // the same Snowflake
//
// Snowflakes (64 bits) and ObjectIDs (96 bits) are encrypted with FF1, the
// format-preserving encryption of NIST SP 800-38G over AES-256, on their
// bits; UUIDs (128 bits) with one AES-256 block. Public IDs are lower-case
// base32 (TypeID's alphabet) after an optional type prefix that Decode
// checks, so that an order's public ID is not taken for a user's. The
// digit after the prefix names the key that encoded, so a ring can hold
// old keys that still decode while its first key encodes. [EncodeTypeID]
// and [DecodeTypeID] give UUIDs of versions 1 to 8 the TypeID form, whose
// first digit names the key (0-7) and whose other 125 bits are the UUID's
// version and its 122 other varying bits, encrypted with FF1.
//
// The public ID hides the ID; it is not authorization: anyone who has a
// public ID can use it. How keys are made, kept and rotated, and what the
// form protects:
// https://github.com/idkit-go/idkit/blob/main/docs/publicid.md.
package publicid
