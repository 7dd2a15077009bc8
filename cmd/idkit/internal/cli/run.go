package cli

import (
	"fmt"
	"io"
	"os"
	"time"
)

// Exit statuses returned by [Run].
const (
	ExitOK      = 0 // everything succeeded
	ExitInvalid = 1 // at least one input was invalid or an operation failed; the rest were processed
	ExitUsage   = 2 // bad command line: unknown subcommand or flag, or a bad flag value
)

// Env is what a run of the command reads and writes. Run fills nil fields
// with the process's own (os.Stdin, os.Stdout, os.Stderr, os.Getenv,
// time.Now, time.Local).
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Now    func() time.Time
	Local  *time.Location
	// StderrTerminal enables the progress bar of "idkit new" for large
	// counts; set it only when Stderr is a terminal.
	StderrTerminal bool
	// StdinTerminal makes "idkit inspect" and "idkit convert" without
	// arguments print their usage instead of waiting for typed input; set
	// it only when Stdin is a terminal.
	StdinTerminal bool
}

type command struct {
	name    string
	summary string
	run     func(e *Env, args []string) int
	usage   func(w io.Writer)
}

func commands() []command {
	return []command{
		{"new", "make new ObjectIDs, Snowflakes or v7 UUIDs, one per line", runNew, usageNew},
		{"inspect", "decode IDs: kind, time, node/process, counter/sequence, UUID version, bit diagram", runInspect, usageInspect},
		{"convert", "convert IDs between hex, decimal, base64 and raw bytes", runConvert, usageConvert},
		{"range", "smallest and largest IDs for a time range, with SQL and mongosh", runRange, usageRange},
		{"public", "encode IDs as keyed public IDs that hide time, node and order, and decode them", runPublic, usagePublic},
	}
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// Run runs the idkit command with args (without the program name) and
// returns its exit status: [ExitOK], [ExitInvalid] or [ExitUsage]. It writes
// results to e.Stdout and diagnostics to e.Stderr. Run is safe for
// concurrent use with distinct Envs.
func Run(args []string, e Env) int {
	e.fill()
	if len(args) == 0 {
		usageMain(e.Stderr)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			c, ok := lookup(args[1])
			if !ok {
				fmt.Fprintf(e.Stderr, "idkit help: unknown command %q\n", args[1])
				usageMain(e.Stderr)
				return ExitUsage
			}
			c.usage(e.Stdout)
			return ExitOK
		}
		usageMain(e.Stdout)
		return ExitOK
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(e.Stderr, "idkit: unknown command %q\n", args[0])
		usageMain(e.Stderr)
		return ExitUsage
	}
	return c.run(&e, args[1:])
}

func (e *Env) fill() {
	if e.Stdin == nil {
		e.Stdin = os.Stdin
	}
	if e.Stdout == nil {
		e.Stdout = os.Stdout
	}
	if e.Stderr == nil {
		e.Stderr = os.Stderr
	}
	if e.Getenv == nil {
		e.Getenv = os.Getenv
	}
	if e.Now == nil {
		e.Now = time.Now
	}
	if e.Local == nil {
		e.Local = time.Local
	}
}
