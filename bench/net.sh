#!/usr/bin/env bash
# Runs insertbench's network scenarios (-net) through the delaying proxy at
# round trips of 0 (straight to the server), 0.5 ms and 2 ms added, on
# PostgreSQL and MariaDB, with the sequence, Snowflake, ObjectID, UUIDv7 and
# UUIDv4 keys. Writes results/net-<step>.md and .json; the chart in
# docs/benchmarks.md is drawn from the JSON by `go -C tools run ./netchart`.
# Usage: bench/net.sh [step...]   (default: every step, about an hour)
# Steps: bulk bulk-gorm orders orders-async orders-gorm retry.
# DSNs: IDKIT_POSTGRES_DSN and IDKIT_MYSQL_DSN.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p results
keys=seq,snowflake,objectid,uuidv7,uuidv4
bin=$(mktemp -d)/insertbench
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/insertbench
run() {
	local name=$1
	shift
	"$bin" -keys "$keys" -rtt 0,500us,2ms -json "results/net-$name.json" -out "results/net-$name.md" "$@"
}
steps=("$@")
[ "${#steps[@]}" -gt 0 ] || steps=(bulk bulk-gorm orders orders-async orders-gorm retry)
for step in "${steps[@]}"; do
	case $step in
	# Bulk loads of 1M rows: the sequence's keyed path against COPY / LOAD DATA.
	bulk) run bulk -net bulk -methods returning,insert,copy,loaddata -netrows 1000000 -reps 2 ;;
	# The same through GORM's CreateInBatches, 200,000 rows.
	bulk-gorm) run bulk-gorm -net bulk -methods gorm -netrows 200000 -reps 2 ;;
	# Orders: 10,000 orders of 10 lines, two round trips against one.
	orders) run orders -net orders -methods two,pipelined -orders 10000 -reps 2 ;;
	# The same on PostgreSQL with synchronous_commit off in the session: no
	# COMMIT waits for the disk, which leaves the round trips.
	orders-async) run orders-async -net orders -methods two,pipelined -orders 10000 -reps 2 -db postgres -asynccommit ;;
	# GORM's association create, 1,000 orders.
	orders-gorm) run orders-gorm -net orders -methods gorm -orders 1000 ;;
	# Lost replies: 20 batches of 1,000 rows each.
	retry) run retry -net retry -retrybatches 20 ;;
	*) echo "net.sh: unknown step $step" >&2; exit 2 ;;
	esac
done
