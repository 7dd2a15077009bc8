package cli

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/idkit-go/idkit/cmd/idkit/internal/parse"
	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/internal/objectidgen"
	"github.com/idkit-go/idkit/types"
)

// progressMin is the smallest count for which "new" draws a progress bar.
const progressMin = 100_000

func usageNew(w io.Writer) {
	fmt.Fprint(w, `usage: idkit new [--n N] [--kind objectid|snowflake|uuid] [--node N] [--layout LAYOUT]

Print N new IDs, one per line. On a terminal, a progress bar is drawn on
standard error when N is at least 100000.

Flags:
  --n N            how many IDs (default 1)
  --kind KIND      objectid (default), snowflake, or uuid (version 7)
  --node N         Snowflake node ID (default: $IDKIT_NODE). For the twitter
                   and discord layouts HI:LO (two 5-bit numbers: datacenter:
                   worker for twitter, worker:process for discord) is also
                   accepted. A snowflake without a node is an error: idkit
                   never picks node 0 for you. Not used for ObjectIDs, whose
                   5-byte process value is random, nor for UUIDs.
  --layout LAYOUT  Snowflake layout (default: $IDKIT_LAYOUT, else twitter)

The node must not be in use by another generator with the same layout at
the same time, or IDs can repeat. Before it exits, idkit new waits until
the clock has passed the tick of its last Snowflake (at most one tick), so
that a following run with the same node cannot reuse it.

`)
	fmt.Fprintln(w, parse.LayoutSyntax)
}

func runNew(e *Env, args []string) int {
	fs := flag.NewFlagSet("new", flag.ContinueOnError)
	n := fs.Int("n", 1, "")
	kindFlag := fs.String("kind", "objectid", "")
	nodeFlag := fs.String("node", "", "")
	layoutFlag := fs.String("layout", "", "")
	pos, code, ok := parseFlags(e, fs, usageNew, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError(e, "new", fmt.Sprintf("unexpected argument %q (use --n for a count)", pos[0]))
	}
	if *n < 0 {
		return usageError(e, "new", fmt.Sprintf("--n %d: the count must not be negative", *n))
	}
	kind, err := parse.ParseKind(*kindFlag)
	if err != nil {
		return usageError(e, "new", "--kind: "+err.Error())
	}
	out := bufio.NewWriterSize(e.Stdout, 64*1024)
	var bar *progress
	if e.StderrTerminal && *n >= progressMin {
		bar = newProgress(e.Stderr, *n, e.Now)
	}
	if kind == parse.KindUUID {
		if *nodeFlag != "" || *layoutFlag != "" {
			return usageError(e, "new", "--node and --layout are for --kind snowflake; a UUID's bits after its time are a counter and random")
		}
		for i := 0; i < *n; i++ {
			out.WriteString(types.NewUUIDv7().String())
			out.WriteByte('\n')
			bar.update(i + 1)
		}
		bar.done()
		return flushed(e, out)
	}
	if kind == parse.KindObjectID {
		if *nodeFlag != "" || *layoutFlag != "" {
			return usageError(e, "new", "--node and --layout are for --kind snowflake; an ObjectID's process value is random")
		}
		var buf [24]byte
		for i := 0; i < *n; i++ {
			id := types.NewObjectID()
			objectidgen.EncodeHex(buf[:], (*[12]byte)(&id))
			out.Write(buf[:])
			out.WriteByte('\n')
			bar.update(i + 1)
		}
		bar.done()
		return flushed(e, out)
	}
	return newSnowflakes(e, out, bar, *n, *nodeFlag, *layoutFlag)
}

func newSnowflakes(e *Env, out *bufio.Writer, bar *progress, n int, nodeFlag, layoutFlag string) int {
	layout, _, err := layoutFrom(e, layoutFlag)
	if err != nil {
		return usageError(e, "new", err.Error())
	}
	nodeText, from := nodeFlag, "--node"
	if nodeText == "" {
		nodeText, from = strings.TrimSpace(e.Getenv("IDKIT_NODE")), "IDKIT_NODE"
	}
	if nodeText == "" {
		return usageError(e, "new", "a snowflake needs a node ID: pass --node N or set IDKIT_NODE "+
			"(each running generator needs its own; idkit never picks node 0 for you)")
	}
	node, err := parseNode(nodeText, layout)
	if err != nil {
		return usageError(e, "new", fmt.Sprintf("%s %q: %v", from, nodeText, err))
	}
	g, err := generator.NewSnowflake(node, generator.WithLayout(layout))
	if err != nil {
		return usageError(e, "new", fmt.Sprintf("%s %q: %s", from, nodeText, message(err)))
	}
	var buf [20]byte
	var last types.Snowflake
	for i := 0; i < n; i++ {
		id, err := g.Next()
		if err != nil {
			bar.done()
			out.Flush()
			fmt.Fprintf(e.Stderr, "idkit new: after %d IDs: %s\n", i, message(err))
			return ExitInvalid
		}
		last = id
		out.Write(strconv.AppendInt(buf[:0], int64(id), 10))
		out.WriteByte('\n')
		bar.update(i + 1)
	}
	bar.done()
	code := flushed(e, out)
	if n > 0 {
		// Let the clock pass the last tick, so that the next run with this
		// node starts in a later tick.
		if p, err := layout.Decompose(last); err == nil {
			if d := time.Until(p.Time.Add(layout.Spec().Unit)); d > 0 {
				time.Sleep(d)
			}
		}
	}
	return code
}

// parseNode reads a node ID: a decimal number, or HI:LO for the layouts
// whose 10-bit node is made of two 5-bit fields.
func parseNode(s string, l generator.Layout) (int64, error) {
	if a, b, ok := strings.Cut(s, ":"); ok {
		if _, _, split := splitNode(l); !split {
			return 0, fmt.Errorf("the HI:LO form is only for the twitter and discord layouts")
		}
		hi, err1 := strconv.ParseInt(a, 10, 64)
		lo, err2 := strconv.ParseInt(b, 10, 64)
		if err1 != nil || err2 != nil {
			return 0, fmt.Errorf("want two decimal numbers, HI:LO")
		}
		if hi < 0 || hi > 31 || lo < 0 || lo > 31 {
			return 0, fmt.Errorf("out of range: HI and LO are each 0 to 31")
		}
		return hi<<5 | lo, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not a decimal number")
	}
	if v < 0 || v > l.MaxNode() {
		return 0, fmt.Errorf("out of range: layout %s has node IDs 0 to %d", l.Spec().Name, l.MaxNode())
	}
	return v, nil
}

func flushed(e *Env, out *bufio.Writer) int {
	if err := out.Flush(); err != nil {
		fmt.Fprintf(e.Stderr, "idkit new: writing: %v\n", err)
		return ExitInvalid
	}
	return ExitOK
}
