package cli

import (
	"fmt"
	"io"
)

func usageMain(w io.Writer) {
	fmt.Fprint(w, `idkit makes, inspects and converts MongoDB ObjectIDs and Snowflake IDs, and
makes and inspects UUIDs.

usage: idkit <command> [flags] [arguments]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run 'idkit help <command>' or 'idkit <command> --help' for a command's flags.
Flags may come before or after the arguments and take one or two dashes.
Arguments that start with a dash go after "--"; IDs are never negative.

Environment:
  IDKIT_NODE    node ID for 'idkit new --kind snowflake' when --node is not given
  IDKIT_LAYOUT  Snowflake layout when --layout is not given (default twitter)

Exit status: 0 when everything succeeded; 1 when an input was invalid or an
operation failed (the other inputs are still processed); 2 for a bad command
line.

Examples:
  idkit new --n 3
  idkit new --kind uuid
  IDKIT_NODE=7 idkit new --kind snowflake --n 1000000 > ids.txt
  idkit inspect 632c6d93d65f74baeb22a2c9 1541815603606036480
  idkit convert --to base64 632c6d93d65f74baeb22a2c9
  idkit range --from 2022-09-22 --to 2022-09-23
`)
}
