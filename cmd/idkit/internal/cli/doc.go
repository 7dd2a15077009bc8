// Package cli implements the idkit command: its subcommands new, inspect,
// convert and range, their flags, help and output. The main package only
// calls [Run], so tests can run every subcommand in process as well as
// through the built binary.
package cli
