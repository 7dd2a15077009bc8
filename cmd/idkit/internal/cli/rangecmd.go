package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/idkit-go/idkit/cmd/idkit/internal/parse"
	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

func usageRange(w io.Writer) {
	fmt.Fprint(w, `usage: idkit range --from TIME [--to TIME] [--kind KIND] [--layout LAYOUT]
                   [--table NAME] [--column NAME] [--collection NAME]

Print the primary-key range of the IDs created in a time range, with SQL and
mongosh queries ready to paste. IDs sort by creation time, so "created
between A and B" is a key range scan.

With --to, the range is [from, to): from's smallest ID <= id < to's
smallest ID. Without --to, it is the IDs of from's second (ObjectID) or tick
(Snowflake): up to the next one's smallest ID, excluded. Times are cut to
that resolution. A time the IDs cannot hold (an ObjectID before 1970 or
after 2106-02-07T06:28:15Z, a Snowflake before its layout's epoch or after
its end) is a bad command line, like a time that does not parse: exit
status 2.

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
			return usageError(e, "range", "--kind: "+err.Error())
		}
		if k == parse.KindUUID {
			return usageError(e, "range", "--kind uuid: range makes ObjectID and Snowflake bounds (for UUIDs, use types.UUIDv7FromTime)")
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
	if kind == parse.KindObjectID && *layoutFlag != "" {
		return usageError(e, "range", "--layout is for --kind snowflake")
	}
	var lo, hi bound
	var what string
	if kind == parse.KindObjectID {
		what = "ObjectID"
		lo, hi, err = oidRange(from, to)
	} else {
		l, _, lerr := layoutFrom(e, *layoutFlag)
		if lerr != nil {
			return usageError(e, "range", lerr.Error())
		}
		what = "Snowflake, layout " + l.String()
		lo, hi, err = sfRange(l, from, to)
	}
	if err != nil {
		// A time the IDs cannot hold is a bad flag value, like a time that
		// does not parse: both are bad command lines.
		return usageError(e, "range", message(err))
	}
	writeRange(e.Stdout, what, kind, from, to, lo, hi, *table, *column, *coll)
	return ExitOK
}

// oidRange returns the bounds of the ObjectIDs of [from, to), or of from's
// second when to is zero, through the range rules sqltypes uses.
func oidRange(from, to time.Time) (lo, hi bound, err error) {
	if to.IsZero() {
		to = time.Unix(from.Unix()+1, 0)
	}
	r, err := sqltypes.NewObjectIDRange(from, to)
	if err != nil {
		return lo, hi, err
	}
	return oidBound(r.From), oidBound(r.To), nil
}

// sfRange returns the bounds of layout l's IDs of [from, to), or of from's
// tick when to is zero, through the range rules sqltypes uses.
func sfRange(l generator.Layout, from, to time.Time) (lo, hi bound, err error) {
	if to.IsZero() {
		first, err := l.MinID(from)
		if err != nil {
			return lo, hi, err
		}
		p, err := l.Decompose(first)
		if err != nil {
			return lo, hi, err
		}
		to = p.Time.Add(l.Spec().Unit)
	}
	r, err := sqltypes.NewSnowflakeRange(l, from, to)
	if err != nil {
		return lo, hi, err
	}
	return sfBound(r.From), sfBound(r.To), nil
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
		fmt.Fprintf(w, "to     %-30s %s  (smallest ID of the next %s, excluded)\n", "", hi.text, unit)
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
