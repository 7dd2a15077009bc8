package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/idkit-go/idkit/cmd/idkit/internal/parse"
	"github.com/idkit-go/idkit/types"
)

func usageInspect(w io.Writer) {
	fmt.Fprint(w, `usage: idkit inspect [--from FORM] [--layout LAYOUT] [--form FORM] [--json] [ID ...]

Decode each ID given as an argument or, with no arguments, each word of each
line of standard input (when standard input is a terminal, this help is
printed instead). The kind is recognised from the form: 24 hex digits
are an ObjectID, a decimal number is a Snowflake (29 digits: an
ObjectID's dec form), the 8-4-4-4-12 form or 32 hex digits a UUID, and
every form 'idkit convert' writes reads back: 0x and hex digits are a
Snowflake, base64 or base64url of 12 or 8 bytes an ObjectID or a
Snowflake. Sixteen hex digits without 0x are a Snowflake's hex or an
ObjectID's base64, an error unless --from says which. Wrappers pasted from the
MongoDB shell or extended JSON (ObjectId("..."), {"$oid":"..."},
NumberLong("..."), UUID("...")) and quotes are removed first.

For each ID it prints the time (UTC and local), the process value and
counter of an ObjectID (and its pre-MongoDB-3.4 reading: machine, pid,
counter), the node and sequence of a Snowflake, or the version and variant
of a UUID (with the time of a version 7 UUID), and a diagram of its bit
fields.

Flags:
  --from FORM      input form: auto (the default, as above), hex, dec,
                   base64 or base64url, as for 'idkit convert'
  --layout LAYOUT  Snowflake layout (default: $IDKIT_LAYOUT, else twitter)
  --form FORM      the IDs are keys in a scatter form: reversed (Snowflake)
                   or shard:S (S in 1..16); each is turned back into its
                   ordered ID, which is decoded. A key does not say its
                   form, except a UUID key (version 8): without --form a
                   key decodes as an ordered ID, to a wrong time
  --json           one JSON object per line per input (JSON Lines); an
                   invalid input gives {"input": ..., "error": ...} on
                   standard output as well as the message on standard error
  -w, --width N    widest diagram in columns before its boxes wrap
                   (default: $COLUMNS, else 120)

`)
	fmt.Fprintln(w, parse.LayoutSyntax)
	fmt.Fprint(w, `
JSON fields: input, kind (objectid|snowflake|uuid), id, time (RFC 3339,
UTC), local, fields [{name, bits, value}], notes; with --form: form and
key (the input's key; id is then its ordered ID); ObjectID: unix,
process_unique (hex), counter, legacy {machine (hex), pid, counter};
Snowflake: layout, unix_ms, tick, node, sequence, and datacenter+worker
(twitter) or worker+process (discord); UUID: version, variant, and unix_ms
for version 7 (time and local are "" for other versions).

An invalid ID is reported on standard error, naming it; the others are
still decoded, and the exit status is 1.

Examples:
  idkit inspect 632c6d93d65f74baeb22a2c9
  idkit inspect --layout discord 175928847299117063
  idkit inspect --form reversed 1523966563967084
  idkit inspect 0190a3c2-5b7e-7def-8a12-3456789abcde
  mongoexport ... | jq -r '._id."$oid"' | idkit inspect --json
`)
}

func runInspect(e *Env, args []string) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	from := fs.String("from", "auto", "")
	layoutFlag := fs.String("layout", "", "")
	formFlag := fs.String("form", "", "")
	asJSON := fs.Bool("json", false, "")
	width := fs.Int("width", 0, "")
	fs.IntVar(width, "w", 0, "")
	pos, code, ok := parseFlags(e, fs, usageInspect, args)
	if !ok {
		return code
	}
	if len(pos) == 0 && e.StdinTerminal {
		usageInspect(e.Stderr)
		return ExitUsage
	}
	if *from = strings.ToLower(*from); !convertForms[*from] || *from == "all" || *from == "raw" {
		return usageError(e, "inspect", fmt.Sprintf("--from %q: want auto, hex, dec, base64 or base64url", *from))
	}
	layout, _, err := layoutFrom(e, *layoutFlag)
	if err != nil {
		return usageError(e, "inspect", err.Error())
	}
	form, err := types.ParseForm(*formFlag)
	if err != nil {
		return usageError(e, "inspect", "--form: "+message(err))
	}
	if *width <= 0 {
		*width = 120
		if c, err := strconv.Atoi(e.Getenv("COLUMNS")); err == nil && c >= 40 {
			*width = c
		}
	}
	status, first := ExitOK, true
	enc := json.NewEncoder(e.Stdout)
	enc.SetEscapeHTML(false)
	fail := func(in input, err error) {
		fmt.Fprintf(e.Stderr, "idkit inspect: %s: %s\n", in.where, message(err))
		if *asJSON {
			_ = enc.Encode(struct {
				Input string `json:"input"`
				Error string `json:"error"`
			}{in.text, message(err)})
		}
		status = ExitInvalid
	}
	read := eachInput(e, "inspect", pos, func(in input) {
		id, err := decodeForm(in.text, *from, 0)
		if err != nil {
			fail(in, err)
			return
		}
		key := id
		if id, err = ordered(id, form); err != nil {
			fail(in, err)
			return
		}
		var r record
		if id.Kind == parse.KindObjectID {
			r = decodeObjectID(e, in.text, id.ObjectID)
		} else if id.Kind == parse.KindUUID {
			r = decodeUUID(e, in.text, id.UUID)
		} else if r, err = decodeSnowflake(e, in.text, id.Snowflake, layout); err != nil {
			fail(in, err)
			return
		}
		if form != (types.Form{}) {
			r.Form, r.Key = form.String(), key.String()
		} else {
			r.Notes = append(r.Notes, scatterHints(e, id, r)...)
		}
		if *asJSON {
			_ = enc.Encode(r)
			return
		}
		if !first {
			fmt.Fprintln(e.Stdout)
		}
		first = false
		writeRecord(e.Stdout, r, *width)
	})
	if !read {
		return ExitInvalid
	}
	return status
}
