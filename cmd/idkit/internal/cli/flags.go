package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/idkit-go/idkit/cmd/idkit/internal/parse"
	"github.com/idkit-go/idkit/generator"
)

// parseFlags parses args with fs, allowing flags after positional
// arguments ("idkit inspect ID --json"); "--" ends the flags. It returns the
// positional arguments, or an exit status (ok false) after printing help or
// a usage error.
//
// A word that is a negative decimal number ("-1") is a positional argument,
// not a flag (no flag is a number), so that "idkit inspect -1" reports it
// as an invalid ID rather than as an unknown flag.
func parseFlags(e *Env, fs *flag.FlagSet, usage func(io.Writer), args []string) ([]string, int, bool) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		err := fs.Parse(args)
		if i := negativeAt(err, args); i >= 0 {
			// Parse the flags before it, then take it as an argument.
			if err = fs.Parse(args[:i]); err == nil {
				pos, args = append(append(pos, fs.Args()...), args[i]), args[i+1:]
				continue
			}
		}
		if err != nil {
			if errors.Is(err, flag.ErrHelp) {
				usage(e.Stdout)
				return nil, ExitOK, false
			}
			return nil, usageError(e, fs.Name(), flagMessage(err)), false
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" || len(rest) == 0 {
			return append(pos, rest...), ExitOK, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// negativeAt returns the index in args of the negative number that err,
// from parsing args, reports as an undefined flag, or -1.
func negativeAt(err error, args []string) int {
	if err == nil {
		return -1
	}
	word, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok || !negativeNumber.MatchString(word) {
		return -1
	}
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == word {
			return i
		}
	}
	return -1
}

var (
	negativeNumber = regexp.MustCompile(`^-[0-9]+$`)
	flagName       = regexp.MustCompile(`(^|[: ])-{1,2}([A-Za-z][A-Za-z0-9-]*)`)
)

// flagMessage returns the flag package's error with flag names written
// as the help writes them, with two dashes ("flag needs an argument:
// --layout").
func flagMessage(err error) string {
	return flagName.ReplaceAllString(err.Error(), "$1--$2")
}

// message returns err's text without the package prefixes of idkit's
// libraries ("generator: ", "types: "), which mean nothing to a user of the
// command.
func message(err error) string {
	return libraryPrefix.ReplaceAllString(err.Error(), "$1")
}

var libraryPrefix = regexp.MustCompile(`(^|: )(?:generator|types|sqltypes|node|meteor|segment|publicid): `)

// usageError reports a bad command line and returns ExitUsage.
func usageError(e *Env, cmd, msg string) int {
	fmt.Fprintf(e.Stderr, "idkit %s: %s\nRun 'idkit help %s' for usage.\n", cmd, msg, cmd)
	return ExitUsage
}

// layoutFrom resolves the Snowflake layout: the flag, else IDKIT_LAYOUT,
// else Twitter. given reports whether either was set.
func layoutFrom(e *Env, flagValue string) (l generator.Layout, given bool, err error) {
	spec := flagValue
	if spec == "" {
		spec = strings.TrimSpace(e.Getenv("IDKIT_LAYOUT"))
		if spec == "" {
			return generator.Twitter(), false, nil
		}
		l, err = parse.Layout(spec)
		if err != nil {
			return l, true, fmt.Errorf("IDKIT_LAYOUT: %w", err)
		}
		return l, true, nil
	}
	l, err = parse.Layout(spec)
	if err != nil {
		return l, true, fmt.Errorf("--layout: %w", err)
	}
	return l, true, nil
}

// splitNode returns the named sub-fields of a preset's 10-bit node: the
// Twitter datacenter and worker, or Discord's worker and process.
func splitNode(l generator.Layout) (hi, lo string, ok bool) {
	switch l {
	case generator.Twitter():
		return "datacenter", "worker", true
	case generator.Discord():
		return "worker", "process", true
	}
	return "", "", false
}

// nodeName is what the layout calls its node field.
func nodeName(l generator.Layout) string {
	if l == generator.Sonyflake() {
		return "machine"
	}
	return "node"
}
