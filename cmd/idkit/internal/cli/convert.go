package cli

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/idkit-go/idkit/cmd/idkit/internal/parse"
	"github.com/idkit-go/idkit/types"
)

func usageConvert(w io.Writer) {
	fmt.Fprint(w, `usage: idkit convert [--from FORM] [--to FORM] [--kind KIND] [ID ...]

Convert each ID given as an argument or, with no arguments, each word of
each line of standard input (all of standard input with --from raw).

Forms:
  hex        ObjectID: 24 hex digits. Snowflake: 0x and 16 hex digits,
             the 8 big-endian bytes (input may have fewer digits, and
             with --from hex no 0x)
  dec        Snowflake: decimal. ObjectID: the 12 bytes as one unsigned
             96-bit big-endian number
  base64     standard alphabet, padded (input: padding optional)
  base64url  URL alphabet, unpadded (input: padding optional)
  raw        the bytes themselves: 12 per ObjectID, 8 big-endian per
             Snowflake, with no separator
  all        (--to only, the default) every form, and SQL literals

Sort order: IDs sort by creation time, and these forms keep that order
when compared as strings or bytes: hex in lower case (as idkit writes it;
do not mix cases), dec of one kind at equal width (pad with leading zeros:
as text "9" sorts after "10"), and raw. base64 and base64url do not: their
digits stand for larger values than their letters but sort before them as
text, and so do "+" and "/" (base64) and "-" (base64url), so sorting them
as text mixes up the IDs.

Flags:
  --from FORM  input form (default auto: an ObjectID or Snowflake as
               'inspect' reads them, 29 decimal digits as an ObjectID
               (as every one made since 1987 is), then 0x-prefixed hex, then base64 or base64url of
               12 or 8 bytes, so that every form this command writes reads
               back. Decimal wins over base64: use --from base64 for base64
               made only of digits. Sixteen hex digits without 0x are a
               Snowflake's hex or an ObjectID's base64: an error unless
               --from hex or --from base64 says which)
  --to FORM    output form (default all)
  --kind KIND  objectid or snowflake: required for --from raw input that
               is not exactly 12 or 8 bytes and for --from dec of an
               ObjectID of 1970 (fewer than 20 digits); otherwise inputs of
               the other kind are errors

An invalid input is reported on standard error, naming it; the others are
still converted, and the exit status is 1.

Examples:
  idkit convert --to base64url 632c6d93d65f74baeb22a2c9
  idkit convert --to hex 1541815603606036480
  idkit convert --from base64 --to dec FWYk9p2AAAA=
  idkit convert --to raw 632c6d93d65f74baeb22a2c9 | xxd
`)
}

var convertForms = map[string]bool{"auto": true, "hex": true, "dec": true, "base64": true, "base64url": true, "raw": true, "all": true}

func runConvert(e *Env, args []string) int {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	from := fs.String("from", "auto", "")
	to := fs.String("to", "all", "")
	kindFlag := fs.String("kind", "", "")
	pos, code, ok := parseFlags(e, fs, usageConvert, args)
	if !ok {
		return code
	}
	if len(pos) == 0 && e.StdinTerminal {
		usageConvert(e.Stderr)
		return ExitUsage
	}
	*from, *to = strings.ToLower(*from), strings.ToLower(*to)
	if !convertForms[*from] || *from == "all" {
		return usageError(e, "convert", fmt.Sprintf("--from %q: want auto, hex, dec, base64, base64url or raw", *from))
	}
	if !convertForms[*to] || *to == "auto" {
		return usageError(e, "convert", fmt.Sprintf("--to %q: want all, hex, dec, base64, base64url or raw", *to))
	}
	var kind parse.Kind
	if *kindFlag != "" {
		k, err := parse.ParseKind(*kindFlag)
		if err != nil {
			return usageError(e, "convert", "--kind: "+err.Error())
		}
		if k == parse.KindUUID {
			return usageError(e, "convert", "--kind uuid: convert handles ObjectIDs and Snowflakes (idkit inspect decodes UUIDs)")
		}
		kind = k
	}
	out := bufio.NewWriter(e.Stdout)
	defer out.Flush()
	status := ExitOK
	emit := func(in input, id parse.ID, err error) {
		if err == nil && id.Kind == parse.KindUUID {
			err = fmt.Errorf("%q is a UUID: convert handles ObjectIDs and Snowflakes (idkit inspect decodes UUIDs)", in.text)
		}
		if err == nil && kind != 0 && id.Kind != kind {
			err = fmt.Errorf("%q reads as %s, but --kind is %s", in.text, withArticle(id.Kind), kind)
		}
		if err != nil {
			out.Flush()
			fmt.Fprintf(e.Stderr, "idkit convert: %s: %s\n", in.where, message(err))
			status = ExitInvalid
			return
		}
		writeForm(out, id, *to)
	}
	if *from == "raw" {
		if len(pos) > 0 {
			return usageError(e, "convert", "--from raw reads standard input and takes no arguments")
		}
		if err := convertRaw(e, kind, emit); err != nil {
			fmt.Fprintf(e.Stderr, "idkit convert: %v\n", err)
			return ExitInvalid
		}
		return status
	}
	if !eachInput(e, "convert", pos, func(in input) {
		id, err := decodeForm(in.text, *from, kind)
		emit(in, id, err)
	}) {
		return ExitInvalid
	}
	return status
}

// convertRaw splits all of stdin into IDs of kind's size.
func convertRaw(e *Env, kind parse.Kind, emit func(input, parse.ID, error)) error {
	data, err := io.ReadAll(e.Stdin)
	if err != nil {
		return fmt.Errorf("reading stdin: %w", err)
	}
	size := 0
	switch {
	case kind == parse.KindObjectID || kind == 0 && len(data) == 12:
		size, kind = 12, parse.KindObjectID
	case kind == parse.KindSnowflake || kind == 0 && len(data) == 8:
		size, kind = 8, parse.KindSnowflake
	default:
		return fmt.Errorf("stdin: %d raw bytes: pass --kind objectid (12 bytes each) or --kind snowflake (8 bytes each)", len(data))
	}
	if len(data)%size != 0 {
		return fmt.Errorf("stdin: %d raw bytes are not a whole number of %d-byte %ss", len(data), size, kind)
	}
	for i := 0; i < len(data); i += size {
		in := input{fmt.Sprintf("stdin bytes %d-%d", i, i+size-1), hex.EncodeToString(data[i : i+size])}
		id, err := fromBytes(data[i:i+size], in.text)
		emit(in, id, err)
	}
	return nil
}

// decodeForm reads s in the given input form.
func decodeForm(s, from string, kind parse.Kind) (parse.ID, error) {
	switch from {
	case "auto":
		return readAuto(s)
	case "hex":
		return decodeHex(strings.TrimPrefix(strings.ToLower(s), "0x"), s)
	case "dec":
		if kind == parse.KindObjectID || kind == 0 && len(strings.TrimSpace(s)) > 19 {
			n, ok := new(big.Int).SetString(s, 10)
			if !ok || n.Sign() < 0 || n.BitLen() > 96 || strings.HasPrefix(s, "+") {
				return parse.ID{}, fmt.Errorf("%q is not a decimal number from 0 to 2^96-1", s)
			}
			var id parse.ID
			id.Kind = parse.KindObjectID
			n.FillBytes(id.ObjectID[:])
			return id, nil
		}
		v, err := types.ParseSnowflake(s)
		if err != nil {
			return parse.ID{}, err
		}
		return parse.ID{Kind: parse.KindSnowflake, Snowflake: v}, nil
	default: // base64, base64url
		enc := base64.StdEncoding
		if from == "base64url" {
			enc = base64.URLEncoding
		}
		b, err := enc.WithPadding(base64.NoPadding).DecodeString(strings.TrimRight(s, "="))
		if err != nil {
			return parse.ID{}, fmt.Errorf("%q is not %s: %v", s, from, err)
		}
		return fromBytes(b, s)
	}
}

// readAuto reads s as inspect and convert do without --from: the forms
// parse.ParseID reads (decimal up to 19 digits is a Snowflake), then the
// forms convert writes: 29 decimal digits (an ObjectID's dec),
// 0x-prefixed hex, base64 or base64url of 12 or 8 bytes. Sixteen hex
// digits without 0x are both a Snowflake's hex and an ObjectID's base64:
// that is an error naming the two readings and the flags that choose.
func readAuto(s string) (parse.ID, error) {
	t := strings.TrimSpace(s)
	id, err := parse.ParseID(s)
	switch {
	case err == nil:
		return id, nil
	case len(t) == 29 && isDigits(t):
		return decodeForm(t, "dec", parse.KindObjectID)
	case len(t) > 19 && len(t) < 29 && isDigits(t):
		return parse.ID{}, fmt.Errorf("%w (an ObjectID's dec form has 29 digits from 1987 on; for an older one pass --from dec)", err)
	}
	if h, ok := strings.CutPrefix(strings.ToLower(t), "0x"); ok {
		return decodeHex(h, s)
	}
	b, ok := decodeBase64(t)
	if len(t) == 16 && isHexDigits(t) {
		if sf, err := decodeHex(strings.ToLower(t), s); err == nil {
			return parse.ID{}, fmt.Errorf("%q is ambiguous: the Snowflake %d in hex, or the ObjectID %x in base64: pass --from hex (or write it 0x%s, as convert --to hex does) or --from base64", s, sf.Snowflake, b, t)
		}
	}
	if ok && (len(b) == 12 || len(b) == 8) {
		return fromBytes(b, s)
	}
	return parse.ID{}, fmt.Errorf("%w (nor 0x-prefixed hex, nor base64 of 12 or 8 bytes)", err)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isHexDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; (s[i] < '0' || s[i] > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return s != ""
}

func decodeHex(h, orig string) (parse.ID, error) {
	if len(h) == 24 {
		oid, err := types.ParseObjectID(h)
		return parse.ID{Kind: parse.KindObjectID, ObjectID: oid}, err
	}
	if len(h) == 0 || len(h) > 16 {
		return parse.ID{}, fmt.Errorf("%q: want 24 hex digits (ObjectID) or 1 to 16 (Snowflake)", orig)
	}
	b, err := hex.DecodeString(strings.Repeat("0", 16-len(h)) + h)
	if err != nil {
		return parse.ID{}, fmt.Errorf("%q is not hex", orig)
	}
	return fromBytes(b, orig)
}

func decodeBase64(s string) ([]byte, bool) {
	t := strings.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(t); err == nil {
			return b, true
		}
	}
	return nil, false
}

// fromBytes makes an ID of 12 (ObjectID) or 8 (Snowflake) bytes.
func fromBytes(b []byte, orig string) (parse.ID, error) {
	switch len(b) {
	case 12:
		return parse.ID{Kind: parse.KindObjectID, ObjectID: types.ObjectID(b)}, nil
	case 8:
		v := binary.BigEndian.Uint64(b)
		if v>>63 != 0 {
			return parse.ID{}, fmt.Errorf("%q: the top bit is set, so it is not a Snowflake (they are never negative)", orig)
		}
		return parse.ID{Kind: parse.KindSnowflake, Snowflake: types.Snowflake(v)}, nil
	}
	return parse.ID{}, fmt.Errorf("%q decodes to %d bytes, want 12 (ObjectID) or 8 (Snowflake)", orig, len(b))
}

// idBytes returns the raw bytes of id.
func idBytes(id parse.ID) []byte {
	if id.Kind == parse.KindObjectID {
		return id.ObjectID[:]
	}
	return binary.BigEndian.AppendUint64(nil, uint64(id.Snowflake))
}

func writeForm(w io.Writer, id parse.ID, to string) {
	b := idBytes(id)
	dec := id.String()
	if id.Kind == parse.KindObjectID {
		dec = new(big.Int).SetBytes(b).String()
	}
	hx := hex.EncodeToString(b)
	if id.Kind == parse.KindSnowflake {
		hx = "0x" + hx // 16 bare hex digits could be an ObjectID's base64, or all decimal digits
	}
	forms := map[string]string{
		"hex":       hx,
		"dec":       dec,
		"base64":    base64.StdEncoding.EncodeToString(b),
		"base64url": base64.RawURLEncoding.EncodeToString(b),
	}
	switch to {
	case "raw":
		w.Write(b)
		return
	case "all":
	default:
		fmt.Fprintln(w, forms[to])
		return
	}
	fmt.Fprintf(w, "%s  %s\n", id, kindTitle(id.Kind))
	for _, f := range []string{"hex", "dec", "base64", "base64url"} {
		fmt.Fprintf(w, "  %-10s %s\n", f, forms[f])
	}
	fmt.Fprintf(w, "  %-10s % x\n", "bytes", b)
	if id.Kind == parse.KindObjectID {
		fmt.Fprintf(w, "  %-10s '\\x%s'::bytea (PostgreSQL)   X'%s' (MySQL, MariaDB, SQLite)\n", "sql", forms["hex"], strings.ToUpper(forms["hex"]))
		fmt.Fprintf(w, "  %-10s ObjectId(\"%s\")\n", "mongosh", forms["hex"])
	} else {
		fmt.Fprintf(w, "  %-10s %s (BIGINT)\n", "sql", dec)
		fmt.Fprintf(w, "  %-10s NumberLong(\"%s\")\n", "mongosh", dec)
	}
}

func withArticle(k parse.Kind) string {
	if k == parse.KindObjectID {
		return "an ObjectID"
	}
	return "a Snowflake"
}

func kindTitle(k parse.Kind) string {
	if k == parse.KindObjectID {
		return "ObjectID"
	}
	return "Snowflake"
}
