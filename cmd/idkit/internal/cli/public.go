package cli

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/idkit-go/idkit/cmd/idkit/internal/parse"
	"github.com/idkit-go/idkit/publicid"
	"github.com/idkit-go/idkit/types"
)

// keysEnv names the environment variable that holds the key ring when
// --key-file is not given.
const keysEnv = "IDKIT_PUBLICID_KEYS"

func usagePublic(w io.Writer) {
	fmt.Fprint(w, `usage: idkit public encode [--prefix P] [--typeid] [--key-file F] [ID ...]
       idkit public decode [--prefix P] [--kind KIND] [--key-file F] [PUBLIC_ID ...]
       idkit public key [--id C]

Map IDs to public IDs that reveal no time, node or order, and back, as the
Go package github.com/idkit-go/idkit/publicid does: FF1 (NIST SP 800-38G)
over AES-256 for Snowflakes, ObjectIDs and TypeIDs, AES-256 for UUIDs,
keyed by a key ring. IDs come from the arguments or, with none, from the words of
standard input; results are printed one per line.

  encode  reads ObjectIDs, Snowflakes and UUIDs as 'idkit inspect' does and
          prints their public IDs: the prefix and "_", the key's digit, then
          13 (Snowflake), 20 (ObjectID) or 26 (UUID) base32 digits
  decode  prints the ID of each public ID; the kind follows from the
          length unless --kind is given
  key     prints a new key ring entry, ID:SECRET, with 32 random bytes

Flags:
  --prefix P    the type prefix (a-z and _, up to 63); decode refuses
                public IDs with another prefix (default: none)
  --typeid      encode UUIDs in the TypeID form: 26 digits, the first the
                key's digit, which must be 0-7 (UUIDs of versions 1 to 8);
                decode reads 26 digits as a TypeID
  --kind KIND   decode: snowflake, objectid or uuid
  --key-file F  read the key ring from file F (default: $`+keysEnv+`)
  --id C        key: the key's digit (0-9, a-z but i, l, o, u; default 1)

The key ring is entries ID:SECRET separated by commas, spaces or lines; the
first encodes and all decode. Keep it secret: anyone who has it can read
the time, node and order in every public ID. Make a new key with 'idkit
public key', put it first, and keep the old ones while their public IDs
are in use.

Examples:
  idkit public key > user.keys
  idkit public encode --key-file user.keys --prefix user 1541815603606036480
  `+keysEnv+`="$(cat user.keys)" idkit public decode --prefix user user_1...
`)
}

func runPublic(e *Env, args []string) int {
	if len(args) == 0 {
		usagePublic(e.Stderr)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usagePublic(e.Stdout)
		return ExitOK
	case "key":
		return runPublicKey(e, args[1:])
	case "encode", "decode":
	default:
		return usageError(e, "public", fmt.Sprintf("unknown subcommand %q (want encode, decode or key)", args[0]))
	}
	op := args[0]
	fs := flag.NewFlagSet("public", flag.ContinueOnError)
	prefix := fs.String("prefix", "", "")
	typeID := fs.Bool("typeid", false, "")
	kindFlag := fs.String("kind", "", "")
	keyFile := fs.String("key-file", "", "")
	pos, code, ok := parseFlags(e, fs, usagePublic, args[1:])
	if !ok {
		return code
	}
	var kind parse.Kind
	if *kindFlag != "" {
		k, err := parse.ParseKind(*kindFlag)
		if err != nil {
			return usageError(e, "public", "--kind: "+err.Error())
		}
		kind = k
	}
	ring, err := readRing(e, *keyFile)
	if err != nil {
		fmt.Fprintf(e.Stderr, "idkit public: %v\n", err)
		return ExitUsage
	}
	cs, err := newCodecs(*prefix, ring)
	if err == nil && op == "encode" && *typeID {
		// Only keys 0-7 make TypeIDs: try the first key on a version 7 UUID.
		_, err = publicid.EncodeTypeID(cs.uid, types.UUIDv7FromTime(time.UnixMilli(0)))
	}
	if err != nil {
		return usageError(e, "public", strings.TrimPrefix(err.Error(), "idkit: invalid configuration: publicid: "))
	}
	out := bufio.NewWriter(e.Stdout)
	defer out.Flush()
	status := ExitOK
	if !eachInput(e, "public "+op, pos, func(in input) {
		var res string
		var err error
		if op == "encode" {
			res, err = cs.encode(in.text, *typeID)
		} else {
			res, err = cs.decode(in.text, kind, *typeID)
		}
		if err != nil {
			out.Flush()
			fmt.Fprintf(e.Stderr, "idkit public %s: %s: %s\n", op, in.where, message(err))
			status = ExitInvalid
			return
		}
		fmt.Fprintln(out, res)
	}) {
		return ExitInvalid
	}
	return status
}

// readRing returns the key ring from file, or else from $IDKIT_PUBLICID_KEYS.
func readRing(e *Env, file string) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("--key-file: %w", err)
		}
		return string(b), nil
	}
	if s := e.Getenv(keysEnv); strings.TrimSpace(s) != "" {
		return s, nil
	}
	return "", fmt.Errorf("no key ring: pass --key-file or set %s (make a key with 'idkit public key')", keysEnv)
}

// codecs are the three codecs of one prefix and ring.
type codecs struct {
	sf  *publicid.Codec[types.Snowflake]
	oid *publicid.Codec[types.ObjectID]
	uid *publicid.Codec[types.UUID]
}

func newCodecs(prefix, ring string) (codecs, error) {
	var cs codecs
	var err error
	if cs.sf, err = publicid.New[types.Snowflake](prefix, ring); err != nil {
		return cs, err
	}
	if cs.oid, err = publicid.New[types.ObjectID](prefix, ring); err != nil {
		return cs, err
	}
	cs.uid, err = publicid.New[types.UUID](prefix, ring)
	return cs, err
}

func (cs codecs) encode(s string, typeID bool) (string, error) {
	id, err := parse.ParseID(s)
	if err != nil {
		return "", err
	}
	switch id.Kind {
	case parse.KindSnowflake:
		return cs.sf.Encode(id.Snowflake)
	case parse.KindObjectID:
		return cs.oid.Encode(id.ObjectID)
	}
	if typeID {
		return publicid.EncodeTypeID(cs.uid, id.UUID)
	}
	return cs.uid.Encode(id.UUID)
}

func (cs codecs) decode(s string, kind parse.Kind, typeID bool) (string, error) {
	if kind == 0 {
		body := s[strings.LastIndexByte(s, '_')+1:]
		switch {
		case len(body) == 14:
			kind = parse.KindSnowflake
		case len(body) == 21:
			kind = parse.KindObjectID
		case len(body) == 26 || len(body) == 27:
			kind = parse.KindUUID
		default:
			return "", fmt.Errorf("%q has %d characters after the prefix: want 14 (Snowflake), 21 (ObjectID), 26 (TypeID) or 27 (UUID), or pass --kind", s, len(body))
		}
	}
	switch {
	case kind == parse.KindSnowflake:
		id, err := cs.sf.Decode(s)
		return id.String(), err
	case kind == parse.KindObjectID:
		id, err := cs.oid.Decode(s)
		return id.Hex(), err
	case typeID || len(s)-strings.LastIndexByte(s, '_')-1 == 26:
		id, err := publicid.DecodeTypeID(cs.uid, s)
		return id.String(), err
	}
	id, err := cs.uid.Decode(s)
	return id.String(), err
}

func runPublicKey(e *Env, args []string) int {
	fs := flag.NewFlagSet("public key", flag.ContinueOnError)
	id := fs.String("id", "1", "")
	pos, code, ok := parseFlags(e, fs, usagePublic, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError(e, "public", fmt.Sprintf("key: unexpected argument %q", pos[0]))
	}
	secret := make([]byte, 32)
	rand.Read(secret) // never fails (crypto/rand)
	entry := *id + ":" + base64.RawURLEncoding.EncodeToString(secret)
	if _, err := publicid.New[types.Snowflake]("", entry); err != nil {
		return usageError(e, "public", fmt.Sprintf("--id %q: want one of 0-9 and a-z but i, l, o, u", *id))
	}
	fmt.Fprintln(e.Stdout, entry)
	return ExitOK
}
