package cli

import (
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/idkit-go/idkit/cmd/idkit/internal/parse"
	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

func usageRange(w io.Writer) {
	fmt.Fprint(w, `usage: idkit range --from TIME [--to TIME] [--kind KIND] [--layout LAYOUT]
                   [--table NAME] [--column NAME] [--collection NAME]

Print the primary-key range of the IDs created in a time range, with SQL and
mongosh queries ready to paste. IDs sort by creation time, so "created
between A and B" is a key range scan.

With --to, the range is [from, to): from <= id < to's smallest ID.
Without --to, it is the IDs of from's second (ObjectID) or tick (Snowflake):
its smallest ID <= id <= its largest ID. Times are cut to that resolution.

Flags:
  --from TIME        start of the range (required)
  --to TIME          end of the range, excluded
  --kind KIND        objectid (default) or snowflake; --layout alone
                     implies snowflake
  --layout LAYOUT    Snowflake layout (default: $IDKIT_LAYOUT, else twitter)
  --table NAME       table in the SQL (default mytable)
  --column NAME      key column in the SQL (default id)
  --collection NAME  collection in the mongosh query (default mycoll)

`)
	fmt.Fprintln(w, parse.TimeSyntax)
	fmt.Fprint(w, `
Example:
  idkit range --from 2022-09-22 --to 2022-09-23
`)
}

// bound is one end of a range, rendered for each place it is pasted.
type bound struct {
	text  string // canonical text: hex or decimal
	sql   []string
	mongo string
}

func oidBound(id types.ObjectID) bound {
	h := id.Hex()
	return bound{text: h, sql: []string{"'\\x" + h + "'::bytea", "X'" + strings.ToUpper(h) + "'", "'" + h + "'"},
		mongo: `ObjectId("` + h + `")`}
}

func sfBound(id types.Snowflake) bound {
	d := id.String()
	return bound{text: d, sql: []string{d}, mongo: `NumberLong("` + d + `")`}
}

func runRange(e *Env, args []string) int {
	fs := flag.NewFlagSet("range", flag.ContinueOnError)
	fromFlag := fs.String("from", "", "")
	toFlag := fs.String("to", "", "")
	kindFlag := fs.String("kind", "", "")
	layoutFlag := fs.String("layout", "", "")
	table := fs.String("table", "mytable", "")
	column := fs.String("column", "id", "")
	coll := fs.String("collection", "mycoll", "")
	pos, code, ok := parseFlags(e, fs, usageRange, args)
	if !ok {
		return code
	}
	switch {
	case len(pos) > 0:
		return usageError(e, "range", fmt.Sprintf("unexpected argument %q (use --from and --to)", pos[0]))
	case *fromFlag == "":
		return usageError(e, "range", "--from is required")
	}
	kind := parse.KindObjectID
	if *kindFlag != "" {
		k, err := parse.ParseKind(*kindFlag)
		if err != nil {
			return usageError(e, "range", "-kind: "+err.Error())
		}
		kind = k
	} else if *layoutFlag != "" {
		kind = parse.KindSnowflake
	}
	from, err := parse.Time(*fromFlag, e.Now())
	if err != nil {
		return usageError(e, "range", "--from: "+err.Error())
	}
	var to time.Time
	if *toFlag != "" {
		if to, err = parse.Time(*toFlag, e.Now()); err != nil {
			return usageError(e, "range", "--to: "+err.Error())
		}
		if !to.After(from) {
			return usageError(e, "range", fmt.Sprintf("--to %s is not after --from %s", to.Format(time.RFC3339Nano), from.Format(time.RFC3339Nano)))
		}
	}
	var lo, hi bound
	var what string
	if kind == parse.KindObjectID {
		if *layoutFlag != "" {
			return usageError(e, "range", "--layout is for --kind snowflake")
		}
		what = "ObjectID"
		if lo, hi, err = oidRange(from, to); err != nil {
			fmt.Fprintf(e.Stderr, "idkit range: %v\n", err)
			return ExitInvalid
		}
	} else {
		l, _, err := layoutFrom(e, *layoutFlag)
		if err != nil {
			return usageError(e, "range", err.Error())
		}
		what = "Snowflake, layout " + l.String()
		if lo, hi, err = sfRange(l, from, to); err != nil {
			fmt.Fprintf(e.Stderr, "idkit range: %v\n", err)
			return ExitInvalid
		}
	}
	writeRange(e.Stdout, what, kind, from, to, lo, hi, *table, *column, *coll)
	return ExitOK
}

func oidRange(from, to time.Time) (lo, hi bound, err error) {
	for _, t := range []time.Time{from, to} {
		if !t.IsZero() && (t.Unix() < 0 || t.Unix() > math.MaxUint32) {
			return lo, hi, fmt.Errorf("%s is outside the ObjectID time range 1970-01-01 to 2106-02-07", t.Format(time.RFC3339Nano))
		}
	}
	lo = oidBound(types.ObjectIDFromTime(from))
	if !to.IsZero() {
		return lo, oidBound(types.ObjectIDFromTime(to)), nil
	}
	max := types.ObjectIDFromTime(from)
	binary.BigEndian.PutUint64(max[4:], math.MaxUint64)
	return lo, oidBound(max), nil
}

func sfRange(l generator.Layout, from, to time.Time) (lo, hi bound, err error) {
	min, err := l.MinID(from)
	if err != nil {
		return lo, hi, err
	}
	var max types.Snowflake
	if to.IsZero() {
		max, err = l.MaxID(from)
	} else {
		max, err = l.MinID(to)
	}
	if err != nil {
		return lo, hi, err
	}
	return sfBound(min), sfBound(max), nil
}

func writeRange(w io.Writer, what string, kind parse.Kind, from, to time.Time, lo, hi bound, table, column, coll string) {
	unit := "second"
	if kind == parse.KindSnowflake {
		unit = "tick"
	}
	fmt.Fprintf(w, "kind   %s\n", what)
	fmt.Fprintf(w, "from   %-30s %s  (smallest ID of its %s)\n", from.Format(time.RFC3339Nano), lo.text, unit)
	hiOp, mongoHi := "<", "$lt"
	if to.IsZero() {
		hiOp, mongoHi = "<=", "$lte"
		fmt.Fprintf(w, "to     %-30s %s  (largest ID of the same %s)\n", "", hi.text, unit)
	} else {
		fmt.Fprintf(w, "to     %-30s %s  (smallest ID of its %s, excluded)\n", to.Format(time.RFC3339Nano), hi.text, unit)
	}
	fmt.Fprintf(w, "range  %s >= %s AND %s %s %s\n\n", column, lo.text, column, hiOp, hi.text)
	where := func(i int) string {
		return fmt.Sprintf("SELECT * FROM %s WHERE %s >= %s AND %s %s %s;", table, column, lo.sql[i], column, hiOp, hi.sql[i])
	}
	if kind == parse.KindObjectID {
		fmt.Fprintf(w, "-- PostgreSQL, 12-byte bytea key\n%s\n", where(0))
		fmt.Fprintf(w, "-- MySQL, MariaDB, SQLite, 12-byte binary key\n%s\n", where(1))
		fmt.Fprintf(w, "-- 24-hex-digit text key (lower case)\n%s\n", where(2))
	} else {
		fmt.Fprintf(w, "-- SQL, BIGINT key\n%s\n", where(0))
	}
	fmt.Fprintf(w, "// mongosh\ndb.%s.find({ _id: { $gte: %s, %s: %s } })\n", coll, lo.mongo, mongoHi, hi.mongo)
}
