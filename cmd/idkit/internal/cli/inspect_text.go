package cli

import (
	"fmt"
	"io"
	"strconv"
)

// writeRecord prints r for people: a header, one line per fact, the legacy
// reading of an ObjectID, notes, and the bit diagram.
func writeRecord(w io.Writer, r record, width int) {
	line := func(k, format string, a ...any) {
		fmt.Fprintf(w, "  %-9s %s\n", k, fmt.Sprintf(format, a...))
	}
	boxes := make([]box, len(r.Fields))
	if r.Kind == "uuid" {
		fmt.Fprintf(w, "%s  UUID version %d, variant %s\n", r.ID, *r.Version, r.Variant)
		if r.UnixMilli != nil {
			line("time", "%s  (local %s)", r.Time, r.Local)
			line("unix_ms", "%d", *r.UnixMilli)
		}
		for i, f := range r.Fields {
			boxes[i] = bitBox(f.Name, f.Bits, f.Value, f.group, strconv.FormatUint(f.Value, 10))
		}
	} else if r.Kind == "objectid" {
		fmt.Fprintf(w, "%s  ObjectID\n", r.ID)
		line("time", "%s  (local %s)", r.Time, r.Local)
		line("unix", "%d", *r.Unix)
		line("process", "%s", r.ProcessUnique)
		line("counter", "%d", *r.Counter)
		line("legacy", "machine %s  pid %d  counter %d  (layout before MongoDB 3.4)",
			r.Legacy.Machine, r.Legacy.PID, r.Legacy.Counter)
		for i, f := range r.Fields {
			v := strconv.FormatUint(f.Value, 10)
			if f.Name == "process" {
				v = r.ProcessUnique
			}
			boxes[i] = bitBox(f.Name, f.Bits, f.Value, f.group, v)
		}
	} else {
		fmt.Fprintf(w, "%s  Snowflake, layout %s\n", r.ID, r.layout)
		line("time", "%s  (local %s)", r.Time, r.Local)
		line("tick", "%d", *r.Tick)
		node := fmt.Sprintf("%d", *r.Node)
		switch {
		case r.Datacenter != nil:
			node += fmt.Sprintf("  (datacenter %d, worker %d)", *r.Datacenter, *r.Worker)
		case r.Process != nil:
			node += fmt.Sprintf("  (worker %d, process %d)", *r.Worker, *r.Process)
		}
		line(nodeName(r.layout), "%s", node)
		line("sequence", "%d", *r.Sequence)
		for i, f := range r.Fields {
			boxes[i] = bitBox(f.Name, f.Bits, f.Value, f.group, strconv.FormatUint(f.Value, 10))
		}
	}
	if r.Form != "" {
		line("key", "%s  (form %s; the fields above and below are its ordered ID's)", r.Key, r.Form)
	}
	for _, n := range r.Notes {
		line("note", "%s", n)
	}
	drawDiagram(w, "  ", boxes, width)
}
