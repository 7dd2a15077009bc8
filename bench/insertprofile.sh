#!/usr/bin/env bash
# Profiles the client side of the insert benchmark's GORM path on one
# database (default MariaDB): one run per key kind with a CPU profile, then
# the profile's CPU time per row by where it is spent. Writes
# results/insert-profile.md (or the file named by the fourth argument),
# which docs/benchmarks.md includes; further arguments go to insertbench.
# Usage: bench/insertprofile.sh [rows] [database] [kinds] [output] [insertbench flags...]
# Example, GORM with SkipDefaultTransaction on PostgreSQL:
#   bench/insertprofile.sh 2000000 postgres seq,snowflake,objectid results/insert-profile-pg.md -autocommit
set -euo pipefail
cd "$(dirname "$0")"
rows=${1:-1000000}
db=${2:-mariadb}
kinds=${3:-seq,snowflake,objectid,guuidv7}
output=${4:-results/insert-profile.md}
shift $(($# < 4 ? $# : 4))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/insertbench" ./cmd/insertbench
# name|pprof regexp (cumulative time of the matching function)
case $db in
postgres)
	parts='the plugint fill|gormplugin\.\(\*Plugin\)\.fill$
GORM: field values to the INSERT|gorm/callbacks\.ConvertToCreateValues$
GORM: the INSERT statement and its arguments|gorm\.io/gorm\.\(\*Statement\)\.Build$
GORM and pgx: reading keys back (RETURNING)|gorm\.io/gorm\.Scan$
database/sql: arguments to the driver|database/sql\.driverArgsConnLocked$
pgx: encoding the arguments|pgx/v5\.\(\*ExtendedQueryBuilder\)\.Build$
pgx: of which through Value|pgtype\.\(\*encodePlanDriverValuer\)\.Encode$
pgx: sending the statement, reading its command tag|pgconn\.\(\*PgConn\)\.ExecStatement$
garbage collector (background)|runtime\.gcBgMarkWorker$
garbage collector (assists)|runtime\.gcAssistAlloc$'
	;;
*)
	parts='the plugint fill|gormplugin\.\(\*Plugin\)\.fill$
GORM: field values to the INSERT|gorm/callbacks\.ConvertToCreateValues$
GORM: reading keys back (RETURNING)|gorm\.io/gorm\.Scan$
database/sql: arguments through Value|database/sql\.driverArgsConnLocked$
driver: the execute packet|mysqlStmt\)\.writeExecutePacket$
driver: the prepare round trip|mysqlConn\)\.PrepareContext$
garbage collector (background)|runtime\.gcBgMarkWorker$
garbage collector (assists)|runtime\.gcAssistAlloc$'
	;;
esac
parts=${parts/plugint/plugin\'s}
{
	label=$db
	case $db in mariadb) label=MariaDB ;; postgres) label=PostgreSQL ;; sqlite) label=SQLite ;; esac
	setup=""
	case " $* " in *" -autocommit "*) setup=" with \`SkipDefaultTransaction\` (each 1,000-row INSERT committed on its own)" ;; esac
	case " $* " in *" -pgxtypes "*) setup="$setup, \`pgxtypes.Register\` on the connection" ;; esac
	echo "Client CPU per row of GORM \`CreateInBatches\` with gormplugin$setup on $label, from a CPU profile of one $(echo "$rows" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')-row run per key kind (each part is the time in and under that function; the parts overlap a little and do not cover the scheduler and the network):"
	echo
	header="| where |"; rule="|---|"
	IFS=, read -ra ks <<<"$kinds"
	for k in "${ks[@]}"; do header="$header $k |"; rule="$rule---:|"; done
	echo "$header"; echo "$rule"
	for k in "${ks[@]}"; do
		"$tmp/insertbench" -rows "$rows" -db "$db" -mode gorm -keys "$k" -cpuprofile "$tmp/$k.pb" "$@" >/dev/null 2>"$tmp/$k.log"
		go tool pprof -top -cum -unit=ms "$tmp/insertbench" "$tmp/$k.pb" 2>/dev/null >"$tmp/$k.txt"
	done
	row() { # name, regexp ("" = total)
		line="| $1 |"
		for k in "${ks[@]}"; do
			if [ -z "$2" ]; then
				ms=$(sed -n 's/.*Total samples = \([0-9.]*\)ms.*/\1/p' "$tmp/$k.txt")
			else
				ms=$(RE="$2" awk '{ re = ENVIRON["RE"]; name=""; for (i = 6; i <= NF; i++) name = name (i > 6 ? " " : "") $i } name ~ re { v = $4; sub(/ms$/, "", v); s += v } END { print s + 0 }' "$tmp/$k.txt")
			fi
			line="$line $(awk -v ms="$ms" -v n="$rows" 'BEGIN { printf "%.0f ns", ms * 1e6 / n }') |"
		done
		echo "$line"
	}
	row "all of the client" ""
	while IFS='|' read -r name re; do row "$name" "$re"; done <<<"$parts"
	stat() { # name, sed expression printing the figure from insertbench's run line
		line="| $1 |"
		for k in "${ks[@]}"; do line="$line $(sed -n "$2" "$tmp/$k.log" | tail -1) |"; done
		echo "$line"
	}
	stat "heap allocations per row" 's/.* \([0-9.]*\) allocs\/row.*/\1/p'
	stat "heap bytes per row" 's/.* \([0-9]*\) B\/row.*/\1 B/p'
	stat "garbage collections in the run" 's/.* \([0-9]*\) GCs.*/\1/p'
} >"$output"
cat "$output"
