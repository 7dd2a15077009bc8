// Command idkit makes, inspects and converts MongoDB ObjectIDs and Snowflake
// IDs.
//
// Install it from a checkout of the repository with
//
//	go install ./cmd/idkit
//
// Usage:
//
//	idkit new [--n N] [--kind objectid|snowflake] [--node N] [--layout LAYOUT]
//	idkit inspect [--layout LAYOUT] [--json] [ID ...]
//	idkit convert [--from FORM] [--to FORM] [--kind KIND] [ID ...]
//	idkit range --from TIME [--to TIME] [--kind KIND] [--layout LAYOUT]
//	idkit public encode|decode|key [--prefix P] [--key-file F] [ID ...]
//
// Run "idkit help COMMAND" for the details of each command. Exit status is 0
// on success, 1 when an input was invalid (the others are still processed)
// and 2 for a bad command line.
package main

import (
	"os"

	"github.com/mattn/go-isatty"

	"github.com/idkit-go/idkit/cmd/idkit/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], cli.Env{StderrTerminal: terminal(os.Stderr), StdinTerminal: terminal(os.Stdin)}))
}

// terminal reports whether f is a terminal. Other character devices, such
// as /dev/null, are not: "idkit inspect < /dev/null" reads an empty input.
func terminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}
