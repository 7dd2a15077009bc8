package publicid

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/idkit-go/idkit/internal/ff1"
)

// secretLen is the length of a key's secret in bytes.
const secretLen = 32

// key is one key of a ring, derived for one codec.
type key struct {
	id    byte         // its digit in the public form
	block cipher.Block // AES-256 with the derived key
	ff    *ff1.Cipher  // FF1 for Snowflakes and ObjectIDs; nil for UUIDs
	tid   *ff1.Cipher  // FF1 over 125 bits for the TypeID form: UUID keys of digit 0-7 only
}

// ringEntry is one "ID:SECRET" entry of a key ring.
type ringEntry struct {
	id     byte
	secret []byte
}

// parseRing reads a key ring: entries "ID:SECRET" separated by commas or
// white space, where ID is one digit of the alphabet and SECRET is 32 bytes
// in base64 (standard or URL alphabet, padding optional). Errors never
// quote a secret.
func parseRing(s string) ([]ringEntry, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if len(fields) == 0 {
		return nil, fmt.Errorf("%w: publicid: the key ring is empty (want ID:SECRET entries; make one with 'idkit public key')", ErrInvalidConfig)
	}
	var ring []ringEntry
	var seen [32]bool
	for i, f := range fields {
		idText, secretText, ok := strings.Cut(f, ":")
		if !ok || len(idText) != 1 || digitValue[idText[0]] == 0xff {
			return nil, fmt.Errorf("%w: publicid: key %d of the ring is not ID:SECRET with ID one of %q", ErrInvalidConfig, i+1, alphabet)
		}
		d := digitValue[idText[0]]
		if seen[d] {
			return nil, fmt.Errorf("%w: publicid: key ID %q appears twice in the ring", ErrInvalidConfig, idText)
		}
		seen[d] = true
		secret, err := decodeSecret(secretText)
		if err != nil || len(secret) != secretLen {
			return nil, fmt.Errorf("%w: publicid: the secret of key %q is not %d bytes in base64", ErrInvalidConfig, idText, secretLen)
		}
		ring = append(ring, ringEntry{idText[0], secret})
	}
	return ring, nil
}

func decodeSecret(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	if b, err := base64.RawURLEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(s)
}

// derive returns the key of entry e for the codec of the given kind and
// prefix: an AES-256 key from HKDF-SHA256 (RFC 5869) of the secret, with the
// kind and prefix as its info, so that every codec has keys of its own. A
// UUID key whose digit is 0-7 gets a second AES-256 key, with "typeid" as
// the kind, for FF1 in the TypeID form.
func derive(e ringEntry, k kind, prefix string) (*key, error) {
	block, err := subkey(e.secret, k.name(), prefix)
	if err != nil {
		return nil, err
	}
	out := &key{id: e.id, block: block}
	if bits := k.bits(); bits < 128 {
		out.ff = ff1.New(block, bits)
	} else if digitValue[e.id] < typeIDKeys {
		tb, err := subkey(e.secret, "typeid", prefix)
		if err != nil {
			return nil, err
		}
		out.tid = ff1.New(tb, typeIDBits)
	}
	return out, nil
}

// subkey returns AES-256 with the key HKDF-SHA256 derives from secret for
// the form name and the prefix.
func subkey(secret []byte, name, prefix string) (cipher.Block, error) {
	sub, err := hkdf.Key(sha256.New, secret, nil, "idkit publicid v1\x00"+name+"\x00"+prefix, 32)
	if err != nil {
		return nil, err
	}
	return aes.NewCipher(sub)
}
