package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/idkit-go/idkit/cmd/idkit/internal/parse"
	"github.com/idkit-go/idkit/generator"
)

// parseFlags parses args with fs, allowing flags after positional
// arguments ("idkit inspect ID --json"); "--" ends the flags. It returns the
// positional arguments, or an exit status (ok false) after printing help or
// a usage error.
func parseFlags(e *Env, fs *flag.FlagSet, usage func(io.Writer), args []string) ([]string, int, bool) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				usage(e.Stdout)
				return nil, ExitOK, false
			}
			return nil, usageError(e, fs.Name(), err.Error()), false
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
			return generator.Twitter, false, nil
		}
		l, err = parse.Layout(spec)
		if err != nil {
			return l, true, fmt.Errorf("IDKIT_LAYOUT: %w", err)
		}
		return l, true, nil
	}
	l, err = parse.Layout(spec)
	if err != nil {
		return l, true, fmt.Errorf("-layout: %w", err)
	}
	return l, true, nil
}

// splitNode returns the named sub-fields of a preset's 10-bit node: the
// Twitter datacenter and worker, or Discord's worker and process.
func splitNode(l generator.Layout) (hi, lo string, ok bool) {
	switch l {
	case generator.Twitter:
		return "datacenter", "worker", true
	case generator.Discord:
		return "worker", "process", true
	}
	return "", "", false
}

// nodeName is what the layout calls its node field.
func nodeName(l generator.Layout) string {
	if l == generator.Sonyflake {
		return "machine"
	}
	return "node"
}
